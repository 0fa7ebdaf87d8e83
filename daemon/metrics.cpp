#include "metrics.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <tuple>
#include <vector>

#include <prometheus/collectable.h>
#include <prometheus/exposer.h>
#include <prometheus/text_serializer.h>

#include "model/job_id_index.hpp"
#include "session.hpp"
#include "util/version.hpp"

namespace los::daemon {

// los_plugin_fallback, computed at each scrape from what the event loop last
// recorded, so a plugin gone silent (or a stuck loop) shows without a snapshot.
class PluginFallbackCollector final : public prometheus::Collectable {
 public:
  void connections(int n) {
    if (n > connections_.load()) heard();
    connections_ = n;
  }
  void heard() { last_heard_ns_ = steady_ns(); }
  void after_fallback(bool yes) { after_fallback_ = yes; }

  std::vector<prometheus::MetricFamily> Collect() const override {
    const bool silent = steady_ns() - last_heard_ns_.load() > std::int64_t{kPluginSilentSeconds} * 1'000'000'000;
    prometheus::MetricFamily f;
    f.name = "los_plugin_fallback";
    f.help = "1: no plugin connected, the plugin silent for " + std::to_string(kPluginSilentSeconds) +
             " s, or its latest snapshot says its previous cycle was decided by its fallback";
    f.type = prometheus::MetricType::Gauge;
    prometheus::ClientMetric m;
    m.gauge.value = connections_.load() == 0 || silent || after_fallback_.load() ? 1 : 0;
    f.metric.push_back(std::move(m));
    return {std::move(f)};
  }

