// One compression pass over a plan of holders that visits only the holders
// that could move: conservative backfilling's (policies/backfilling.cpp) and
// the gang rows' (policies/gang_row_plan.cpp). Each caller moves a holder in
// its own way (`move`) and reindexes the moved ones after the pass; the
// proofs that the pass makes the same moves, in the same order, as visiting
// every holder are in policies/backfilling.hpp and policies/gang_row_plan.hpp.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "model/job.hpp"
#include "planner/gain_reach.hpp"
#include "planner/holder_index.hpp"
#include "planner/planner.hpp"
#include "planner/start_bound.hpp"

namespace los {

// Where a pass stopped early: the next holder it would have visited has a
// key at or after (start, order).
struct CompressionCursor {
  Time start;
  std::int64_t order;
};

// How a pass ended: complete, or stopped (by may_search) before `resume`.
struct CompressionPass {
  bool complete = true;
  CompressionCursor resume{};
};

// Visits, in order of reserved start, the holders of `holders` that the units
// gained since the last pass (the planner's gain log) could let start earlier,
// searches each one's earliest start before its reserved one, and calls
// move(holder, start) for each that can start earlier. `move` must move the
// holder's span in `planner` and must not touch `holders` (the index keeps a
// moved holder's old entry until the caller reindexes after the pass: it sits
// at a visited key, which the search never goes back to, and its old start
// only loosens the subtree bounds, which stay lower bounds). `visited` is
// scratch, reused to keep its memory.
//
// Resumable: with `from`, only the holders with keys at or after it are
// visited; may_search() is asked before each search, and a false stops the
// pass there and returns where to resume. A stopped pass leaves a valid plan
// that is not yet a fixpoint: the caller keeps the gain log and resumes
// (planner/compression_sweep.hpp has why that is sound). The overload without
// them below is the whole pass.
template <class Move, class MaySearch>
CompressionPass compress_indexed(const Planner& planner, const HolderIndex& holders, StartBound& visited, Time now,
                                 const CompressionCursor* from, MaySearch&& may_search, Move&& move) {
  GainReach gained(planner, now);
  if (gained.empty()) return {};  // nothing gained: the plan is still a fixpoint
  // Each move adds a gained interval, and the bound re-reads them all after
  // every move: once they are many, visiting the remaining holders one by one
  // (what the full scan does, so the same moves) is cheaper.
  constexpr std::size_t kMostGainedIntervals = 8;
  bool bounded = true;
  const auto may_hold = [&](const HolderIndex::Bounds& b) {
    return !bounded || std::min(b.start, saturating_end(now, b.duration)) <= gained.reach(b.size);
  };
  const auto accept = [&](const HolderIndex::Holder& h) {
    if (!bounded) return h.start > now;
    return h.start > now && h.start > gained.first_gain() &&
           std::min(h.start, saturating_end(now, h.duration)) <= gained.reach(h.size);
  };
  // Visited in order of reserved start, as a full scan would: a holder that
  // moves goes before the visited key, so the rest keep their order.
  //
  // `visited` bounds each search from below. Let h' (size k', duration d',
  // reserved at r') be visited before h (k >= k', d >= d', r >= r'), its
  // search answering s' <= r'. If h could start at some s < s' now, its
  // window [s, min(s + d, r)) has k free units throughout; so h' fits now at
  // s: its window [s, min(s + d', r')) lies inside, and needs fewer units.
  // Since h' was searched, the profile gained units only through moves of
  // holders visited after h' (and h' itself): each gives back units only
  // from its old start on, at or after r'. The window of h' lies before r',
  // so it had at least as many free units then, and h' would have found
  // s < s'. Hence h's earliest start before r is >= s', and searching from
  // s' finds the same answer (or r when there is none).
  visited.reset();
  HolderIndex::Walk walk;
  if (from != nullptr) holders.seek(walk, from->start, from->order);
  while (const HolderIndex::Holder* found = holders.next(walk, may_hold, accept)) {
    const HolderIndex::Holder h = *found;
    if (!may_search()) return {false, {h.start, h.order}};
    // A start that became possible lies before gained.reach(size) (the
    // window holds a gained point q with >= size units free, and s <= q <
    // reach: GainReach): the search stops there instead of at h.start.
    const Time s = planner.earliest_start(h.size, h.duration, std::max(now, visited.lower(h.size, h.duration)), h.start,
                                          bounded ? gained.reach(h.size) : kTimeInfinity);
    visited.record(h.size, h.duration, s);
    if (s >= h.start) continue;
    move(h, s);
    if (!bounded) continue;
    // The move changed the profile on [s, s + d) and [old start, old end) only.
    gained.refresh(s, saturating_end(h.start, h.duration));
    bounded = gained.intervals() <= kMostGainedIntervals;
  }
  return {};
}

template <class Move>
void compress_indexed(const Planner& planner, const HolderIndex& holders, StartBound& visited, Time now, Move&& move) {
  compress_indexed(planner, holders, visited, now, nullptr, [] { return true; }, std::forward<Move>(move));
}

}  // namespace los
