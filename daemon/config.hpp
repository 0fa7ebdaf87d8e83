// losd's configuration: /etc/los/losd.yaml (docs/losd.md lists every key).
//
// Parsing is strict: an unknown key, a value of the wrong type or out of
// range, or a missing required key throws ConfigError whose message starts
// with "FILE:LINE: KEY: ". Policy specs are checked by building the policy.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "log.hpp"
#include "sim/forecast.hpp"

namespace los::daemon {

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr const char* kDefaultConfigPath = "/etc/los/losd.yaml";

struct SocketConfig {
  std::string path;
  mode_t mode = 0600;
  bool operator==(const SocketConfig&) const = default;
};

struct DaemonConfig {
  std::string source;   // the file it was read from
  std::string cluster;  // "" accepts a plugin of any cluster
  LogLevel log_level = LogLevel::Info;
  SocketConfig plugin_socket{"/run/los/plugin.sock", 0600};
  // Peers allowed on the plugin socket; empty: root and losd's own user.
  std::vector<uid_t> plugin_allowed_uids;
  SocketConfig query_socket{"/run/los/query.sock", 0666};
  SocketConfig admin_socket{"/run/los/admin.sock", 0600};
  std::string metrics_listen = "127.0.0.1:9464";  // "" disables the endpoint
  std::uint32_t max_payload_bytes = 16u * 1024u * 1024u;
  // Connection caps per socket, so one socket's clients never lock out
  // another's; the per-uid cap and rate do not apply to root and losd's user.
  int max_query_clients = 256;
  int max_admin_clients = 16;
  int max_query_clients_per_uid = 32;
  double query_requests_per_second_per_uid = 50;
  int query_request_burst_per_uid = 200;
  double frame_timeout_seconds = 10;                // a started frame must arrive within this
  double idle_timeout_seconds = 300;                // query/admin connections idle this long are closed
  ForecastOptions forecast{.mode = RunMode::Live};  // live partitions: wall-clock caps apply
  std::string default_policy = "easy";              // canonical spec
  std::map<std::string, std::string> partitions;    // partition -> canonical spec

  // The policy spec for a partition: its own or the default.
  const std::string& policy_for(const std::string& partition) const;
};

// Reads and validates a configuration file.
DaemonConfig load_config(const std::string& path);
// The same from text; `source` names it in errors.
DaemonConfig parse_config(const std::string& text, const std::string& source);

}  // namespace los::daemon
