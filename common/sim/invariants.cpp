#include "sim/invariants.hpp"

#include <algorithm>

namespace los {

void InvariantChecker::after_step(const Snapshot& snapshot, const StepResult& /*result*/, const Policy& policy) {
  for (const PlannedStart& p : policy.reservations()) {
    if (p.start < snapshot.now && step_violations_.size() < 100) {
      step_violations_.push_back("t=" + std::to_string(snapshot.now) + ": job " + std::to_string(p.job) +
                                 " holds a reservation in the past (" + std::to_string(p.start) + ")");
    }
    first_promise_.emplace(p.job, p.start);  // keeps the first
  }
}

std::vector<std::string> InvariantChecker::check(const SimResult& r, bool kill_at_estimate, std::size_t limit) const {
  std::vector<std::string> v(step_violations_.begin(), step_violations_.begin() + static_cast<std::ptrdiff_t>(std::min(
                                                                                      limit, step_violations_.size())));
  auto add = [&](std::string s) {
    if (v.size() < limit) v.push_back(std::move(s));
  };
  for (const JobOutcome& o : r.jobs) {
    const std::string id = "job " + std::to_string(o.job.id);
    if (o.withdrawn()) {
      // Withdrawn by its user: it may never have started, and it cannot run
      // past its cancel time.
      if (o.start < 0 && o.end < 0) continue;
      const Time cancel = o.job.submit + o.job.cancel_lag;
      if (o.end > cancel)
        add(id + " ends at " + std::to_string(o.end) + ", after its cancel time " + std::to_string(cancel));
      if (o.start >= cancel)
        add(id + " starts at " + std::to_string(o.start) + ", not before its cancel time " + std::to_string(cancel));
    }
    if (o.start < 0 || o.end < 0) {
      add(id + " never ran");
      continue;
    }
    if (o.start < o.job.submit)
      add(id + " starts at " + std::to_string(o.start) + " before its submit time " + std::to_string(o.job.submit));
    if (o.end < o.start) add(id + " ends before it starts");
    if (kill_at_estimate) {
      const auto it = first_promise_.find(o.job.id);
      if (it != first_promise_.end() && o.start > it->second) {
        add(id + " starts at " + std::to_string(o.start) + ", after its first reservation at " +
            std::to_string(it->second));
      }
    }
  }
  // Capacity, by a sweep over starts and ends. Time-shared runs (jobs
  // suspended) are checked by the simulator at every resume instead.
  if (r.suspensions == 0) {
    std::vector<std::pair<Time, long long>> edges;
    edges.reserve(2 * r.jobs.size());
    for (const JobOutcome& o : r.jobs) {
      if (o.start < 0 || o.end <= o.start) continue;
      edges.push_back({o.start, o.job.size});
      edges.push_back({o.end, -static_cast<long long>(o.job.size)});
    }
    // Ends before starts at one instant: a unit freed at t is free at t.
    std::sort(edges.begin(), edges.end());
    long long used = 0;
    for (const auto& [t, delta] : edges) {
      used += delta;
      if (used > r.units) {
        add("t=" + std::to_string(t) + ": " + std::to_string(used) + " units in use on a machine of " +
            std::to_string(r.units));
        break;
      }
    }
  }
  return v;
}

}  // namespace los
