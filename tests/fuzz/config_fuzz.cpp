// losd's yaml configuration loader as `losd --check-config --config FILE`
// runs it: the input is written to an in-memory file (memfd) and loaded by
// path. It may only refuse with ConfigError, whose message starts with the
// file name (daemon/config.hpp); what it accepts must hold the documented
// ranges and three distinct socket paths.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "config.hpp"
#include "mem_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const los::fuzz::MemFile file(data, size);
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
