#include "forecast_cache.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <exception>
#include <memory>
#include <utility>

#include <boost/asio/post.hpp>

#include "policy/registry.hpp"

namespace los::daemon {

namespace asio = boost::asio;

ForecastCache::ForecastCache(asio::io_context& loop) : loop_(loop) {
  // Forecasts are background work: at a lower CPU priority (per thread on
  // Linux) they cannot slow the loop that answers the plugin.
  asio::post(worker_, [] { ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), 10); });
}

ForecastCache::~ForecastCache() {
  worker_.stop();
  worker_.join();
}

void ForecastCache::invalidate(const std::string& partition) { ++epochs_[partition]; }

void ForecastCache::drop(const std::string& partition) {
  const auto it = entries_.find(partition);
  if (it != entries_.end() && !it->second.waiters.empty()) {
    it->second.dropped = true;
    ++epochs_[partition];
    return;
  }
  if (it != entries_.end()) entries_.erase(it);
  epochs_.erase(partition);
}

const ForecastCache::Forecast& ForecastCache::result(const std::string& partition) {
  return entries_[partition].forecast;
}

void ForecastCache::request(const PartitionScheduler& sched, const ForecastOptions& options,
                            std::function<void()> ready) {
  const std::string& name = sched.name();
  Entry& entry = entries_[name];
  const std::uint64_t epoch = epochs_[name];
  if (entry.epoch == epoch && entry.ready) return ready();
  // One computation per partition at a time: a running one answers this
  // request too (possibly from the snapshot before the latest), so a flood
  // of STARTS cannot queue up forecasts and snapshot copies.
  const bool computing = !entry.waiters.empty();
  entry.dropped = false;  // the partition is back
  entry.waiters.push_back(std::move(ready));
  if (computing) return;
  entry.epoch = epoch;
  entry.ready = false;
  // The replay's policy is made here, on the loop, where the live policy
  // can hand it its history (what it learned from ended jobs) safely.
  std::shared_ptr<Policy> fresh;
  std::string spec_error;
  try {
    fresh = make_policy(sched.policy_name(), options.mode);
    sched.policy().copy_history_to(*fresh);
  } catch (const std::exception& e) {
    spec_error = e.what();
  }
  asio::post(worker_, [this, name, epoch, snapshot = *sched.last(), fresh = std::move(fresh),
                       spec_error = std::move(spec_error), options]() {
    std::unordered_map<JobId, Time> result;
    std::string error = spec_error;
    try {
      if (fresh) {
        const std::vector<Time> starts = forecast_starts(snapshot, *fresh, options);
        for (std::size_t i = 0; i < starts.size(); ++i) result[snapshot.queue[i].id] = starts[i];
      }
    } catch (const std::exception& e) {
      error = e.what();
    }
    asio::post(loop_, [this, name, epoch, result = std::move(result), error = std::move(error)]() mutable {
      Entry& entry = entries_[name];
      if (entry.epoch != epoch) {
        // A newer snapshot arrived meanwhile: answer with this one anyway
        // rather than keep the waiters waiting for a moving target.
        entry.epoch = epoch;
      }
      entry.forecast.starts = std::move(result);
      entry.forecast.error = std::move(error);
      entry.ready = true;
      std::vector<std::function<void()>> waiters;
      waiters.swap(entry.waiters);
      if (entry.dropped) {
        entries_.erase(name);
        epochs_.erase(name);
      }
      for (auto& w : waiters) w();
    });
  });
}

}  // namespace los::daemon
