// Scheduling metrics of one simulated schedule (definitions in
// docs/simulator.md; they follow the LOS thesis and the fairness paper).
#pragma once

#include <string>
#include <vector>

#include "sim/simulator.hpp"

namespace los {

// Per-job metrics, in workload order, of the jobs of the workload: every job
// but the records their users withdrew (JobOutcome::withdrawn; they never
// ran in reality). The same jobs in every schedule of one workload, so two
// schedules pair job by job.
struct JobMetrics {
  double wait;
  double response;
  double slowdown;          // response / max(run time, 1 s)
  double bounded_slowdown;  // max(response / max(run time, tau), 1)
};

std::vector<JobMetrics> job_metrics(const SimResult& r, double bsld_tau);

// Normalized user wait time of each user: total wait / max(1, total
// run time x size) over the user's jobs (withdrawn records left out, as in
// job_metrics).
struct UserFairness {
  int user;
  int jobs;
  double nuwt;
};
std::vector<UserFairness> user_fairness(const SimResult& r);

struct Summary {
  std::string policy;
  std::size_t jobs = 0;  // the jobs the per-job metrics cover
  std::size_t dropped = 0;
  // Records withdrawn by their users (--cancelled=withdraw): still waiting at
  // their cancel time, or started by the policy before it (and then ended at
  // their cancel time or their estimate). Their units count in utilization
  // and loss of capacity; they are in no per-job metric.
  std::size_t withdrawn_waiting = 0;
  std::size_t withdrawn_started = 0;
  std::size_t withdrawn_cut = 0;  // of the started: ended at their cancel time, not their estimate
  std::size_t killed = 0;         // of the jobs the per-job metrics cover
  double mean_wait = 0, p50_wait = 0, p90_wait = 0, p99_wait = 0, max_wait = 0;
  double mean_response = 0;
  double mean_slowdown = 0;
  double mean_bsld = 0;
  double utilization = 0;        // sum(size x executed) / (makespan x units)
  double makespan = 0;           // last end - first submit
  double loss_of_capacity = 0;   // (idle + overhead-paying) unit-seconds while jobs wait / (makespan x units)
  double fairness_F = 0;         // sum over users of (mean NUWT - NUWT)^2
  double mean_nuwt = 0;          // over users with two or more jobs
  double mean_queue_length = 0;  // over scheduling steps
  double wall_seconds = 0;
};

Summary summarize(const SimResult& r, double bsld_tau);

}  // namespace los
