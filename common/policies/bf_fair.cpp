#include "policies/bf_fair.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include "model/job_id_index.hpp"

namespace los {

double BfFairPolicy::user_nuwt(int user) const {
  const auto it = users_.find(user);
  if (it == users_.end()) return 0;
  return it->second.wait / std::max(1.0, it->second.area);
}

void BfFairPolicy::finish(JobId id, Time start, int size, Time now) {
  const auto it = seen_.find(id);
  if (it == seen_.end()) return;  // started before this policy saw it
  UserTotals& u = users_[it->second.user];
  u.wait += static_cast<double>(std::max<Time>(0, start - it->second.submit));
  u.area += static_cast<double>(std::max<Time>(0, now - start)) * size;
  seen_.erase(it);
}

void BfFairPolicy::copy_history_to(Policy& fresh) const {
  auto* fair = dynamic_cast<BfFairPolicy*>(&fresh);
  if (fair == nullptr) return;
  fair->users_ = users_;
  // Live, running_ lists the last step's running jobs; in a simulation every
  // job seen is copied (a test's instance, small).
  if (live_) {
    for (const Running& r : running_) {
      const auto it = seen_.find(r.id);
      if (it != seen_.end()) fair->seen_.insert(*it);
    }
  } else {
    fair->seen_ = seen_;
  }
}

StepResult BfFairPolicy::step(const Snapshot& snapshot) {
  const Time now = snapshot.now;
  for (const Job& j : snapshot.queue) seen_.try_emplace(j.id, Seen{j.user, j.submit});
  if (live_ && snapshot.resync) {
    JobIdIndex still(snapshot.running.size());
    for (const RunningJob& r : snapshot.running) still.insert(r.job.id);
    for (const Running& r : running_) {
      if (!still.contains(r.id)) finish(r.id, r.start, r.size, now);
    }
  }
  for (const SnapshotEvent& ev : snapshot.events) {
    if (ev.kind == SnapshotEvent::Kind::Ended) {
      finish(ev.job, ev.start, ev.size, now);
    } else if (ev.kind == SnapshotEvent::Kind::Withdrawn) {
      seen_.erase(ev.job);
    }
  }
  if (live_) {
    running_.clear();
    for (const RunningJob& r : snapshot.running) running_.push_back({r.job.id, r.start, r.job.size});
  }

  // Sort key: -NUWT, so the highest NUWT comes first; users with NUWT 0 last.
  std::vector<std::pair<double, std::size_t>> order;
  order.reserve(snapshot.queue.size());
  std::unordered_map<int, double> key_of_user;
  for (std::size_t i = 0; i < snapshot.queue.size(); ++i) {
    const int user = snapshot.queue[i].user;
    auto [it, added] = key_of_user.try_emplace(user, 0.0);
    if (added) {
      const double nuwt = user_nuwt(user);
      it->second = nuwt > 0 ? -nuwt : std::numeric_limits<double>::infinity();
    }
    order.push_back({it->second, i});
  }
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first < b.first; });

  StepResult result;
  int free = snapshot.free_units;
  for (const auto& [key, i] : order) {
    if (free <= 0) break;
    const Job& j = snapshot.queue[i];
    if (j.size > free) continue;
    free -= j.size;
    result.decisions.push_back(Decision::start(j.id));
  }
  return result;
}

PolicyPtr make_bf_fair(const ParamValues&, RunMode mode) { return std::make_unique<BfFairPolicy>(mode); }

}  // namespace los
