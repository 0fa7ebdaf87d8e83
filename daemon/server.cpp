#include "server.hpp"

#include <sys/resource.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <optional>
#include <stdexcept>

namespace los::daemon {

namespace asio = boost::asio;
using stream = asio::local::stream_protocol;

Server::Server(DaemonConfig config, Logger& log)
    : signals_(io_, SIGHUP, SIGTERM, SIGINT), housekeeping_timer_(io_), config_(std::move(config)), log_(log) {
  log_.set_level(config_.log_level);
}

void Server::open_listener(Role role, const SocketConfig& socket) {
  const std::string& path = socket.path;
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) throw std::runtime_error(path + ": exists and is not a socket; not replacing it");
    // A socket file left by a previous run is removed, one that answers is not.
    stream::socket probe(io_);
    boost::system::error_code ec;
    probe.connect(stream::endpoint(path), ec);
    if (!ec) throw std::runtime_error(path + ": another process is serving this socket");
    ::unlink(path.c_str());
  }
  auto listener = std::make_unique<Listener>(Listener{role, path, stream::acceptor(io_), asio::steady_timer(io_)});
  listener->mode = socket.mode;
  bind_listener(*listener);
  listeners_.push_back(std::move(listener));
}

void Server::bind_listener(Listener& listener) {
  const std::string& path = listener.path;
  boost::system::error_code ec;
  listener.acceptor.open(stream(), ec);
  // Created with no permissions for anyone but the owner, then opened up to
  // the configured mode: never more open than configured, not even briefly.
  const mode_t old_mask = ::umask(0177);
  if (!ec) listener.acceptor.bind(stream::endpoint(path), ec);
  ::umask(old_mask);
  if (ec) {
    listener.acceptor.close(ec);
    throw std::runtime_error(path + ": cannot bind the " + std::string(to_string(listener.role)) +
                             " socket: " + ec.message());
  }
  struct stat st {};
  if (::chmod(path.c_str(), listener.mode) != 0 || ::lstat(path.c_str(), &st) != 0) {
    const std::string why = std::strerror(errno);
    listener.acceptor.close(ec);
    throw std::runtime_error(path + ": cannot set mode: " + why);
  }
  listener.dev = st.st_dev;
  listener.ino = st.st_ino;
  listener.acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    listener.acceptor.close(ec);
    throw std::runtime_error(path + ": cannot listen: " + ec.message());
  }
  char mode[8];
  std::snprintf(mode, sizeof(mode), "%04o", static_cast<unsigned>(listener.mode));
  log_.info("listening", {{"socket", to_string(listener.role)}, {"path", path}, {"mode", mode}});
}

bool Server::owns_socket_file(const Listener& listener) const {
  struct stat st {};
  return ::lstat(listener.path.c_str(), &st) == 0 && st.st_dev == listener.dev && st.st_ino == listener.ino;
}

void Server::rebind_removed_sockets() {
  for (auto& l : listeners_) {
    struct stat st {};
    if (::lstat(l->path.c_str(), &st) == 0) {
      if ((st.st_dev != l->dev || st.st_ino != l->ino) && !l->path_problem_logged) {
        log_.warning("the socket path is now another file; leaving it alone (restart losd to serve it again)",
                     {{"socket", to_string(l->role)}, {"path", l->path}});
        l->path_problem_logged = true;
      }
      continue;
    }
    if (errno != ENOENT) continue;
    boost::system::error_code ignored;
    l->retry.cancel();
    l->acceptor.close(ignored);  // the pending accept ends with operation_aborted
    try {
      bind_listener(*l);
    } catch (const std::exception& e) {
      if (!l->path_problem_logged) log_.error("socket file removed; binding it again failed", {{"error", e.what()}});
      l->path_problem_logged = true;
      continue;  // tried again in a second
    }
    log_.warning("socket file was removed under losd: bound again",
                 {{"socket", to_string(l->role)}, {"path", l->path}});
    l->path_problem_logged = false;
    accept(*l);
  }
}

void Server::open() {
  check_descriptor_limit();
  open_listener(Role::Plugin, config_.plugin_socket);
  open_listener(Role::Query, config_.query_socket);
  open_listener(Role::Admin, config_.admin_socket);
  if (!config_.metrics_listen.empty()) {
    try {
      metrics_.serve(config_.metrics_listen);
    } catch (const std::exception& e) {
      throw std::runtime_error("metrics.listen " + config_.metrics_listen + ": cannot serve metrics: " + e.what());
    }
    log_.info("serving metrics", {{"listen", config_.metrics_listen}});
  }
  for (auto& l : listeners_) accept(*l);
  wait_signal();
  housekeeping();
}

