// One row's plan of BGS / MBGS: the row's availability profile, its
// reservations by start, and a dominance bound that lets searches for new
// reservations start near their answer instead of at `now`.
//
// Why: a resync re-plans the whole queue, each job searched in every row
// (5,000 jobs x MPL rows), and each Planner::earliest_start walked the row's
// plan from `now` past the reservations already made. Conservative had the
// same cost and the same cure (planner/start_bound.hpp).
//
// Proof that a bounded search finds the plain search's start. Let the
// row's profile only lose units between two searches (no release(), no
// positive add(): Planner::additions() unchanged; reserve() and negative
// add() allowed; advance_to() forgets only times before the new origin) and
// `now` not decrease. Let a search for (k', d') from now' have answered s',
// and a later search ask for (k >= k', d >= d') from now >= now'. Suppose it
// answers s < s' (s >= now). Then k units are free throughout [s, s + d)
// now, so k' units are free throughout [s, s + d') now, hence in the earlier
// profile too (it had at least as many units free at every time from now'
// on). Since s >= now >= now', the earlier search would have answered at
// most s < s': a contradiction. So the later answer is >= s', and
// earliest_start(k, d, max(now, s')) returns it (the earliest start >=
// not_before is the earliest start when that is >= not_before). StartBound
// gives the largest recorded s' of a shape strictly smaller in both
// dimensions; when units come back (additions() changed), the profile is
// replaced (restart()) or `now` goes back, the records are forgotten.
#pragma once

#include <cstdint>
#include <set>
#include <tuple>

#include "model/job.hpp"
#include "planner/planner.hpp"
#include "planner/start_bound.hpp"

namespace los {

class GangRowPlan {
 public:
  // The row's reservations: (start, order, job).
  using ByStart = std::set<std::tuple<Time, std::int64_t, JobId>>;

  GangRowPlan(std::int64_t capacity, Time origin) : planner_(capacity, origin) {}

  Planner& planner() { return planner_; }
  const Planner& planner() const { return planner_; }

  // A fresh profile: `capacity` units free from `origin` on (the bound is
  // forgotten; the reservations are the caller's to keep or clear).
  void restart(std::int64_t capacity, Time origin);

  // A lower bound of planner().earliest_start(size, duration, now), >= now:
  // the latest recorded start of a smaller shape (see the proof above).
  Time lower_bound(std::int64_t size, Time duration, Time now);

  // planner().earliest_start(size, duration, now), searched from
  // lower_bound(); the answer is recorded for later bounds.
  Time earliest_start(std::int64_t size, Time duration, Time now);

  ByStart reserved;

 private:
  // Forgets the records when they no longer bound the answers (see the
  // proof above).
  void validate(Time now);

  Planner planner_;
  StartBound bound_;
  std::uint64_t bound_additions_ = 0;  // planner_.additions() when the records began
  Time bound_now_ = 0;                 // the latest `now` asked since then
  bool bound_empty_ = true;            // no record since the last reset
};

}  // namespace los
