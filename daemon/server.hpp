// losd's server: the plugin, query and admin sockets on one Boost.Asio event
// loop, the partition schedulers, signals (SIGHUP reloads, SIGTERM stops) and
// systemd notification.
//
// Isolation: every connection is asynchronous and handles one request at a
// time with its own buffers and deadlines, so a slow or hostile client only
// ever waits on itself. Frames are bounded before anything is allocated, a
// started frame must complete within limits.frame_timeout_seconds, idle
// query/admin connections are closed after limits.idle_timeout_seconds and
// the number of query/admin connections is capped. Start-time forecasts (the
// only expensive query) run on a worker thread, coalesced per partition and
// cached per snapshot, and never on the loop that answers the plugin.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/thread_pool.hpp>

#include "config.hpp"
#include "log.hpp"
#include "metrics.hpp"
#include "partition_scheduler.hpp"
#include "protocol/codec.hpp"

namespace los::daemon {

inline constexpr const char* kDaemonVersion = "losd " LOS_VERSION;

enum class Role { Plugin, Query, Admin };
const char* to_string(Role role);

class Session;

class Server {
 public:
  Server(DaemonConfig config, Logger& log);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds the three sockets and the metrics endpoint; throws
  // std::runtime_error naming the path or address that failed.
  void open();
  // Serves until SIGTERM or SIGINT, then removes the socket files.
  void run();

 private:
  friend class Session;
  struct Listener {
    Role role;
    std::string path;
    boost::asio::local::stream_protocol::acceptor acceptor;
  };
  struct Forecast {
    std::uint64_t epoch = 0;
    std::unordered_map<JobId, Time> starts;  // of the snapshot it was computed from
    std::string error;
    std::vector<std::function<void()>> waiters;
    bool ready = false;
  };

  void open_listener(Role role, const SocketConfig& socket);
  void accept(Listener& listener);
  void wait_signal();
  void reload();
  void stop();

  // Requests, for sessions. Each returns the reply frame.
  bool peer_allowed(Role role, uid_t uid) const;
  protocol::Bytes hello(Role role, const protocol::Hello& h, std::uint32_t id, bool& refuse);
  protocol::Bytes snapshot(std::span<const std::uint8_t> payload, std::size_t frame_bytes, std::uint32_t id);
  void report(const protocol::Report& r);
  protocol::Bytes status(std::uint32_t id) const;
  protocol::Bytes plan(const std::string& partition, std::uint32_t id) const;
  // Calls `reply` (on the loop) with the STARTS or ERROR frame when ready.
  void starts(const std::string& partition, std::uint32_t id, std::function<void(protocol::Bytes)> reply);
  protocol::Bytes set_policy(const protocol::SetPolicy& m, std::uint32_t id);
  protocol::Bytes starts_reply(const std::vector<std::string>& partitions, std::uint32_t id);
  void invalidate_forecast(const std::string& partition);

  boost::asio::io_context io_;
  boost::asio::thread_pool forecast_pool_{1};
  boost::asio::signal_set signals_;
  DaemonConfig config_;
  std::uint64_t generation_ = 1;
  Logger& log_;
  Metrics metrics_;
  std::vector<std::unique_ptr<Listener>> listeners_;
  std::map<std::string, std::unique_ptr<PartitionScheduler>> partitions_;
  std::map<std::string, std::uint64_t> epochs_;  // bumped by every step and policy switch
  std::map<std::string, Forecast> forecasts_;
  bool have_seq_ = false;
  std::uint64_t last_seq_ = 0;
  Time last_now_ = 0;
  std::string slurm_version_;
  int query_clients_ = 0;
  int plugin_clients_ = 0;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

}  // namespace los::daemon