void Server::check_descriptor_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  if (limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &limit);
    ::getrlimit(RLIMIT_NOFILE, &limit);
  }
  // Room for the listeners, the metrics server and a few plugin connections.
  constexpr rlim_t kReserve = 64;
  const rlim_t needed = static_cast<rlim_t>(config_.max_query_clients) +
                        static_cast<rlim_t>(config_.max_admin_clients) + kMaxLingering + kReserve;
  if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < needed) {
    log_.warning("the connection caps may exceed the open file limit; lower limits.max_query_clients",
                 {{"nofile", std::to_string(limit.rlim_cur)}, {"needed", std::to_string(needed)}});
  }
}

void Server::housekeeping() {
  housekeeping_timer_.expires_after(std::chrono::seconds(1));
  housekeeping_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    log_.flush_suppressed();
    rebind_removed_sockets();
    const auto now = std::chrono::steady_clock::now();
    for (auto it = query_uids_.begin(); it != query_uids_.end();) {
      refill(it->second, now);
      const bool idle = it->second.connections == 0 && it->second.tokens >= config_.query_request_burst_per_uid;
      it = idle ? query_uids_.erase(it) : std::next(it);
    }
    housekeeping();
  });
}

void Server::accept(Listener& listener) {
  listener.acceptor.async_accept([this, &listener](const boost::system::error_code& ec, stream::socket socket) {
    if (ec == asio::error::operation_aborted) return;
    if (!ec) {
      start_session(*this, std::move(socket), listener.role);
      return accept(listener);
    }
    log_.client_log(LogLevel::Warning, "accept failed", static_cast<uid_t>(-1), "accept failed",
                    {{"socket", to_string(listener.role)}, {"error", ec.message()}});
    // Out of descriptors (or memory) the next accept fails at once too:
    // wait for connections to close instead of spinning.
    listener.retry.expires_after(std::chrono::milliseconds(100));
    listener.retry.async_wait([this, &listener](const boost::system::error_code& wait_ec) {
      if (!wait_ec) accept(listener);
    });
  });
}

void Server::wait_signal() {
  signals_.async_wait([this](const boost::system::error_code& ec, int signo) {
    if (ec) return;
    if (signo == SIGHUP) {
      reload();
      wait_signal();
    } else {
      log_.info("stopping", {{"signal", signo == SIGTERM ? "SIGTERM" : "SIGINT"}});
      stop();
    }
  });
}

void Server::run() {
  sd_notify(0, "READY=1\nSTATUS=serving");
  log_.info("ready",
            {{"version", daemon_version()}, {"config", config_.source}, {"default_policy", config_.default_policy}});
  io_.run();
}

void Server::stop() {
  sd_notify(0, "STOPPING=1");
  boost::system::error_code ignored;
  signals_.cancel(ignored);
  housekeeping_timer_.cancel();
  for (auto& l : listeners_) {
    l->retry.cancel();
    l->acceptor.close(ignored);
    if (owns_socket_file(*l)) ::unlink(l->path.c_str());
  }
  io_.stop();
}

void Server::reload() {
  sd_notify(0, "RELOADING=1");
  log_.info("reloading configuration", {{"config", config_.source}});
  DaemonConfig next;
  try {
    next = load_config(config_.source);
  } catch (const std::exception& e) {
    metrics_.config_reload(false);
    log_.error("reload failed; keeping the old configuration", {{"error", e.what()}});
    sd_notify(0, "READY=1\nSTATUS=serving (last reload failed)");
    return;
  }
  // What is bound stays bound until a restart.
  if (!(next.plugin_socket == config_.plugin_socket) || !(next.query_socket == config_.query_socket) ||
      !(next.admin_socket == config_.admin_socket) || next.metrics_listen != config_.metrics_listen) {
    log_.warning("socket and metrics addresses change only on restart; keeping the current ones");
    next.plugin_socket = config_.plugin_socket;
    next.query_socket = config_.query_socket;
    next.admin_socket = config_.admin_socket;
    next.metrics_listen = config_.metrics_listen;
  }
  for (auto& [name, sched] : partitions_) {
    const std::string& spec = next.policy_for(name);
    if (spec != sched->policy_name()) {
      log_.info("policy changed by reload", {{"partition", name}, {"from", sched->policy_name()}, {"to", spec}});
      sched->set_policy(spec);
      forecasts_.invalidate(name);
      metrics_.policy_replaced(name);
    }
  }
  config_ = std::move(next);
  log_.set_level(config_.log_level);
  ++state_.config_generation;
  metrics_.config_reload(true);
  log_.info("configuration reloaded", {{"generation", std::to_string(state_.config_generation)}});
  sd_notify(0, "READY=1\nSTATUS=serving");
}

