#include "metrics/summary.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace los {

std::vector<JobMetrics> job_metrics(const SimResult& r, double bsld_tau) {
  std::vector<JobMetrics> out;
  out.reserve(r.jobs.size());
  for (const JobOutcome& o : r.jobs) {
    if (o.withdrawn()) continue;
    const double response = static_cast<double>(o.response());
    const double run = static_cast<double>(o.executed);
    out.push_back({static_cast<double>(o.wait()), response, response / std::max(run, 1.0),
                   std::max(response / std::max(run, bsld_tau), 1.0)});
  }
  return out;
}

std::vector<UserFairness> user_fairness(const SimResult& r) {
  struct Totals {
    int jobs = 0;
    double wait = 0;
    double area = 0;
  };
  std::map<int, Totals> users;
  for (const JobOutcome& o : r.jobs) {
    if (o.withdrawn()) continue;
    Totals& t = users[o.job.user];
    ++t.jobs;
    t.wait += static_cast<double>(std::max<Time>(0, o.wait()));
    t.area += static_cast<double>(o.executed) * o.job.size;
  }
  std::vector<UserFairness> out;
  out.reserve(users.size());
  for (const auto& [user, t] : users) out.push_back({user, t.jobs, t.wait / std::max(1.0, t.area)});
  return out;
}

namespace {

// Nearest-rank percentile of sorted values.
double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const double rank = std::ceil(p / 100.0 * static_cast<double>(sorted.size()));
  const std::size_t i = static_cast<std::size_t>(std::clamp(rank, 1.0, static_cast<double>(sorted.size()))) - 1;
  return sorted[i];
}

}  // namespace

Summary summarize(const SimResult& r, double bsld_tau) {
  Summary s;
  s.policy = r.policy;
  s.dropped = r.dropped;
  s.wall_seconds = r.wall_seconds;
  s.mean_queue_length = r.steps ? r.queue_length_sum / static_cast<double>(r.steps) : 0;
  if (r.jobs.empty()) return s;

  const std::vector<JobMetrics> m = job_metrics(r, bsld_tau);
  s.jobs = m.size();
  std::vector<double> waits;
  waits.reserve(m.size());
  for (const JobMetrics& x : m) {
    waits.push_back(x.wait);
    s.mean_wait += x.wait;
    s.mean_response += x.response;
    s.mean_slowdown += x.slowdown;
    s.mean_bsld += x.bounded_slowdown;
  }
  // The machine's time and work: every job, withdrawn records included
  // where they held units.
  double first_submit = static_cast<double>(r.jobs.front().job.submit);
  double last_end = 0;
  double work = 0;
  for (const JobOutcome& o : r.jobs) {
    first_submit = std::min(first_submit, static_cast<double>(o.job.submit));
    last_end = std::max(last_end, static_cast<double>(o.end));
    work += static_cast<double>(o.executed) * o.job.size;
    if (!o.withdrawn()) {
      if (o.killed) ++s.killed;
    } else if (o.start < 0) {
      ++s.withdrawn_waiting;
    } else {
      ++s.withdrawn_started;
      if (o.cut) ++s.withdrawn_cut;
    }
  }
  if (m.empty()) return s;
  const double n = static_cast<double>(m.size());
  s.mean_wait /= n;
  s.mean_response /= n;
  s.mean_slowdown /= n;
  s.mean_bsld /= n;
  std::sort(waits.begin(), waits.end());
  s.p50_wait = percentile(waits, 50);
  s.p90_wait = percentile(waits, 90);
  s.p99_wait = percentile(waits, 99);
  s.max_wait = waits.back();
  s.makespan = last_end - first_submit;
  const double capacity = s.makespan * r.units;
  s.utilization = capacity > 0 ? work / capacity : 0;
  s.loss_of_capacity = capacity > 0 ? (r.idle_while_waiting + r.overhead_while_waiting) / capacity : 0;

  const std::vector<UserFairness> users = user_fairness(r);
  double mean = 0;
  for (const UserFairness& u : users) mean += u.nuwt;
  mean /= static_cast<double>(users.size());
  double repeat_sum = 0;
  std::size_t repeat_users = 0;
  for (const UserFairness& u : users) {
    s.fairness_F += (mean - u.nuwt) * (mean - u.nuwt);
    if (u.jobs >= 2) {
      repeat_sum += u.nuwt;
      ++repeat_users;
    }
  }
  s.mean_nuwt = repeat_users ? repeat_sum / static_cast<double>(repeat_users) : 0;
  return s;
}

}  // namespace los
