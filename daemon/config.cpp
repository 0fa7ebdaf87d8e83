#include "config.hpp"

#include <pwd.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "policy/registry.hpp"
#include "protocol/los_protocol.h"

namespace los::daemon {
namespace {

// Errors name the file, the line (1-based) and the full key.
class Context {
 public:
  explicit Context(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const YAML::Node& at, const std::string& key, const std::string& why) const {
    const YAML::Mark mark = at.Mark();
    const std::string line = mark.line >= 0 ? std::to_string(mark.line + 1) : "?";
    throw ConfigError(source_ + ":" + line + ": " + key + ": " + why);
  }

  // Rejects keys of a mapping other than `known`.
  void only(const YAML::Node& map, const std::string& prefix, std::initializer_list<const char*> known) const {
    if (!map.IsMap()) fail(map, prefix.empty() ? "(top level)" : prefix, "expected a mapping");
    for (const auto& kv : map) {
      // A complex key ("? a: b") is a mapping, not a name: refused, not thrown as a bad conversion.
      if (!kv.first.IsScalar()) fail(kv.first, prefix.empty() ? "(top level)" : prefix, "a key must be a plain name");
      const std::string key = kv.first.as<std::string>();
      bool ok = false;
      for (const char* k : known) ok = ok || key == k;
      if (!ok) {
        std::string list;
        for (const char* k : known) list += (list.empty() ? "" : ", ") + std::string(k);
        fail(kv.first, join(prefix, key), "unknown key (known here: " + list + ")");
      }
    }
  }

  static std::string join(const std::string& prefix, const std::string& key) {
    return prefix.empty() ? key : prefix + "." + key;
  }

  std::string string(const YAML::Node& n, const std::string& key) const {
    if (!n.IsScalar()) fail(n, key, "expected a string");
    return n.as<std::string>();
  }

