// losd's server: the plugin, query and admin sockets on one Boost.Asio event
// loop, the configuration and its reload (SIGHUP; SIGTERM stops), systemd
// notification, and the state the requests work on: the partition
// schedulers and the forecast cache. Connections are sessions (session.hpp),
// which reach the server only as its SessionHost; requests are answered by
// the handlers (handlers.hpp).
//
// Admission: each socket has its own connection cap (the plugin's peers are
// trusted and uncapped), so a crowd on the query socket never locks out the
// admin or the plugin; on the query socket each uid also has a connection cap
// and a request rate (token bucket). Root and losd's own user are exempt from
// the per-uid limits, not from the socket caps. Refused connections linger
// to deliver their error, at most kMaxLingering at a time.
// Start-time forecasts run on the forecast cache's worker thread, never on
// the loop that answers the plugin.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include "config.hpp"
#include "forecast_cache.hpp"
#include "handlers.hpp"
#include "log.hpp"
#include "metrics.hpp"
#include "request.hpp"
#include "session.hpp"

namespace los::daemon {

class Server final : private SessionHost {
 public:
  Server(DaemonConfig config, Logger& log);
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds the three sockets and the metrics endpoint; throws
  // std::runtime_error naming the path or address that failed.
  void open();
  // Serves until SIGTERM or SIGINT, then removes the socket files.
  void run();

 private:
  struct Listener {
    Role role;
    std::string path;
    boost::asio::local::stream_protocol::acceptor acceptor;
    boost::asio::steady_timer retry;  // accepting again after running out of descriptors
    mode_t mode = 0600;
    // The socket file this losd bound: a file at the path that is not this
    // one belongs to someone else and is left alone.
    dev_t dev = 0;
    ino_t ino = 0;
    bool path_problem_logged = false;
  };
  // One uid's share of the query socket.
  struct UidQuota {
    int connections = 0;
    double tokens = 0;  // requests it may make now (token bucket)
    std::chrono::steady_clock::time_point refilled;
  };
  // Refused connections lingering at once at most.
  static constexpr int kMaxLingering = 64;

  void open_listener(Role role, const SocketConfig& socket);
  // Binds, sets the mode and listens; throws std::runtime_error naming the path.
  void bind_listener(Listener& listener);
  // A socket file removed under a running losd (a cleanup of /run, an admin's
  // rm) is bound again, so that a plugin that reconnects finds losd.
  void rebind_removed_sockets();
  bool owns_socket_file(const Listener& listener) const;
  void accept(Listener& listener);
  void wait_signal();
  // Once a second: summaries of suppressed log lines, idle quotas dropped.
  void housekeeping();
  bool per_uid_limited(uid_t uid) const;
  void refill(UidQuota& quota, std::chrono::steady_clock::time_point now) const;
  // Raises the descriptor limit and warns if the caps may not fit in it.
  void check_descriptor_limit();
  void reload();
  void stop();

  // SessionHost
  SessionLimits session_limits() const override;
  Logger& log() override { return log_; }
  bool peer_allowed(Role role, uid_t uid) const override;
  std::optional<std::string> admit(Role role, uid_t uid) override;
  void session_closed(Role role, uid_t uid) override;
  std::chrono::steady_clock::duration charge_request(Role role, uid_t uid) override;
  std::string rate_limit_message(uid_t uid) const override;
  bool linger_begin() override;
  void linger_ended() override { --lingering_; }
  void count_protocol_error(Role role, const char* code) override;
  void handle(const Request& request, ReplyFn reply) override;

  // Declared first, destroyed last: the forecast worker posts to it until
  // the cache is destroyed.
  boost::asio::io_context io_;
  boost::asio::signal_set signals_;
  boost::asio::steady_timer housekeeping_timer_;
  DaemonConfig config_;
  ServerState state_;
  Logger& log_;
  Metrics metrics_;
  std::vector<std::unique_ptr<Listener>> listeners_;
  Partitions partitions_;
  ForecastCache forecasts_{io_};
  RequestHandlers handlers_{config_, state_, partitions_, forecasts_, metrics_, log_};
  int query_clients_ = 0;
  int admin_clients_ = 0;
  int lingering_ = 0;
  std::unordered_map<uid_t, UidQuota> query_uids_;
};

}  // namespace los::daemon
