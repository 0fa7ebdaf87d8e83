#include "server.hpp"

#include <sys/stat.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace los::daemon {

namespace asio = boost::asio;
using stream = asio::local::stream_protocol;

Server::Server(DaemonConfig config, Logger& log)
    : signals_(io_, SIGHUP, SIGTERM, SIGINT), config_(std::move(config)), log_(log) {
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
  auto listener = std::make_unique<Listener>(Listener{role, path, stream::acceptor(io_)});
  boost::system::error_code ec;
  listener->acceptor.open(stream(), ec);
  // Created with no permissions for anyone but the owner, then opened up to
  // the configured mode: never more open than configured, not even briefly.
  const mode_t old_mask = ::umask(0177);
  if (!ec) listener->acceptor.bind(stream::endpoint(path), ec);
  ::umask(old_mask);
  if (ec)
    throw std::runtime_error(path + ": cannot bind the " + std::string(to_string(role)) + " socket: " + ec.message());
  if (::chmod(path.c_str(), socket.mode) != 0) {
    throw std::runtime_error(path + ": cannot set mode: " + std::strerror(errno));
  }
  listener->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) throw std::runtime_error(path + ": cannot listen: " + ec.message());
  char mode[8];
  std::snprintf(mode, sizeof(mode), "%04o", static_cast<unsigned>(socket.mode));
  log_.info("listening", {{"socket", to_string(role)}, {"path", path}, {"mode", mode}});
  listeners_.push_back(std::move(listener));
}

void Server::open() {
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
}

void Server::accept(Listener& listener) {
  listener.acceptor.async_accept([this, &listener](const boost::system::error_code& ec, stream::socket socket) {
    if (ec == asio::error::operation_aborted) return;
    if (!ec) {
      start_session(*this, std::move(socket), listener.role);
    } else {
      log_.warning("accept failed", {{"socket", to_string(listener.role)}, {"error", ec.message()}});
    }
    accept(listener);
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
            {{"version", kDaemonVersion}, {"config", config_.source}, {"default_policy", config_.default_policy}});
  io_.run();
}

void Server::stop() {
  sd_notify(0, "STOPPING=1");
  boost::system::error_code ignored;
  signals_.cancel(ignored);
  for (auto& l : listeners_) {
    l->acceptor.close(ignored);
    ::unlink(l->path.c_str());
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
  return {config_.max_payload_bytes, config_.max_query_clients, config_.frame_timeout_seconds,
          config_.idle_timeout_seconds};
}

int Server::session_opened(Role role) {
  if (role == Role::Plugin) {
    metrics_.plugin_connections(++state_.plugin_connections);
    return state_.plugin_connections;
  }
  metrics_.query_clients(++query_clients_);
  return query_clients_;
}

void Server::session_closed(Role role) {
  if (role == Role::Plugin) {
    metrics_.plugin_connections(--state_.plugin_connections);
  } else {
    metrics_.query_clients(--query_clients_);
  }
}

void Server::count_protocol_error(Role role, const char* code) { metrics_.protocol_error(to_string(role), code); }

void Server::handle(const Request& request, ReplyFn reply) { handlers_.handle(request, std::move(reply)); }

}  // namespace los::daemon
