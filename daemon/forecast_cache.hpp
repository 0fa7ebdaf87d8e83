// Start-time forecasts per partition, for the STARTS query. A forecast
// simulates the partition's queue and is the only expensive request, so it
// runs on a worker thread at a lower CPU priority, never on the event loop
// that answers the plugin; concurrent requests for a partition share one
// computation (at most one per partition at a time), and the result
// is kept until the partition's next step or policy switch.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>

#include "model/snapshot.hpp"
#include "partition_scheduler.hpp"
#include "sim/forecast.hpp"

namespace los::daemon {

class ForecastCache {
 public:
  struct Forecast {
    std::unordered_map<JobId, Time> starts;  // of the snapshot it was computed from
    std::string error;                       // why it failed; "" if it did not
  };

  // Results are delivered on `loop`.
  explicit ForecastCache(boost::asio::io_context& loop);
  // Stops the worker: a forecast still queued is dropped, one running is
  // waited for.
  ~ForecastCache();
  ForecastCache(const ForecastCache&) = delete;
  ForecastCache& operator=(const ForecastCache&) = delete;

  // The partition's forecast no longer matches it (every step and policy switch).
  void invalidate(const std::string& partition);
  // The partition left the snapshot: its entry goes (once a computation in
  // flight has answered its waiters), so a site that renames partitions does
  // not accumulate forecasts.
  void drop(const std::string& partition);
  // Calls `ready` on the loop once the forecast of `sched`'s latest snapshot
  // (which must exist) is available: at once if it is, else when the running
  // or a new computation ends. A computation that ends after a newer
  // invalidation still answers its waiters.
  void request(const PartitionScheduler& sched, const ForecastOptions& options, std::function<void()> ready);
  // The latest forecast of a partition (empty if none was requested).
  const Forecast& result(const std::string& partition);
  // How many partitions the cache holds anything for.
  std::size_t partitions() const { return entries_.size(); }

 private:
  struct Entry {
    std::uint64_t epoch = 0;  // of the partition when the computation started
    Forecast forecast;
    std::vector<std::function<void()>> waiters;
    bool ready = false;
    bool dropped = false;  // drop() came while computing: erase when it ends
  };

  boost::asio::io_context& loop_;
  boost::asio::thread_pool worker_{1};
  std::map<std::string, std::uint64_t> epochs_;  // bumped by invalidate()
  std::map<std::string, Entry> entries_;
};

}  // namespace los::daemon
