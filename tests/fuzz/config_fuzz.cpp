// losd's yaml configuration loader as `losd --check-config --config FILE`
// runs it: the input is written to an in-memory file (memfd) and loaded by
// path. It may only refuse with ConfigError, whose message starts with the
// file name (daemon/config.hpp); what it accepts must hold the documented
// ranges and three distinct socket paths.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "config.hpp"

namespace {

// One memfd per input, closed on every path out.
class MemFile {
 public:
  MemFile(const std::uint8_t* data, std::size_t size) : fd_(memfd_create("losd.yaml", MFD_CLOEXEC)) {
    if (fd_ < 0) std::abort();
    for (std::size_t done = 0; done < size;) {
      const ssize_t n = write(fd_, data + done, size - done);
      if (n <= 0) std::abort();
      done += static_cast<std::size_t>(n);
    }
  }
  MemFile(const MemFile&) = delete;
  MemFile& operator=(const MemFile&) = delete;
  ~MemFile() { close(fd_); }
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

 private:
  int fd_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const MemFile file(data, size);
  const std::string path = file.path();
  try {
    const los::daemon::DaemonConfig c = los::daemon::load_config(path);
    if (c.source != path) std::abort();
    if (c.plugin_socket.path == c.query_socket.path || c.plugin_socket.path == c.admin_socket.path ||
        c.query_socket.path == c.admin_socket.path) {
      std::abort();
    }
    if (c.max_payload_bytes < 4096 || c.max_query_clients < 1 || c.max_admin_clients < 1 ||
        c.max_query_clients_per_uid < 1 || c.query_request_burst_per_uid < 1) {
      std::abort();
    }
    if (!(c.frame_timeout_seconds > 0) || !(c.idle_timeout_seconds > 0) ||
        !(c.query_requests_per_second_per_uid > 0)) {
      std::abort();
    }
    if (c.default_policy.empty()) std::abort();
    for (const auto& [name, spec] : c.partitions) {
      if (name.empty() || spec.empty()) std::abort();
    }
  } catch (const los::daemon::ConfigError& e) {
    if (std::string(e.what()).rfind(path, 0) != 0) std::abort();  // the message names the file first
  }
  return 0;
}
