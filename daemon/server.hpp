// losd's server: the plugin, query and admin sockets on one Boost.Asio event
// loop, the configuration and its reload (SIGHUP; SIGTERM stops), systemd
// notification, and the state the requests work on: the partition
// schedulers and the forecast cache. Connections are sessions (session.hpp),
// which reach the server only as its SessionHost; requests are answered by
// the handlers (handlers.hpp).
//
// The number of query/admin connections is capped (limits.max_query_clients).
// Start-time forecasts run on the forecast cache's worker thread, never on
// the loop that answers the plugin.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/signal_set.hpp>

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
  };

  void open_listener(Role role, const SocketConfig& socket);
  void accept(Listener& listener);
  void wait_signal();
  void reload();
  void stop();

  // SessionHost
  SessionLimits session_limits() const override;
  Logger& log() override { return log_; }
  bool peer_allowed(Role role, uid_t uid) const override;
  int session_opened(Role role) override;
  void session_closed(Role role) override;
  void count_protocol_error(Role role, const char* code) override;
  void handle(const Request& request, ReplyFn reply) override;

  // Declared first, destroyed last: the forecast worker posts to it until
  // the cache is destroyed.
  boost::asio::io_context io_;
  boost::asio::signal_set signals_;
  DaemonConfig config_;
  ServerState state_;
  Logger& log_;
  Metrics metrics_;
  std::vector<std::unique_ptr<Listener>> listeners_;
  Partitions partitions_;
  ForecastCache forecasts_{io_};
  RequestHandlers handlers_{config_, state_, partitions_, forecasts_, metrics_, log_};
  int query_clients_ = 0;
};

}  // namespace los::daemon