bool Server::peer_allowed(Role role, uid_t uid) const {
  if (role == Role::Query) return true;
  if (uid == 0 || uid == ::geteuid()) return true;
  if (role == Role::Plugin) {
    for (uid_t allowed : config_.plugin_allowed_uids) {
      if (uid == allowed) return true;
    }
  }
  return false;
}

SessionLimits Server::session_limits() const {
  return {config_.max_payload_bytes, config_.frame_timeout_seconds, config_.idle_timeout_seconds};
}

bool Server::per_uid_limited(uid_t uid) const { return uid != 0 && uid != ::geteuid(); }

void Server::refill(UidQuota& quota, std::chrono::steady_clock::time_point now) const {
  const double elapsed = std::chrono::duration<double>(now - quota.refilled).count();
  quota.tokens = std::min<double>(config_.query_request_burst_per_uid,
                                  quota.tokens + elapsed * config_.query_requests_per_second_per_uid);
  quota.refilled = now;
}

std::optional<std::string> Server::admit(Role role, uid_t uid) {
  switch (role) {
    case Role::Plugin:
      metrics_.plugin_connections(++state_.plugin_connections);
      return std::nullopt;
    case Role::Admin:
      if (admin_clients_ >= config_.max_admin_clients) {
        metrics_.connection_refused("admin", "too_many_clients");
        return "too many clients (limits.max_admin_clients = " + std::to_string(config_.max_admin_clients) + ")";
      }
      metrics_.admin_clients(++admin_clients_);
      return std::nullopt;
    case Role::Query:
      break;
  }
  if (query_clients_ >= config_.max_query_clients) {
    metrics_.connection_refused("query", "too_many_clients");
    return "too many clients (limits.max_query_clients = " + std::to_string(config_.max_query_clients) + ")";
  }
  if (per_uid_limited(uid)) {
    auto [it, fresh] = query_uids_.try_emplace(uid);
    UidQuota& quota = it->second;
    if (fresh) {
      quota.tokens = config_.query_request_burst_per_uid;
      quota.refilled = std::chrono::steady_clock::now();
    }
    if (quota.connections >= config_.max_query_clients_per_uid) {
      metrics_.connection_refused("query", "too_many_clients_per_uid");
      std::string why = "too many connections from uid ";
      why += std::to_string(uid);
      why += " (limits.max_query_clients_per_uid = ";
      why += std::to_string(config_.max_query_clients_per_uid);
      why += ")";
      return why;
    }
    ++quota.connections;
  }
  metrics_.query_clients(++query_clients_);
  return std::nullopt;
}

void Server::session_closed(Role role, uid_t uid) {
  switch (role) {
    case Role::Plugin:
      metrics_.plugin_connections(--state_.plugin_connections);
      return;
    case Role::Admin:
      metrics_.admin_clients(--admin_clients_);
      return;
    case Role::Query:
      break;
  }
  metrics_.query_clients(--query_clients_);
  if (const auto it = query_uids_.find(uid); it != query_uids_.end()) --it->second.connections;
}

std::chrono::steady_clock::duration Server::charge_request(Role role, uid_t uid) {
  if (role != Role::Query || !per_uid_limited(uid)) return std::chrono::steady_clock::duration::zero();
  // Admitted connections of a limited uid always have a quota (kept while
  // it has connections).
  const auto it = query_uids_.find(uid);
  if (it == query_uids_.end()) return std::chrono::steady_clock::duration::zero();
  UidQuota& quota = it->second;
  refill(quota, std::chrono::steady_clock::now());
  if (quota.tokens >= 1) {
    quota.tokens -= 1;
    return std::chrono::steady_clock::duration::zero();
  }
  metrics_.connection_refused("query", "rate_limited");
  const double wait = (1 - quota.tokens) / config_.query_requests_per_second_per_uid;
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(wait));
}

std::string Server::rate_limit_message(uid_t uid) const {
  std::string why = "rate limited: uid ";
  why += std::to_string(uid);
  why += " sends more than limits.query_requests_per_second_per_uid = ";
  char rate[32];
  std::snprintf(rate, sizeof(rate), "%g", config_.query_requests_per_second_per_uid);
  why += rate;
  why += " (burst limits.query_request_burst_per_uid = ";
  why += std::to_string(config_.query_request_burst_per_uid);
  why += "); retry later";
  return why;
}

bool Server::linger_begin() {
  if (lingering_ >= kMaxLingering) return false;
  ++lingering_;
  return true;
}

void Server::count_protocol_error(Role role, const char* code) { metrics_.protocol_error(to_string(role), code); }

void Server::handle(const Request& request, ReplyFn reply) { handlers_.handle(request, std::move(reply)); }

}  // namespace los::daemon
