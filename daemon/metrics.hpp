// losd's Prometheus metrics (docs/losd.md lists them). Labels are bounded:
// partition, policy, and small fixed sets (socket, error code, result); never
// a job or a user id.
#pragma once

#include <memory>
#include <string>

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

namespace prometheus {
class Exposer;
}

namespace los::daemon {

inline constexpr int kMetricsThreads = 4;
inline constexpr int kMetricsRequestTimeoutMs = 2000;

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

  void snapshot_handled(double seconds, std::size_t bytes);
  void decision_latency(const std::string& partition, const std::string& policy, double seconds);
  void partition_state(const std::string& partition, int pending, int running, int idle, int allocated, int drained,
                       int down, double utilization);
  void jobs_started(const std::string& partition, const std::string& policy, int count);
  void reservations(const std::string& partition, const std::string& policy, int held);
  void start_prediction_error(const std::string& partition, const std::string& policy, double seconds);
  void protocol_error(const std::string& socket, const std::string& code);
  void plugin_report(const std::string& partition, const std::string& kind);
  void config_reload(bool ok);
  void policy_switch(const std::string& partition);
  void query_clients(int n);
  void admin_clients(int n);
  void plugin_connections(int n);
  // A connection or query request refused by a limit; `reason` is one of
  // too_many_clients, too_many_clients_per_uid, rate_limited.
  void connection_refused(const std::string& socket, const std::string& reason);

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  prometheus::Family<prometheus::Histogram>& snapshot_seconds_;
  prometheus::Family<prometheus::Gauge>& snapshot_bytes_;
  prometheus::Family<prometheus::Histogram>& decision_seconds_;
  prometheus::Family<prometheus::Gauge>& pending_;
  prometheus::Family<prometheus::Gauge>& running_;
  prometheus::Family<prometheus::Gauge>& nodes_;
  prometheus::Family<prometheus::Gauge>& utilization_;
  prometheus::Family<prometheus::Counter>& started_;
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
};

}  // namespace los::daemon
