// Acting as another local user in the integration tests: a forked child
// that drops to that uid and works over losd's sockets. Needs root.
#pragma once

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "losd_process.hpp"
#include "protocol/client.hpp"

namespace los::test {

inline constexpr uid_t kNobody = 65534;

// A forked child running as `uid`: it runs `work`, which may keep connections
// in `held`, writes the returned line to the parent, and keeps what it holds
// open until release() (or the destructor).
class AsUser {
 public:
  using Work = std::function<std::string(std::vector<protocol::Client>& held)>;

  AsUser(uid_t uid, const Work& work) {
    int report[2];
    int hold[2];
    if (::pipe(report) != 0 || ::pipe(hold) != 0) throw std::runtime_error("pipe failed");
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      ::close(report[0]);
      ::close(hold[1]);
      std::string line;
      std::vector<protocol::Client> held;
      if (::setresgid(kNobody, kNobody, kNobody) != 0 || ::setresuid(uid, uid, uid) != 0) {
        line = "setresuid failed";
      } else {
        try {
          line = work(held);
        } catch (const std::exception& e) {
          line = std::string("error: ") + e.what();
        }
      }
      line += '\n';
      if (::write(report[1], line.data(), line.size()) < 0) ::_exit(2);
      char byte;
      while (::read(hold[0], &byte, 1) > 0) {
      }
      ::_exit(0);
    }
    ::close(report[1]);
    ::close(hold[0]);
    report_fd_ = report[0];
    hold_fd_ = hold[1];
  }
  ~AsUser() { release(); }
  AsUser(const AsUser&) = delete;
  AsUser& operator=(const AsUser&) = delete;

  // The child's line (without the newline), once its work is done.
  std::string report() {
    std::string line;
    pollfd p{report_fd_, POLLIN, 0};
    char c;
    while (::poll(&p, 1, 60000) == 1 && ::read(report_fd_, &c, 1) == 1 && c != '\n') line += c;
    return line;
  }

  // Closes everything the child holds and reaps it.
  void release() {
    if (pid_ <= 0) return;
    ::close(hold_fd_);
    ::close(report_fd_);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
  int report_fd_ = -1;
  int hold_fd_ = -1;
};

// mkdtemp made losd's directory 0700: let nobody reach the query socket.
inline void open_directory_to_others(const test::LosdProcess& losd) {
  std::filesystem::permissions(std::filesystem::path(losd.query_socket()).parent_path(),
                               std::filesystem::perms::owner_all | std::filesystem::perms::others_exec);
}

}  // namespace los::test