  long long integer(const YAML::Node& n, const std::string& key, long long lo, long long hi) const {
    if (!n.IsScalar()) fail(n, key, "expected an integer");
    const std::string text = n.as<std::string>();
    std::size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(text, &used, 10);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != text.size()) fail(n, key, "'" + text + "' is not an integer");
    if (v < lo || v > hi) {
      fail(n, key, std::to_string(v) + " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    }
    return v;
  }

  double number(const YAML::Node& n, const std::string& key, double lo, double hi) const {
    if (!n.IsScalar()) fail(n, key, "expected a number");
    const std::string text = n.as<std::string>();
    std::size_t used = 0;
    double v = 0;
    try {
      v = std::stod(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != text.size() || !std::isfinite(v)) fail(n, key, "'" + text + "' is not a number");
    if (v < lo || v > hi) {
      std::ostringstream range;
      range << "[" << lo << ", " << hi << "]";
      fail(n, key, text + " is outside " + range.str());
    }
    return v;
  }

  mode_t mode(const YAML::Node& n, const std::string& key) const {
    const std::string text = string(n, key);
    if (text.empty() || text.size() > 4 || text.find_first_not_of("01234567") != std::string::npos) {
      fail(n, key, "'" + text + "' is not an octal file mode such as \"0600\"");
    }
    return static_cast<mode_t>(std::stoul(text, nullptr, 8));
  }

  std::string socket_path(const YAML::Node& n, const std::string& key) const {
    const std::string p = string(n, key);
    if (p.empty() || p.front() != '/') fail(n, key, "'" + p + "' is not an absolute path");
    if (p.size() >= 108) fail(n, key, "path is longer than a Unix socket address allows (107 bytes)");
    return p;
  }

  // A policy: "NAME[:K=V]..." or {name: NAME, parameters: {K: V}}. Returns the
  // canonical spec after building the policy once to check it.
  std::string policy(const YAML::Node& n, const std::string& key, const YAML::Node* parameters) const {
    std::string spec = string(n, key);
    if (parameters && *parameters) {
      const std::string pkey = key.substr(0, key.rfind('.') == std::string::npos ? 0 : key.rfind('.'));
      const std::string where = join(pkey, "parameters");
      if (spec.find(':') != std::string::npos) {
        fail(*parameters, where, "give parameters either in the policy string or here, not both");
      }
      if (!parameters->IsMap()) fail(*parameters, where, "expected a mapping of parameter: value");
      for (const auto& kv : *parameters) {
        if (!kv.first.IsScalar()) fail(kv.first, where, "a key must be a plain name");
        const std::string pk = kv.first.as<std::string>();
        spec += ":" + pk + "=" + string(kv.second, join(where, pk));
      }
    }
    try {
      return make_policy(spec)->name();
    } catch (const std::exception& e) {
      fail(parameters && *parameters ? *parameters : n, key, e.what());
    }
  }

  uid_t user(const YAML::Node& n, const std::string& key) const {
    const std::string text = string(n, key);
    if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos) {
      return static_cast<uid_t>(integer(n, key, 0, 4294967294LL));
    }
    struct passwd pw {};
    struct passwd* found = nullptr;
    std::vector<char> buf(16384);
    if (getpwnam_r(text.c_str(), &pw, buf.data(), buf.size(), &found) != 0 || !found) {
      fail(n, key, "no such user '" + text + "'");
    }
    return found->pw_uid;
  }

  void socket(const YAML::Node& n, const std::string& key, SocketConfig& out) const {
    only(n, key, {"path", "mode"});
    if (n["path"]) out.path = socket_path(n["path"], key + ".path");
    if (n["mode"]) out.mode = mode(n["mode"], key + ".mode");
  }

 private:
  std::string source_;
};

}  // namespace

const std::string& DaemonConfig::policy_for(const std::string& partition) const {
  const auto it = partitions.find(partition);
  return it == partitions.end() ? default_policy : it->second;
}

namespace {

// The configuration in `root`, key by key (parse_config's checks).
DaemonConfig config_from(const Context& ctx, const YAML::Node& root, const std::string& source) {
  DaemonConfig c;
  c.source = source;
  if (root.IsNull()) return c;  // an empty file: every default
  ctx.only(root, "",
           {"cluster", "log_level", "plugin_socket", "query_socket", "admin_socket", "metrics", "limits", "forecast",
            "default_policy", "partitions"});

  if (root["cluster"]) c.cluster = ctx.string(root["cluster"], "cluster");
  if (root["log_level"]) {
    const std::string level = ctx.string(root["log_level"], "log_level");
    const auto parsed = parse_log_level(level);
    if (!parsed) ctx.fail(root["log_level"], "log_level", "'" + level + "' is not one of debug, info, warning, error");
    c.log_level = *parsed;
  }
  if (const YAML::Node n = root["plugin_socket"]) {
    ctx.only(n, "plugin_socket", {"path", "mode", "allowed_users"});
    if (n["path"]) c.plugin_socket.path = ctx.socket_path(n["path"], "plugin_socket.path");
    if (n["mode"]) c.plugin_socket.mode = ctx.mode(n["mode"], "plugin_socket.mode");
    if (const YAML::Node users = n["allowed_users"]) {
      if (!users.IsSequence()) ctx.fail(users, "plugin_socket.allowed_users", "expected a list of user names or uids");
      for (std::size_t i = 0; i < users.size(); ++i) {
        c.plugin_allowed_uids.push_back(ctx.user(users[i], "plugin_socket.allowed_users[" + std::to_string(i) + "]"));
      }
    }
  }
  if (const YAML::Node n = root["query_socket"]) ctx.socket(n, "query_socket", c.query_socket);
  if (const YAML::Node n = root["admin_socket"]) ctx.socket(n, "admin_socket", c.admin_socket);
  if (const YAML::Node n = root["metrics"]) {
    ctx.only(n, "metrics", {"listen"});
    if (n["listen"]) {
      c.metrics_listen = n["listen"].IsNull() ? "" : ctx.string(n["listen"], "metrics.listen");
      if (!c.metrics_listen.empty() && c.metrics_listen.find(':') == std::string::npos) {
        ctx.fail(n["listen"], "metrics.listen", "'" + c.metrics_listen + "' is not ADDRESS:PORT (or \"\" to disable)");
      }
    }
  }
  if (const YAML::Node n = root["limits"]) {
    ctx.only(n, "limits",
             {"max_payload_bytes", "max_query_clients", "max_admin_clients", "max_query_clients_per_uid",
              "query_requests_per_second_per_uid", "query_request_burst_per_uid", "frame_timeout_seconds",
              "idle_timeout_seconds"});
    if (n["max_payload_bytes"]) {
      c.max_payload_bytes = static_cast<std::uint32_t>(
          ctx.integer(n["max_payload_bytes"], "limits.max_payload_bytes", 4096, LOS_MAX_PAYLOAD));
    }
    if (n["max_query_clients"]) {
      c.max_query_clients =
          static_cast<int>(ctx.integer(n["max_query_clients"], "limits.max_query_clients", 1, 100000));
    }
    if (n["max_admin_clients"]) {
      c.max_admin_clients = static_cast<int>(ctx.integer(n["max_admin_clients"], "limits.max_admin_clients", 1, 10000));
    }
    if (n["max_query_clients_per_uid"]) {
      c.max_query_clients_per_uid =
          static_cast<int>(ctx.integer(n["max_query_clients_per_uid"], "limits.max_query_clients_per_uid", 1, 100000));
    }
    if (n["query_requests_per_second_per_uid"]) {
      c.query_requests_per_second_per_uid =
          ctx.number(n["query_requests_per_second_per_uid"], "limits.query_requests_per_second_per_uid", 0.01, 1e6);
    }
    if (n["query_request_burst_per_uid"]) {
      c.query_request_burst_per_uid = static_cast<int>(
          ctx.integer(n["query_request_burst_per_uid"], "limits.query_request_burst_per_uid", 1, 1000000));
    }
    if (n["frame_timeout_seconds"]) {
      c.frame_timeout_seconds = ctx.number(n["frame_timeout_seconds"], "limits.frame_timeout_seconds", 0.01, 3600);
    }
    if (n["idle_timeout_seconds"]) {
      c.idle_timeout_seconds = ctx.number(n["idle_timeout_seconds"], "limits.idle_timeout_seconds", 0.01, 86400 * 7);
    }
  }
  if (const YAML::Node n = root["forecast"]) {
    ctx.only(n, "forecast", {"horizon_days", "max_steps", "max_seconds"});
    if (n["max_seconds"]) c.forecast.max_seconds = ctx.number(n["max_seconds"], "forecast.max_seconds", 0.001, 3600);
    if (n["horizon_days"]) {
      c.forecast.horizon = static_cast<Time>(ctx.integer(n["horizon_days"], "forecast.horizon_days", 1, 3660)) * 86400;
    }
    if (n["max_steps"]) {
      c.forecast.max_steps = static_cast<std::size_t>(ctx.integer(n["max_steps"], "forecast.max_steps", 1, 100000000));
    }
  }
  if (const YAML::Node n = root["default_policy"]) c.default_policy = ctx.policy(n, "default_policy", nullptr);
  if (const YAML::Node parts = root["partitions"]) {
    if (!parts.IsMap()) ctx.fail(parts, "partitions", "expected a mapping of partition name to settings");
    for (const auto& kv : parts) {
      if (!kv.first.IsScalar()) ctx.fail(kv.first, "partitions", "a partition name must be a plain name");
      const std::string name = kv.first.as<std::string>();
      const std::string key = "partitions." + name;
      if (name.empty() || name.size() > LOS_MAX_STRING) ctx.fail(kv.first, key, "bad partition name");
      const YAML::Node& p = kv.second;
      ctx.only(p, key, {"policy", "parameters"});
      if (!p["policy"]) ctx.fail(p, key + ".policy", "missing required key");
      const YAML::Node params = p["parameters"];
      c.partitions[name] = ctx.policy(p["policy"], key + ".policy", &params);
    }
  }
  // Three distinct socket paths: one file cannot serve two roles.
  const std::set<std::string> paths{c.plugin_socket.path, c.query_socket.path, c.admin_socket.path};
  if (paths.size() != 3) {
    throw ConfigError(source + ": plugin_socket.path, query_socket.path and admin_socket.path must differ");
  }
  return c;
}

}  // namespace

DaemonConfig parse_config(const std::string& text, const std::string& source) {
  const Context ctx(source);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ConfigError(source + ":" + std::to_string(e.mark.line + 1) + ": not valid YAML: " + e.msg);
  }
  try {
    return config_from(ctx, root, source);
  } catch (const YAML::Exception& e) {
    // Anything the key-by-key checks did not foresee (a value of an odd YAML
    // type): still a clear error with the place, never an abort.
    throw ConfigError(source + ":" + std::to_string(e.mark.line + 1) + ": unexpected YAML: " + e.msg);
  }
}

DaemonConfig load_config(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError(path + ": cannot read the configuration file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_config(text.str(), path);
}

}  // namespace los::daemon
