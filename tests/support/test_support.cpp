#include "test_support.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "policy/registry.hpp"

namespace los::test {

Job job(JobId id, Time submit, int size, Time estimate, Time runtime, int user) {
  Job j;
  j.id = id;
  j.submit = submit;
  j.size = size;
  j.estimate = estimate;
  j.runtime = runtime < 0 ? estimate : runtime;
  j.user = user;
  return j;
}

Snapshot idle_partition(int units, Time now, std::vector<Job> queue) {
  Snapshot s;
  s.now = now;
  s.total_units = units;
  s.free_units = units;
  s.queue = std::move(queue);
  return s;
}

Workload workload(int units, std::vector<Job> jobs) {
  Workload w;
  w.source = "test";
  w.units = units;
  std::stable_sort(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) { return a.submit < b.submit; });
  w.jobs = std::move(jobs);
  return w;
}

namespace {

// The trace's header and first `jobs` records in a plain file, written once
// per process tree (atomically: tests run in parallel).
std::string trace_prefix(const std::filesystem::path& trace, long jobs) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("los-trace-prefix-" + std::to_string(jobs));
  std::string name = trace.filename().string();
  if (name.ends_with(".gz")) name.resize(name.size() - 3);
  const std::filesystem::path out = dir / name;
  if (std::filesystem::exists(out)) return out.string();
  std::filesystem::create_directories(dir);
  gzFile in = gzopen(trace.c_str(), "rb");
  if (!in) throw std::runtime_error("cannot read " + trace.string());
  const std::filesystem::path part = out.string() + "." + std::to_string(::getpid());
  {
    std::ofstream o(part);
    std::vector<char> line(1 << 16);
    long records = 0;
    while (records < jobs && gzgets(in, line.data(), static_cast<int>(line.size()))) {
      const std::string text(line.data());
      const std::size_t first = text.find_first_not_of(" \t\r\n");
      if (first != std::string::npos && text[first] != ';') ++records;
      o << text;
    }
  }
  gzclose(in);
  std::filesystem::rename(part, out);
  return out.string();
}

// The path a test reads for `trace`: itself, or its prefix under LOS_TEST_TRACE_JOBS.
std::string trace_for_test(const std::filesystem::path& trace) {
  const char* jobs = std::getenv("LOS_TEST_TRACE_JOBS");
  return jobs && std::atol(jobs) > 0 ? trace_prefix(trace, std::atol(jobs)) : trace.string();
}

}  // namespace

std::string shared_trace(const std::string& file) {
  const std::filesystem::path p = std::filesystem::path(LOS_SHARED_DIR) / "traces" / file;
  return std::filesystem::exists(p) ? trace_for_test(p) : std::string();
}

std::vector<std::string> shared_traces() {
  std::vector<std::string> out;
  const std::filesystem::path dir = std::filesystem::path(LOS_SHARED_DIR) / "traces";
  if (!std::filesystem::is_directory(dir)) return out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.find(".swf") != std::string::npos) out.push_back(trace_for_test(e.path()));
  }
  std::sort(out.begin(), out.end());
  return out;
}

SimResult run(const Workload& w, const std::string& policy_spec, bool kill_at_estimate) {
  PolicyPtr p = make_policy(policy_spec);
  SimOptions o;
  o.kill_at_estimate = kill_at_estimate;
  return simulate(w, *p, o);
}

Time start_of(const SimResult& r, JobId id) {
  for (const JobOutcome& o : r.jobs) {
    if (o.job.id == id) return o.start;
  }
  throw std::out_of_range("no job " + std::to_string(id));
}

Time end_of(const SimResult& r, JobId id) {
  for (const JobOutcome& o : r.jobs) {
    if (o.job.id == id) return o.end;
  }
  throw std::out_of_range("no job " + std::to_string(id));
}

CommandResult run_command(const std::string& command) {
  CommandResult r{-1, ""};
  FILE* f = ::popen((command + " 2>&1").c_str(), "r");
  if (!f) return r;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) r.output.append(buf, n);
  const int st = ::pclose(f);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

int free_tcp_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  socklen_t len = sizeof(a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

int connect_tcp(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

std::string http_get(int port, const std::string& path) {
  const int fd = connect_tcp(port);
  if (fd < 0) return "";
  const std::string req = "GET " + path + " HTTP/1.0\r\nHost: localhost\r\n\r\n";
  ::send(fd, req.data(), req.size(), 0);
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = ::recv(fd, buf, sizeof(buf), 0)) > 0) out.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  return out;
}

}  // namespace los::test
