// The availability profile of a partition's running jobs, kept up to date
// from snapshot events: the mechanism every planning policy (backfilling,
// LOS, tabu) builds on, written once.
//
// Each executing job holds its units in the planner until its expected end
// (start + estimate; one second from now once it has run past that). A start
// the policy decided takes its units at once and waits for the Started event
// that confirms it. When the events do not explain the snapshot — a start
// the policy did not decide, a decided start that did not happen, a job past
// its estimate (unless the caller takes it in place), a suspension — the
// caller rebuilds from the snapshot alone.
#pragma once

#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/snapshot.hpp"
#include "planner/planner.hpp"

namespace los {

class RunningProfile {
 public:
  // The planner holds the running jobs; a policy adds its own reservations
  // on top (and must take them off again itself).
  Planner& planner() { return planner_; }
  const Planner& planner() const { return planner_; }

  // A profile of the snapshot's executing jobs from snapshot.now on. The
  // snapshot's free count is the truth from now until the first expected end
  // (a unit the profile cannot account for: a drained node, a job it
  // cannot see).
  void rebuild(const Snapshot& snapshot);

  // Brings the profile to the snapshot's time and applies its events.
  // Returns false when the events do not explain the snapshot; the profile
  // is then unusable until rebuild(). `freed` is set when units came back
  // before the profile expected them (a job ended early). A job past its
  // expected end is such a case, unless `extend_overruns`: then its units
  // are expected back one second from now, as rebuild() would, and the
  // planner may be overbooked on [now, now + 1) where the caller's
  // reservations due now meet it (the caller moves them).
  bool update(const Snapshot& snapshot, bool& freed, bool extend_overruns = false);

  // True when this profile was built for a partition of another size, or
  // for a later time than the snapshot's: update() cannot catch up.
  bool stale(const Snapshot& snapshot) const {
    return planner_.capacity() != snapshot.total_units || snapshot.now < planner_.origin();
  }

  // The policy decided to start a job now for `duration`: take its units.
  void start(JobId id, int size, Time now, Time duration);
  // The same, for units the policy already took in the planner (its own
  // reservation turning into the start).
  void adopt_start(JobId id, int size, Time start, Time end);

  bool decided_start(JobId id) const { return starting_.count(id) != 0; }

  // The sizes of the jobs whose units the profile expects back exactly at
  // `t` (running and decided starts), in order of job id.
  std::vector<int> sizes_ending_at(Time t) const;

 private:
  struct Occupation {
    int size;
    Time start;
    Time end;  // where the profile expects the units back
  };
  void add_running(JobId id, const Occupation& occ);

  Planner planner_;
  std::unordered_map<JobId, Occupation> running_;
  std::set<std::pair<Time, JobId>> running_by_end_;
  std::unordered_map<JobId, Occupation> starting_;  // decided, awaiting Started
};

// A zero estimate would hold nothing; one second is the smallest span a
// profile holds. Every planning policy uses this rule.
inline Time planned_duration(Time estimate) { return estimate > 1 ? estimate : 1; }

}  // namespace los
