#include "policy/live_decisions.hpp"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

namespace los {

std::vector<Decision> live_decisions(const Snapshot& snapshot, const std::vector<Decision>& decisions,
                                     const std::string& policy) {
  // Only a resume with nodes can be a migration: most steps have none, and
  // then no map of the running jobs is built.
  const bool any_placed_resume = std::any_of(decisions.begin(), decisions.end(), [](const Decision& d) {
    return d.kind == Decision::Kind::Resume && !d.nodes.empty();
  });
  if (!any_placed_resume) return decisions;
  std::unordered_map<JobId, const RunningJob*> running;
  for (const RunningJob& r : snapshot.running) running[r.job.id] = &r;
  std::unordered_set<JobId> migrating;
  std::unordered_set<JobId> stall_only;
  for (const Decision& d : decisions) {
    if (d.kind != Decision::Kind::Resume || d.nodes.empty()) continue;
    const auto it = running.find(d.job);
    if (it == running.end()) continue;
    std::vector<int> to = d.nodes;
    std::vector<int> from = it->second->nodes;
    std::sort(to.begin(), to.end());
    std::sort(from.begin(), from.end());
    if (to == from) {
      if (!it->second->suspended) stall_only.insert(d.job);
      continue;
    }
    if (!it->second->job.migratable) {
      throw std::logic_error("policy " + policy + " migrates job " + std::to_string(d.job) +
                             ", which did not opt in to migration");
    }
    migrating.insert(d.job);
  }
  if (migrating.empty() && stall_only.empty()) return decisions;
  std::vector<Decision> out;
  out.reserve(decisions.size());
  for (const Decision& d : decisions) {
    if (stall_only.count(d.job)) continue;
    if (!migrating.count(d.job)) {
      out.push_back(d);
      continue;
    }
    if (d.kind == Decision::Kind::Suspend) continue;  // the requeue stops it
    Decision q = d;
    q.kind = Decision::Kind::Requeue;  // nodes: where it will start again
    q.overhead = 0;
    out.push_back(std::move(q));
  }
  return out;
}

}  // namespace los