 private:
  static std::int64_t steady_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  std::atomic<int> connections_{0};
  std::atomic<std::int64_t> last_heard_ns_{steady_ns()};
  std::atomic<bool> after_fallback_{false};
};

namespace {

using prometheus::BuildCounter;
using prometheus::BuildGauge;
using prometheus::BuildHistogram;
using prometheus::Histogram;

// Decision latency: 50 us .. 5 s.
Histogram::BucketBoundaries latency_buckets() {
  return {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5};
}

// How far an actual start missed the promised one, either way: 1 s .. 1 day.
// Observations are never negative, so no histogram's _sum can decrease.
Histogram::BucketBoundaries error_buckets() { return {1, 10, 60, 300, 600, 1800, 3600, 4 * 3600, 86400}; }

// Queue wait: 1 s .. 1 week.
Histogram::BucketBoundaries wait_buckets() {
  return {1, 10, 30, 60, 300, 600, 1800, 3600, 4 * 3600, 12 * 3600, 86400, 3 * 86400, 7 * 86400};
}

// Bounded slowdown: 1 (no wait) .. 1000.
Histogram::BucketBoundaries slowdown_buckets() { return {1, 1.1, 1.5, 2, 3, 5, 10, 20, 50, 100, 1000}; }

// Bounded slowdown's floor on the run time: short jobs do not dominate.
constexpr Time kSlowdownMinRuntime = 10;

}  // namespace

Metrics::Metrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      fallback_(std::make_shared<PluginFallbackCollector>()),
      snapshot_seconds_(BuildHistogram()
                            .Name("los_snapshot_handling_seconds")
                            .Help("Decode, decide for every partition and encode one snapshot")
                            .Register(*registry_)),
      snapshot_bytes_(
          BuildGauge().Name("los_snapshot_bytes").Help("Size of the latest snapshot frame").Register(*registry_)),
      decision_seconds_(BuildHistogram()
                            .Name("los_decision_latency_seconds")
                            .Help("Time of one policy step (events, decide, place)")
                            .Register(*registry_)),
      pending_(BuildGauge().Name("los_pending_jobs").Help("Pending jobs in the latest snapshot").Register(*registry_)),
      running_(BuildGauge()
                   .Name("los_running_jobs")
                   .Help("Running and suspended jobs in the latest snapshot")
                   .Register(*registry_)),
      nodes_(BuildGauge().Name("los_nodes").Help("Nodes by state in the latest snapshot").Register(*registry_)),
      utilization_(BuildGauge()
                       .Name("los_utilization_ratio")
                       .Help("Usable nodes held by executing jobs / usable nodes")
                       .Register(*registry_)),
      started_(BuildCounter()
                   .Name("los_jobs_started_total")
                   .Help("Start decisions sent to the plugin")
                   .Register(*registry_)),
      steps_cut_(BuildCounter()
                     .Name("los_steps_cut_total")
                     .Help("Steps whose planning stopped at the policy's step budget (the plan catches up in the "
                           "next steps)")
                     .Register(*registry_)),
      reservations_(
          BuildGauge().Name("los_reservations_held").Help("Reservations the policy holds").Register(*registry_)),
      prediction_error_(
          BuildHistogram()
              .Name("los_start_prediction_error_seconds")
              .Help("How far a job's actual start missed its first reserved start (direction: late or early)")
              .Register(*registry_)),
      protocol_errors_(
          BuildCounter().Name("los_protocol_errors_total").Help("Bad frames and requests").Register(*registry_)),
      reports_(BuildCounter()
                   .Name("los_plugin_reports_total")
                   .Help("Reports of the plugin: fallback scheduling, stale decisions, failed starts")
                   .Register(*registry_)),
      reloads_(
          BuildCounter().Name("los_config_reloads_total").Help("Configuration reloads (SIGHUP)").Register(*registry_)),
      switches_(BuildCounter()
                    .Name("los_policy_switches_total")
                    .Help("Run-time policy switches (losctl)")
                    .Register(*registry_)),
      query_clients_(BuildGauge().Name("los_query_clients").Help("Open query connections").Register(*registry_)),
      admin_clients_(BuildGauge().Name("los_admin_clients").Help("Open admin connections").Register(*registry_)),
      plugin_connections_(
          BuildGauge().Name("los_plugin_connections").Help("Open plugin connections").Register(*registry_)),
      refused_(BuildCounter()
                   .Name("los_client_refusals_total")
                   .Help("Connections and query requests refused by a limit")
                   .Register(*registry_)),
      snapshot_time_(BuildGauge()
                         .Name("los_last_snapshot_timestamp_seconds")
                         .Help("The time (unix seconds, the plugin's clock) of the latest snapshot")
                         .Register(*registry_)),
      wait_(BuildHistogram()
                .Name("los_job_wait_seconds")
                .Help("Start minus submit, per job when losd first sees it running")
                .Register(*registry_)),
      slowdown_(BuildHistogram()
                    .Name("los_job_bounded_slowdown")
                    .Help("max(1, (wait + run) / max(run, 10 s)), per job when it leaves the running set")
                    .Register(*registry_)),
      user_running_(BuildGauge()
                        .Name("los_user_running_nodes")
                        .Help("Nodes held by a user's executing jobs (top users by nodes and pending jobs; the rest "
                              "as user=\"other\")")
                        .Register(*registry_)),
      user_pending_(BuildGauge()
                        .Name("los_user_pending_jobs")
                        .Help("A user's pending jobs (same users as los_user_running_nodes)")
                        .Register(*registry_)) {
  BuildGauge()
      .Name("los_build_info")
      .Help("losd's version and protocol version; always 1")
      .Register(*registry_)
      .Add({{"version", kVersion}, {"protocol", std::to_string(LOS_PROTOCOL_VERSION)}})
      .Set(1);
  // Present from the start so a scrape sees zeros, not absent series.
  reloads_.Add({{"result", "ok"}});
  reloads_.Add({{"result", "failed"}});
  for (const char* socket : {"plugin", "query", "admin"}) {
    for (std::uint16_t code = LOS_ERR_MALFORMED; code <= LOS_ERR_BAD_MAGIC; ++code) {
      protocol_errors_.Add({{"socket", socket}, {"code", error_name(code)}});
    }
  }
  for (const char* reason : {"too_many_clients", "too_many_clients_per_uid", "rate_limited"}) {
    refused_.Add({{"socket", "query"}, {"reason", reason}});
  }
  refused_.Add({{"socket", "admin"}, {"reason", "too_many_clients"}});
  query_clients_.Add({});
  admin_clients_.Add({});
  plugin_connections_.Add({});
  snapshot_bytes_.Add({});
}

Metrics::~Metrics() = default;

void Metrics::serve(const std::string& listen) {
  // civetweb options: a worker serves one connection at a time, so one
  // worker and the default 30 s request timeout let a single unfinished
  // request stall every scrape.
  exposer_ = std::make_unique<prometheus::Exposer>(std::vector<std::string>{
      "listening_ports", listen, "num_threads", std::to_string(kMetricsThreads), "request_timeout_ms",
      std::to_string(kMetricsRequestTimeoutMs), "enable_keep_alive", "no"});
  exposer_->RegisterCollectable(registry_);
  exposer_->RegisterCollectable(fallback_);
}

std::string Metrics::text() const {
  std::vector<prometheus::MetricFamily> families = registry_->Collect();
  for (auto& f : fallback_->Collect()) families.push_back(std::move(f));
  return prometheus::TextSerializer().Serialize(families);
}

void Metrics::snapshot_received(const protocol::SnapshotMessage& msg) {
  fallback_->heard();
  fallback_->after_fallback(msg.after_fallback);
  snapshot_time_.Add({}).Set(static_cast<double>(msg.now));
  for (const Snapshot& part : msg.partitions) track_jobs(part, msg.now);
}

void Metrics::track_jobs(const Snapshot& part, Time now) {
  PartitionJobs& jobs = jobs_[part.partition];
  std::unordered_map<JobId, RunningTimes> running;
  for (const RunningJob& r : part.running) running[r.job.id] = {r.job.submit, r.start};
  if (jobs.seen) {
    // Clamped at 0 (a clock step on the controller): observations stay >= 0.
    for (const auto& [id, t] : running) {
      if (!jobs.running.count(id)) {
        wait_.Add({{"partition", part.partition}}, wait_buckets()).Observe(std::max<Time>(0, t.start - t.submit));
      }
    }
    for (const auto& [id, t] : jobs.running) {
      if (running.count(id)) continue;
      // It ended between the previous snapshot and this one: `now` bounds it.
      const Time wait = std::max<Time>(0, t.start - t.submit);
      const Time run = std::max<Time>(0, now - t.start);
      const double slowdown = static_cast<double>(wait + run) / static_cast<double>(std::max(run, kSlowdownMinRuntime));
      slowdown_.Add({{"partition", part.partition}}, slowdown_buckets()).Observe(std::max(1.0, slowdown));
    }
  }
  jobs.seen = true;
  jobs.running = std::move(running);
  // The per-user gauges read every waiting job: on a long queue at most once
  // a second (scrapes are seconds apart), not at every step.
  const auto now_steady = std::chrono::steady_clock::now();
  if (part.queue.size() < kUserGaugesEveryStepBelow || now_steady - jobs.users_counted >= std::chrono::seconds(1)) {
    jobs.users_counted = now_steady;
    user_gauges(part, jobs);
  }
}

void Metrics::user_gauges(const Snapshot& part, PartitionJobs& jobs) {
  struct Load {
    int nodes = 0;
    int pending = 0;
  };
  // Keyed by uid in the flat table of job ids (any 64-bit key works): a
  // look-up per waiting job, 100,000 at every step of a long queue.
  JobMap<Load> by_user;
  for (const RunningJob& r : part.running) {
    if (!r.suspended) by_user[r.job.user].nodes += r.job.size;
  }
  for (const Job& j : part.queue) ++by_user[j.user].pending;
  std::vector<std::pair<int, Load>> ranked;
  ranked.reserve(by_user.size());
  by_user.for_each([&ranked](JobId user, const Load& load) { ranked.emplace_back(static_cast<int>(user), load); });
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    // most nodes, then most pending jobs, then the lower uid
    return std::tuple(b.second.nodes, b.second.pending, a.first) <
           std::tuple(a.second.nodes, a.second.pending, b.first);
  });
  std::map<std::string, Load> shown{{"other", {}}};
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    Load& to = i < kTopUsers ? shown[std::to_string(ranked[i].first)] : shown["other"];
    to.nodes += ranked[i].second.nodes;
    to.pending += ranked[i].second.pending;
  }
  for (auto& [user, exported] : jobs.user_labels) exported = shown.count(user) > 0;
  for (auto it = jobs.user_labels.begin(); it != jobs.user_labels.end();) {
    if (it->second) {
      ++it;
      continue;
    }
    const prometheus::Labels labels{{"partition", part.partition}, {"user", it->first}};
    user_running_.Remove(&user_running_.Add(labels));
    user_pending_.Remove(&user_pending_.Add(labels));
    it = jobs.user_labels.erase(it);
  }
  for (const auto& [user, load] : shown) {
    const prometheus::Labels labels{{"partition", part.partition}, {"user", user}};
    user_running_.Add(labels).Set(load.nodes);
    user_pending_.Add(labels).Set(load.pending);
    jobs.user_labels[user] = true;
  }
}

