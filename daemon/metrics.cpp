#include "metrics.hpp"

#include <cmath>
#include <vector>

#include <prometheus/exposer.h>
#include <prometheus/text_serializer.h>

namespace los::daemon {
namespace {

using prometheus::BuildCounter;
using prometheus::BuildGauge;
using prometheus::BuildHistogram;
using prometheus::Histogram;

// Decision latency: 50 us .. 5 s.
Histogram::BucketBoundaries latency_buckets() {
  return {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5};
}

// Start prediction error (actual - predicted, seconds), signed: -1 day .. +1 day.
Histogram::BucketBoundaries error_buckets() { return {-86400, -3600, -600, -60, -1, 0, 1, 60, 600, 3600, 86400}; }

}  // namespace

Metrics::Metrics()
    : registry_(std::make_shared<prometheus::Registry>()),
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
      reservations_(
          BuildGauge().Name("los_reservations_held").Help("Reservations the policy holds").Register(*registry_)),
      prediction_error_(BuildHistogram()
                            .Name("los_start_prediction_error_seconds")
                            .Help("Actual start minus the first reserved start, per started job")
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
                   .Register(*registry_)) {
  // Present from the start so a scrape sees zeros, not absent series.
  reloads_.Add({{"result", "ok"}});
  reloads_.Add({{"result", "failed"}});
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
}

std::string Metrics::text() const { return prometheus::TextSerializer().Serialize(registry_->Collect()); }

void Metrics::snapshot_handled(double seconds, std::size_t bytes) {
  snapshot_seconds_.Add({}, latency_buckets()).Observe(seconds);
  snapshot_bytes_.Add({}).Set(static_cast<double>(bytes));
}

void Metrics::decision_latency(const std::string& partition, const std::string& policy, double seconds) {
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
}

void Metrics::jobs_started(const std::string& partition, const std::string& policy, int count) {
  started_.Add({{"partition", partition}, {"policy", policy}}).Increment(count);
}

void Metrics::reservations(const std::string& partition, const std::string& policy, int held) {
  reservations_.Add({{"partition", partition}, {"policy", policy}}).Set(held);
}

void Metrics::start_prediction_error(const std::string& partition, const std::string& policy, double seconds) {
  prediction_error_.Add({{"partition", partition}, {"policy", policy}}, error_buckets()).Observe(seconds);
}

void Metrics::protocol_error(const std::string& socket, const std::string& code) {
  protocol_errors_.Add({{"socket", socket}, {"code", code}}).Increment();
}

void Metrics::plugin_report(const std::string& partition, const std::string& kind) {
  reports_.Add({{"partition", partition}, {"kind", kind}}).Increment();
}

void Metrics::config_reload(bool ok) { reloads_.Add({{"result", ok ? "ok" : "failed"}}).Increment(); }

void Metrics::policy_switch(const std::string& partition) { switches_.Add({{"partition", partition}}).Increment(); }

void Metrics::query_clients(int n) { query_clients_.Add({}).Set(n); }

void Metrics::admin_clients(int n) { admin_clients_.Add({}).Set(n); }

void Metrics::plugin_connections(int n) { plugin_connections_.Add({}).Set(n); }

void Metrics::connection_refused(const std::string& socket, const std::string& reason) {
  refused_.Add({{"socket", socket}, {"reason", reason}}).Increment();
}

}  // namespace los::daemon
