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
//
// Compression (compress()): conservative's, inside the row, visiting only
// the holders that could move. Holders are revisited in order of reserved
// start (start, creation order) and each moves to its earliest start if that
// is earlier. The full scan (Compression::FullScan, the reference the tests
// compare with) asks every holder; the indexed pass asks only those the
// HolderIndex cannot rule out with GainReach (planner/gain_reach.hpp), the
// same way and by the same proof as conservative's (policies/backfilling.hpp
// and planner/indexed_compression.hpp). That proof needs one invariant: every
// holder h (size k, duration d, reserved at r > now) is at a fixpoint up to
// the gain log: there was a moment after which every addition of units to
// the row is in planner().gains(), and at that moment no s in [now, r) had
// k free units throughout [s, min(s + d, r)). It holds because
//   - the gain log is on from the construction and from every restart()
//     (then the profile has no holder), and is cleared only when a
//     compress() ends (one a step's budget stopped keeps it and goes on at
//     the next call: planner/compression_sweep.hpp); units come back to a row only by release() and add(), and
//     both are logged (Planner::log_gains);
//   - a holder is reserved at its earliest start s0 (the owner's duty:
//     earliest_start(), or a search that gives the same answer): had some
//     s < s0 k units free on [s, min(s + d, s0)), then, as [s0, s0 + d) has
//     them too, [s, s + d) would, and s0 would not be the earliest;
//   - a compress() leaves every holder at a fixpoint (then the log is
//     cleared). A holder visited either found no earlier start, or moved
//     from r to its earliest start s: then for s'' < s the window
//     [s'', min(s'' + d, r)) lacked k units somewhere, not from s on (that
//     part lies in [s, min(s + d, r)), which had them), so before s; the
//     move changed the profile only from s on, so [s'', min(s'' + d, s))
//     still lacks them. Later in the pass units come back only by moves of
//     holders visited after it, each from its old start on, which is >= the
//     visited holder's start: outside its window. The indexed pass makes
//     the full scan's moves, so this holds for the holders it skips too;
//   - units taken (reserve(), negative add()) and `now` moving on never
//     make a holder able to move earlier.
// With no gain log (log_gains(false) by hand) compress() scans in full.
// Cost per pass: O((moves + 1) x log n) plus the holders the bound cannot
// rule out, instead of O(n x log n) for n holders.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "model/job.hpp"
#include "planner/compression_sweep.hpp"
#include "planner/holder_index.hpp"
#include "planner/planner.hpp"
#include "planner/start_bound.hpp"
#include "policy/step_budget.hpp"

namespace los {

class GangRowPlan {
 public:
  // How compress() finds the holders to revisit: Indexed (the default)
  // skips those that cannot move; FullScan asks every one (the reference).
  enum class Compression { Indexed, FullScan };
  // A holder compress() moved earlier, from its reserved start `from`.
  struct Move {
    JobId id;
    Time from;
    Time to;
  };
  // The holder's span in planner(), which compress() replaces when it moves.
  using SpanOf = std::function<Planner::SpanId&(JobId)>;

  GangRowPlan(std::int64_t capacity, Time origin) : planner_(capacity, origin) { planner_.log_gains(true); }

  Planner& planner() { return planner_; }
  const Planner& planner() const { return planner_; }

  // A fresh profile: `capacity` units free from `origin` on (the bound is
  // forgotten; the reservations are the caller's to re-plan or clear), its
  // gain log on.
  void restart(std::int64_t capacity, Time origin);

  // Each holder, in order of reserved start, moves to its earliest start
  // from `now` if that is earlier (holders reserved at or before `now`
  // stay); the index follows. Returns the moves in the order made (valid
  // until the next call); clears the gain log. With a budget (Indexed only)
  // the pass stops when budget->take() refuses a search, keeping the gain
  // log, and the next call goes on where it stopped
  // (planner/compression_sweep.hpp): sweeping() until it ends.
  const std::vector<Move>& compress(Time now, const SpanOf& span_of, Compression how = Compression::Indexed,
                                    StepBudget* budget = nullptr);
  // A compression the budget stopped is still to finish.
  bool sweeping() const { return sweep_.active(); }

  // A lower bound of planner().earliest_start(size, duration, now), >= now:
  // the latest recorded start of a smaller shape (see the proof above).
  Time lower_bound(std::int64_t size, Time duration, Time now);

  // planner().earliest_start(size, duration, now), searched from
  // lower_bound(); the answer is recorded for later bounds.
  Time earliest_start(std::int64_t size, Time duration, Time now);

  // The row's reservations, by (start, creation order): the owner inserts
  // and erases them with the planner's spans.
  HolderIndex reserved;

 private:
  // Forgets the records when they no longer bound the answers (see the
  // proof above).
  void validate(Time now);
  void compress_full_scan(Time now, const SpanOf& span_of);
  // Moves a holder's span from h.start to s; the index is updated by
  // reindex_moved() at the end of the pass.
  void move_span(const HolderIndex::Holder& h, Time s, const SpanOf& span_of);
  void reindex_moved();

  Planner planner_;
  StartBound bound_{StartBound::kCoarseOctaveBits};
  std::uint64_t bound_additions_ = 0;                  // planner_.additions() when the records began
  Time bound_now_ = 0;                                 // the latest `now` asked since then
  bool bound_empty_ = true;                            // no record since the last reset
  std::vector<Move> moves_;                            // compress()'s answer, reused
  std::vector<HolderIndex::Holder> moved_;             // the moved holders' old entries, in pass order
  StartBound visited_{StartBound::kCoarseOctaveBits};  // compress()'s bound within a pass, reused
  CompressionSweep sweep_;                             // a compression the budget stopped
};

}  // namespace los