void Metrics::note_policy(const std::string& partition, const std::string& policy) {
  auto [it, added] = policy_of_.try_emplace(partition, policy);
  if (added || it->second == policy) return;
  drop_policy_series(partition, it->second);
  it->second = policy;
}

void Metrics::drop_policy_series(const std::string& partition, const std::string& policy) {
  const prometheus::Labels labels{{"partition", partition}, {"policy", policy}};
  if (decision_seconds_.Has(labels)) decision_seconds_.Remove(&decision_seconds_.Add(labels, latency_buckets()));
  if (started_.Has(labels)) started_.Remove(&started_.Add(labels));
  if (steps_cut_.Has(labels)) steps_cut_.Remove(&steps_cut_.Add(labels));
  if (reservations_.Has(labels)) reservations_.Remove(&reservations_.Add(labels));
  for (const char* direction : {"late", "early"}) {
    prometheus::Labels with = labels;
    with["direction"] = direction;
    if (prediction_error_.Has(with)) prediction_error_.Remove(&prediction_error_.Add(with, error_buckets()));
  }
}

void Metrics::snapshot_handled(double seconds, std::size_t bytes) {
  snapshot_seconds_.Add({}, latency_buckets()).Observe(seconds);
  snapshot_bytes_.Add({}).Set(static_cast<double>(bytes));
}

