// losd's Prometheus metrics (docs/losd.md lists them). Labels are bounded:
// partition, policy, small fixed sets (socket, error code, result), and the
// uids of at most kTopUsers users per partition (the rest as "other"); never
// a job. A policy's series go when the partition's policy is replaced.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include "model/job.hpp"
#include "protocol/codec.hpp"

namespace prometheus {
class Exposer;
}

namespace los::daemon {

inline constexpr int kMetricsThreads = 4;
inline constexpr int kMetricsRequestTimeoutMs = 2000;
// Users per partition with their own `user` label; the rest are "other".
inline constexpr std::size_t kTopUsers = 10;
// The per-user gauges are recomputed at every snapshot of a partition with
// fewer waiting jobs than this; of a longer queue, at most once a second.
inline constexpr std::size_t kUserGaugesEveryStepBelow = 10000;
// los_plugin_fallback is 1 when the plugin has been silent this long: three
// times the plugin's default los_interval (10 s), the longest it waits
// between two cycles.
inline constexpr int kPluginSilentSeconds = 30;

class PluginFallbackCollector;

class Metrics {
 public:
  Metrics();
  ~Metrics();
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  // Serves /metrics on ADDRESS:PORT with kMetricsThreads workers, each
  // giving a client at most kMetricsRequestTimeoutMs to send its request and
  // read the answer, so a stalled scraper cannot hold /metrics; throws
  // std::runtime_error when it cannot listen.
  void serve(const std::string& listen);
  // The exposition text of every metric (what /metrics returns).
  std::string text() const;

  // Every snapshot, before its partitions are stepped: its time, whether the
  // plugin's previous cycle was its fallback's, job waits and ends, and the
  // per-user gauges.
  void snapshot_received(const protocol::SnapshotMessage& msg);
  void snapshot_handled(double seconds, std::size_t bytes);
  void decision_latency(const std::string& partition, const std::string& policy, double seconds);
  void partition_state(const std::string& partition, int pending, int running, int idle, int allocated, int drained,
                       int down, double utilization);
  void jobs_started(const std::string& partition, const std::string& policy, int count);
  // A step of the partition's policy; `cut`: its step budget left planning
  // for the next step (StepResult::work_left).
  void step_planned(const std::string& partition, const std::string& policy, bool cut);
  void reservations(const std::string& partition, const std::string& policy, int held);
  void start_prediction_error(const std::string& partition, const std::string& policy, double seconds);
  void protocol_error(const std::string& socket, const std::string& code);
  void plugin_report(const std::string& partition, const std::string& kind);
  void config_reload(bool ok);
  // A losctl switch: counted, and the partition's policy-labelled series go
  // now (those of the new policy appear at its first step).
  void policy_switch(const std::string& partition);
  // The same without counting a switch: a reload gave the partition another policy.
  void policy_replaced(const std::string& partition);
  // A partition (or reservation view) left the snapshot and its scheduler is
  // gone: every series labelled with it goes too, so views that come and go
  // do not pile up series.
  void partition_dropped(const std::string& partition);
  void query_clients(int n);
  void admin_clients(int n);
  void plugin_connections(int n);
  // A connection or query request refused by a limit; `reason` is one of
  // too_many_clients, too_many_clients_per_uid, rate_limited.
  void connection_refused(const std::string& socket, const std::string& reason);

 private:
  // Start and submit of a running job, to time its wait and slowdown.
  struct RunningTimes {
    Time submit = 0;
    Time start = 0;
  };
  struct PartitionJobs {
    bool seen = false;  // the first snapshot only learns what runs
    std::unordered_map<JobId, RunningTimes> running;
    std::map<std::string, bool> user_labels;  // `user` values exported
    std::chrono::steady_clock::time_point users_counted{};  // user_gauges' last pass
  };
  void track_jobs(const Snapshot& part, Time now);
  void user_gauges(const Snapshot& part, PartitionJobs& jobs);
  // Records `policy` as the partition's; drops the series of the one before.
  void note_policy(const std::string& partition, const std::string& policy);
  void drop_policy_series(const std::string& partition, const std::string& policy);

  std::shared_ptr<prometheus::Registry> registry_;
  std::shared_ptr<PluginFallbackCollector> fallback_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  prometheus::Family<prometheus::Histogram>& snapshot_seconds_;
  prometheus::Family<prometheus::Gauge>& snapshot_bytes_;
  prometheus::Family<prometheus::Histogram>& decision_seconds_;
  prometheus::Family<prometheus::Gauge>& pending_;
  prometheus::Family<prometheus::Gauge>& running_;
  prometheus::Family<prometheus::Gauge>& nodes_;
  prometheus::Family<prometheus::Gauge>& utilization_;
  prometheus::Family<prometheus::Counter>& started_;
  prometheus::Family<prometheus::Counter>& steps_cut_;
  prometheus::Family<prometheus::Gauge>& reservations_;
  prometheus::Family<prometheus::Histogram>& prediction_error_;
  prometheus::Family<prometheus::Counter>& protocol_errors_;
  prometheus::Family<prometheus::Counter>& reports_;
  prometheus::Family<prometheus::Counter>& reloads_;
  prometheus::Family<prometheus::Counter>& switches_;
  prometheus::Family<prometheus::Gauge>& query_clients_;
  prometheus::Family<prometheus::Gauge>& admin_clients_;
  prometheus::Family<prometheus::Gauge>& plugin_connections_;
  prometheus::Family<prometheus::Counter>& refused_;
  prometheus::Family<prometheus::Gauge>& snapshot_time_;
  prometheus::Family<prometheus::Histogram>& wait_;
  prometheus::Family<prometheus::Histogram>& slowdown_;
  prometheus::Family<prometheus::Gauge>& user_running_;
  prometheus::Family<prometheus::Gauge>& user_pending_;
  std::map<std::string, std::string> policy_of_;  // partition -> policy of its series
  std::map<std::string, PartitionJobs> jobs_;     // by partition
};

}  // namespace los::daemon
