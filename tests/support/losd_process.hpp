// Runs losd as a child process on sockets in a fresh temporary directory:
// the integration tests and the socket benchmark talk to the real daemon.
// Header-only so the benchmark can use it too.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "protocol/client.hpp"

namespace los::test {

class LosdProcess {
 public:
  // `body` is the YAML after the socket keys (policies, limits, ...); the
  // sockets live in the temporary directory and metrics are off unless
  // `body` sets them (see config_text).
  // With `notify_socket`, losd gets it as NOTIFY_SOCKET (systemd's protocol).
  LosdProcess(const std::string& binary, const std::string& body, const std::string& notify_socket = "")
      : binary_(binary), notify_socket_(notify_socket) {
    char dir[] = "/tmp/losd-test-XXXXXX";
    if (!::mkdtemp(dir)) throw std::runtime_error("mkdtemp failed");
    dir_ = dir;
    write_config(body);
    start();
  }

  ~LosdProcess() {
    stop();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  LosdProcess(const LosdProcess&) = delete;
  LosdProcess& operator=(const LosdProcess&) = delete;

  // A body that configures a socket itself replaces its default section;
  // "@DIR@" in it stands for the temporary directory.
  std::string config_text(std::string body) const {
    for (std::size_t at = body.find("@DIR@"); at != std::string::npos; at = body.find("@DIR@", at)) {
      body.replace(at, 5, dir_);
    }
    std::string text;
    for (const char* socket : {"plugin", "query", "admin"}) {
      const std::string key = std::string(socket) + "_socket:";
      if (body.find(key) == std::string::npos) text += key + "\n  path: " + dir_ + "/" + socket + ".sock\n";
    }
    if (body.find("metrics:") == std::string::npos) text += "metrics:\n  listen: \"\"\n";
    return text + body;
  }
  // Rewrites the configuration file (then signal(SIGHUP) to reload it).
  void write_config(const std::string& body) const { write_raw_config(config_text(body)); }
  void write_raw_config(const std::string& text) const {
    std::ofstream out(config_path());
    out << text;
  }

  std::string config_path() const { return dir_ + "/losd.yaml"; }
  std::string plugin_socket() const { return dir_ + "/plugin.sock"; }
  std::string query_socket() const { return dir_ + "/query.sock"; }
  std::string admin_socket() const { return dir_ + "/admin.sock"; }
  std::string log() const {
    std::ifstream in(dir_ + "/losd.log");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  pid_t pid() const { return pid_; }
  void signal(int signo) const { ::kill(pid_, signo); }
  bool alive() const { return pid_ > 0 && ::waitpid(pid_, nullptr, WNOHANG) == 0; }

  // Waits until `needle` appears in the log (or the timeout passes).
  bool wait_for_log(const std::string& needle, std::chrono::milliseconds timeout = std::chrono::seconds(10),
                    std::size_t occurrences = 1) const {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      const std::string text = log();
      std::size_t count = 0;
      for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++count;
      if (count >= occurrences) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

  // Sends SIGTERM and returns the exit status (-1 if it had to be killed).
  int stop() {
    if (pid_ <= 0) return -1;
    ::kill(pid_, SIGTERM);
    int status = 0;
    for (int i = 0; i < 500; ++i) {
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    return -1;
  }

 private:
  void start() {
    const std::string log_path = dir_ + "/losd.log";
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      const int fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      if (fd >= 0) ::dup2(fd, 2);
      // Nothing of the parent's: a pipe it holds would outlive the parent.
      const int null = ::open("/dev/null", O_RDWR);
      if (null >= 0) {
        ::dup2(null, 0);
        ::dup2(null, 1);
      }
      if (notify_socket_.empty()) {
        ::unsetenv("NOTIFY_SOCKET");
      } else {
        ::setenv("NOTIFY_SOCKET", notify_socket_.c_str(), 1);
      }
      ::unsetenv("JOURNAL_STREAM");
      const std::string cfg = config_path();
      ::execl(binary_.c_str(), "losd", "--config", cfg.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    // Ready when the last socket it opens (admin) accepts a connection.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < deadline) {
      try {
        protocol::Client probe(admin_socket(), std::chrono::seconds(1));
        return;
      } catch (const protocol::ClientError&) {
      }
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        throw std::runtime_error("losd exited at start: " + log());
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    stop();
    throw std::runtime_error("losd did not become ready: " + log());
  }

  std::string binary_;
  std::string notify_socket_;
  std::string dir_;
  pid_t pid_ = -1;
};

}  // namespace los::test