void Metrics::decision_latency(const std::string& partition, const std::string& policy, double seconds) {
  note_policy(partition, policy);
  decision_seconds_.Add({{"partition", partition}, {"policy", policy}}, latency_buckets()).Observe(seconds);
}

void Metrics::partition_state(const std::string& partition, int pending, int running, int idle, int allocated,
                              int drained, int down, double utilization) {
  pending_.Add({{"partition", partition}}).Set(pending);
  running_.Add({{"partition", partition}}).Set(running);
  nodes_.Add({{"partition", partition}, {"state", "idle"}}).Set(idle);
  nodes_.Add({{"partition", partition}, {"state", "allocated"}}).Set(allocated);
  nodes_.Add({{"partition", partition}, {"state", "drained"}}).Set(drained);
  nodes_.Add({{"partition", partition}, {"state", "down"}}).Set(down);
  utilization_.Add({{"partition", partition}}).Set(std::isfinite(utilization) ? utilization : 0);
  // Counters of the partition at zero from its first snapshot: a dashboard
  // or an alert on increase() sees 0, not "no data".
  for (const char* kind : {"fallback", "stale_decision", "start_failed"}) {
    reports_.Add({{"partition", partition}, {"kind", kind}});
  }
  switches_.Add({{"partition", partition}});
}

