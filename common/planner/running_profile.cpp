#include "planner/running_profile.hpp"

#include <algorithm>
#include <limits>

namespace los {

void RunningProfile::add_running(JobId id, const Occupation& occ) {
  running_[id] = occ;
  running_by_end_.insert({occ.end, id});
}

void RunningProfile::rebuild(const Snapshot& snapshot) {
  const Time now = snapshot.now;
  planner_ = Planner(snapshot.total_units, now);
  running_.clear();
  running_by_end_.clear();
  starting_.clear();
  for (const RunningJob& r : snapshot.running) {
    if (r.suspended) continue;
    const Time end = r.expected_end(now);
    planner_.add(now, end, -r.job.size);
    add_running(r.job.id, Occupation{r.job.size, r.start, end});
  }
  const std::int64_t gap = snapshot.free_units - planner_.free_at(now);
  if (gap != 0) {
    const Time first_end = running_by_end_.empty() ? kTimeInfinity : running_by_end_.begin()->first;
    planner_.add(now, first_end, gap);
  }
}

bool RunningProfile::update(const Snapshot& snapshot, bool& freed, bool extend_overruns) {
  const Time now = snapshot.now;
  planner_.advance_to(now);
  for (const SnapshotEvent& ev : snapshot.events) {
    switch (ev.kind) {
      case SnapshotEvent::Kind::Arrived:
        break;
      case SnapshotEvent::Kind::Started: {
        const auto it = starting_.find(ev.job);
        if (it == starting_.end()) return false;  // a start this policy did not decide
        const Occupation decided = it->second;
        starting_.erase(it);
        if (ev.start == decided.start) {
          add_running(ev.job, decided);  // started when decided: the span is right
          break;
        }
        // Started a little later than decided (a live cluster applies
        // decisions after the step): move the span to where it really is.
        const Time end = std::max(ev.start + planned_duration(ev.estimate), now + 1);
        if (decided.end > now) planner_.add(now, decided.end, decided.size);
        planner_.add(now, end, -decided.size);
        add_running(ev.job, Occupation{decided.size, ev.start, end});
        if (planner_.min_free(now, end) < 0) return false;  // it overlaps a promise
        break;
      }
      case SnapshotEvent::Kind::Ended: {
        const auto it = running_.find(ev.job);
        if (it == running_.end()) return false;
        const Occupation occ = it->second;
        running_by_end_.erase({occ.end, ev.job});
        running_.erase(it);
        if (occ.end > now) {
          planner_.add(now, occ.end, occ.size);
          freed = true;
        }
        break;
      }
      case SnapshotEvent::Kind::Withdrawn:
        if (starting_.count(ev.job)) return false;  // decided, then cancelled
        break;
      case SnapshotEvent::Kind::Suspended:
      case SnapshotEvent::Kind::Resumed:
        return false;  // not space sharing
    }
  }
  // A decided start that did not happen, or a job past the end the profile
  // expected (it overran its estimate).
  if (!starting_.empty()) return false;
  while (!running_by_end_.empty() && running_by_end_.begin()->first <= now) {
    if (!extend_overruns) return false;
    // Its units went back to the planner at its expected end (the origin
    // passed it): take them again until a second from now.
    const JobId id = running_by_end_.begin()->second;
    running_by_end_.erase(running_by_end_.begin());
    Occupation& occ = running_.at(id);
    occ.end = now + 1;
    planner_.add(now, occ.end, -occ.size);
    running_by_end_.insert({occ.end, id});
  }
  return true;
}

void RunningProfile::start(JobId id, int size, Time now, Time duration) {
  planner_.add(now, now + duration, -size);
  adopt_start(id, size, now, now + duration);
}

void RunningProfile::adopt_start(JobId id, int size, Time start, Time end) {
  starting_[id] = Occupation{size, start, end};
}

std::vector<int> RunningProfile::sizes_ending_at(Time t) const {
  std::vector<std::pair<JobId, int>> ending;
  for (auto it = running_by_end_.lower_bound({t, std::numeric_limits<JobId>::min()});
       it != running_by_end_.end() && it->first == t; ++it) {
    ending.emplace_back(it->second, running_.at(it->second).size);
  }
  for (const auto& [id, occ] : starting_) {
    if (occ.end == t) ending.emplace_back(id, occ.size);
  }
  std::sort(ending.begin(), ending.end());
  std::vector<int> sizes;
  sizes.reserve(ending.size());
  for (const auto& e : ending) sizes.push_back(e.second);
  return sizes;
}

}  // namespace los