void Metrics::jobs_started(const std::string& partition, const std::string& policy, int count) {
  note_policy(partition, policy);
  started_.Add({{"partition", partition}, {"policy", policy}}).Increment(count);
}

void Metrics::step_planned(const std::string& partition, const std::string& policy, bool cut) {
  note_policy(partition, policy);
  prometheus::Counter& c = steps_cut_.Add({{"partition", partition}, {"policy", policy}});  // 0 from the first step
  if (cut) c.Increment();
}

void Metrics::reservations(const std::string& partition, const std::string& policy, int held) {
  note_policy(partition, policy);
  reservations_.Add({{"partition", partition}, {"policy", policy}}).Set(held);
}

void Metrics::start_prediction_error(const std::string& partition, const std::string& policy, double seconds) {
  note_policy(partition, policy);
  // Two histograms of |error| rather than one of the signed error: a
  // histogram's _sum must never decrease (rate() would read it as a reset).
  prediction_error_
      .Add({{"partition", partition}, {"policy", policy}, {"direction", seconds < 0 ? "early" : "late"}},
           error_buckets())
      .Observe(std::fabs(seconds));
}

void Metrics::protocol_error(const std::string& socket, const std::string& code) {
  protocol_errors_.Add({{"socket", socket}, {"code", code}}).Increment();
}

void Metrics::plugin_report(const std::string& partition, const std::string& kind) {
  reports_.Add({{"partition", partition}, {"kind", kind}}).Increment();
}

void Metrics::config_reload(bool ok) { reloads_.Add({{"result", ok ? "ok" : "failed"}}).Increment(); }

void Metrics::policy_switch(const std::string& partition) {
  switches_.Add({{"partition", partition}}).Increment();
  policy_replaced(partition);
}

void Metrics::policy_replaced(const std::string& partition) {
  const auto it = policy_of_.find(partition);
  if (it == policy_of_.end()) return;
  drop_policy_series(partition, it->second);
  policy_of_.erase(it);
}

void Metrics::partition_dropped(const std::string& partition) {
  if (const auto it = policy_of_.find(partition); it != policy_of_.end()) {
    drop_policy_series(partition, it->second);
    policy_of_.erase(it);
  }
  const prometheus::Labels labels{{"partition", partition}};
  auto drop = [&](auto& family, const prometheus::Labels& l, auto&&... args) {
    if (family.Has(l)) family.Remove(&family.Add(l, args...));
  };
  drop(pending_, labels);
  drop(running_, labels);
  drop(utilization_, labels);
  drop(switches_, labels);
  drop(wait_, labels, wait_buckets());
  drop(slowdown_, labels, slowdown_buckets());
  for (const char* state : {"idle", "allocated", "drained", "down"}) {
    drop(nodes_, {{"partition", partition}, {"state", state}});
  }
  for (const char* kind : {"fallback", "stale_decision", "start_failed"}) {
    drop(reports_, {{"partition", partition}, {"kind", kind}});
  }
  if (const auto it = jobs_.find(partition); it != jobs_.end()) {
    for (const auto& [user, exported] : it->second.user_labels) {
      const prometheus::Labels l{{"partition", partition}, {"user", user}};
      drop(user_running_, l);
      drop(user_pending_, l);
    }
    jobs_.erase(it);
  }
}

void Metrics::query_clients(int n) { query_clients_.Add({}).Set(n); }

void Metrics::admin_clients(int n) { admin_clients_.Add({}).Set(n); }

void Metrics::plugin_connections(int n) {
  plugin_connections_.Add({}).Set(n);
  fallback_->connections(n);
}

void Metrics::connection_refused(const std::string& socket, const std::string& reason) {
  refused_.Add({{"socket", socket}, {"reason", reason}}).Increment();
}

}  // namespace los::daemon
