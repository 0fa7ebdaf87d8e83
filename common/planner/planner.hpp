// The planner: an availability profile of one partition.
//
// The profile is a step function free(t): how many allocation units are free
// from t on, given the running jobs' expected ends and the reservations made.
// It is the core of EASY, conservative and depth-k backfilling, LOS's shadow
// time, tabu's plan and SA's availability list.
//
// Representation: the breakpoints of the step function in a treap keyed by
// time, each node holding the change of free units at its key (the free
// units of a segment are the sum of the changes up to it). Every node also
// keeps its subtree's sum of changes and the least and greatest partial sum
// within it, so that
//   - reserve / release of [a, b) is O(log P): a point update at a and at b,
//     one descent each; queries only read;
//   - earliest_start walks the breakpoints after x in order but skips every
//     subtree whose bounds say it holds only segments with enough units
//     (while a candidate start is open) or only short ones (while none is):
//     it visits the changes between short and long enough stretches, not
//     every segment; past a budget of visits it jumps instead, with two
//     O(log P) descents per candidate ("first breakpoint with free >= size",
//     "last breakpoint in the window with free < size").
// P is the number of breakpoints; a change of 0 is no breakpoint (adjacent
// segments with equal free values are one), so P stays at most
// 2 x (running jobs + reservations) + 1.
//
// A reservation is a span with a handle (SpanId), as Flux-sched's planner
// hands out span ids: the holder keeps the handle and gives it back to
// release(), instead of carrying (start, duration, size) around.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <utility>
#include <vector>

#include "model/job.hpp"

namespace los {

// start + duration, kTimeInfinity when that overflows it.
inline Time saturating_end(Time start, Time duration) {
  return duration >= kTimeInfinity - start ? kTimeInfinity : start + duration;
}

// One segment of the availability list: `free` units from `start` to `end`.
// The last segment of a profile ends at kTimeInfinity.
struct AvailabilitySlot {
  Time start;
  Time end;
  std::int64_t free;
  bool operator==(const AvailabilitySlot&) const = default;
};

class Planner {
 public:
  // The handle of a reservation. A default SpanId names no span. A handle
  // outlives its span harmlessly: once the span is released or has ended
  // before the origin, release() ignores it (the generation tells a reused
  // slot from the span the handle was given for).
  struct SpanId {
    std::uint32_t slot = std::numeric_limits<std::uint32_t>::max();
    std::uint32_t generation = 0;
    bool operator==(const SpanId&) const = default;
  };

  // A profile with `capacity` units free from `origin` on.
  explicit Planner(std::int64_t capacity = 0, Time origin = 0);

  // Becomes Planner(capacity, origin), keeping the memory it holds (a
  // profile rebuilt from a plan again and again reuses its nodes' storage).
  void reset(std::int64_t capacity, Time origin);

  std::int64_t capacity() const { return capacity_; }
  Time origin() const { return origin_; }

  // Free units at time t (t >= origin).
  std::int64_t free_at(Time t) const;

  // Minimum free units over [a, b) (a < b, a >= origin).
  std::int64_t min_free(Time a, Time b) const;
  // Maximum free units over [a, b) (a < b, a >= origin).
  std::int64_t max_free(Time a, Time b) const;

  // The first breakpoint after x at which free drops below `size`:
  // kTimeInfinity when free stays at or above it. With free(x) >= size, this
  // is where the run of at least `size` free units through x ends.
  Time first_short_after(Time x, std::int64_t size) const { return first_after(x, size, false); }

  // The earliest s >= not_before such that free >= size throughout
  // [s, s + duration). Returns kTimeInfinity when no such s exists (size above
  // the free units the profile ever reaches).
  //
  // With a horizon, the window is cut at the horizon: the answer is the
  // earliest s in [not_before, horizon) with free >= size on
  // [s, min(s + duration, horizon)), or `horizon` if there is none. This asks
  // "can the job start before `horizon`?" in one pass; conservative
  // compression uses it with the job's own reservation still in place.
  //
  // With `start_before` (<= horizon), only starts before it are candidates:
  // the answer is the earliest such s, or `horizon` if there is none. A
  // caller that knows no start in [start_before, horizon) can be the answer
  // (conservative compression: a start that became possible must lie before
  // where the gained units reach, planner/gain_reach.hpp) saves the search
  // of that stretch, which is where a search that finds nothing spends it.
  Time earliest_start(std::int64_t size, Time duration, Time not_before, Time horizon = kTimeInfinity,
                      Time start_before = kTimeInfinity) const;

  // Take `size` units over [start, start + duration) and return the span's
  // handle (no span when size or duration is not positive). Throws
  // std::logic_error if that would drive the free units below zero
  // anywhere: a reservation never overbooks.
  SpanId reserve(Time start, Time duration, std::int64_t size);

  // Give back what reserve() took (from the origin on, if the span began
  // before it). A handle of no live span is ignored.
  void release(SpanId span);

  // release(span) then reserve(start, duration, size), with the same effect
  // (profile, handle, gain log, additions, the exception) but one descent
  // to where the (up to four) changed breakpoints part instead of two from
  // the root: compression moves a holder's span hundreds of thousands of
  // times in a long run.
  SpanId move(SpanId span, Time start, Time duration, std::int64_t size);

  // Number of live spans (reserved, not released, not ended before the
  // last sweep of the origin).
  std::size_t spans() const { return live_spans_; }

  // Adds `delta` units to free over [a, b), unchecked. b may be kTimeInfinity.
  void add(Time a, Time b, std::int64_t delta);

  // One add(a, b, delta).
  struct RangeAdd {
    Time a;
    Time b;
    std::int64_t delta;
  };
  // add() of each, with the same profile, additions() and gain log. On a
  // profile without breakpoints (a new one, or one rebuilt from a plan) it
  // sorts the breakpoints (a radix sort: O(P) a pass, 11 bits of the time
  // span each) and builds the tree from them in one pass, where P add()
  // calls make P descents with their rotations (tabu's profile of 100,000
  // reservations: docs/benchmarks.md).
  void add_all(std::span<const RangeAdd> adds);

  // Forget the profile before t: the origin moves to t (t >= origin).
  void advance_to(Time t);

  // The availability list: maximal segments of equal free units, in time
  // order, from the origin to kTimeInfinity.
  std::vector<AvailabilitySlot> slots() const;

  // Number of breakpoints (segments) in the profile.
  std::size_t size() const { return count_ + 1; }

  // The gain log: while on, every addition of units (release(), add() with a
  // positive delta) appends its interval [a, b), cut at the origin. A policy
  // whose plan is a fixpoint (no reservation can move earlier) knows from it
  // where a reservation could move now: only through a point that gained.
  // Off in a new planner; turning it on keeps what is logged.
  void log_gains(bool on) { log_gains_ = on; }
  bool logging_gains() const { return log_gains_; }
  const std::vector<std::pair<Time, Time>>& gains() const { return gains_; }
  void clear_gains() { gains_.clear(); }
  // Appends [a, b) to the gain log (when on) without changing the profile:
  // a caller that clears the log hands back the gains it has still to act on.
  void note_gain(Time a, Time b) {
    if (log_gains_ && a < b) gains_.emplace_back(a, b);
  }

  // How many times units were added (release(), add() with a positive
  // delta), whether or not the gain log is on. While it does not change, the
  // profile has only lost units: an earliest start found earlier is a lower
  // bound of the same query now (see StartBound).
  std::uint64_t additions() const { return additions_; }

 private:
  using Index = std::int32_t;
  static constexpr Index kNil = -1;

  // A breakpoint: free units change by a delta at `key`, never 0 (equal
  // neighbouring segments are one segment). The free units of the segment
  // that begins at a key are base_ plus the deltas of every key up to it
  // (its prefix sum). Each node keeps its subtree's sum of deltas and the
  // least and greatest prefix sum within the subtree, so a range update is
  // two point updates (one descent, no lazy additions to push down) and
  // every query only reads. A node stores its left subtree's sum plus its
  // own delta (`at`), not the delta: a descent then reads no node off its
  // path; the delta is at minus the left subtree's sum.
  struct Node {
    Time key;
    std::int64_t at;   // the left subtree's deltas and its own: its value, less the free units before the subtree
    std::int64_t sum;  // sum of the subtree's deltas
    std::int64_t lo;   // least prefix sum within the subtree, through one of its keys
    std::int64_t hi;   // greatest
    std::uint32_t prio;
    Index left;
    Index right;
  };

  Index make_node(Time key, std::int64_t delta);
  void free_tree(Index t);
  // Recomputes t's at, sum and bounds from its children, with `delta` its
  // own change (read it with delta_of before a child changes).
  void pull(Index t, std::int64_t delta);
  std::int64_t sum_of(Index t) const { return t == kNil ? 0 : nodes_[t].sum; }
  std::int64_t delta_of(Index t) const { return nodes_[t].at - sum_of(nodes_[t].left); }
  void split(Index t, Time key, Index& l, Index& r);  // l: keys < key
  Index merge(Index l, Index r);
  // Adds `delta` to the change at `key` (> origin): a new breakpoint where
  // there was none, none where the change comes to 0.
  Index add_at(Index t, Time key, std::int64_t delta);
  // add_at(key b) then add_at(key a) (a < b), sharing the descent to where
  // their paths part.
  Index add_pair(Index t, Time a, std::int64_t delta_a, Time b, std::int64_t delta_b);
  // A change of free units at a key: what a multi-point update applies.
  struct PointChange {
    Time key;
    std::int64_t delta;
  };
  // The changes p[0..n) (keys ascending, distinct, > origin, deltas not 0):
  // down the path they share, then add_pair / add_at from where they part.
  Index add_points(Index t, const PointChange* p, int n);
  // Makes `child` t's new left (or right) subtree and returns the root of
  // t's subtree: t, or the child when a new node at its root outranks t.
  // `delta`: t's own change (delta_of before the child changed).
  Index reattach(Index t, std::int64_t delta, bool left, Index child);
  // max_free when kMax, else min_free.
  template <bool kMax>
  std::int64_t extreme_free(Time a, Time b) const;
  // Smallest key > x whose value satisfies (value >= size) when want_at_least,
  // else (value < size); kTimeInfinity when none.
  Time first_after(Time x, std::int64_t size, bool want_at_least) const;
  // Fills path_scratch_ with the nodes after x on its search path (node, the
  // free units before its subtree), deepest last; returns the free units at x.
  std::int64_t collect_path_after(Time x) const;
  // earliest_start's walk over the breakpoints in key order. An open
  // candidate start has had at least `size` units free from it on so far;
  // the walk is answered at the first key at or past `limit`: the
  // candidate's window end (cut at the horizon) while one is open, else
  // where candidates end (start_before, at most the horizon). It stops,
  // unanswered, when `budget` visits are spent (budget then negative;
  // last_key the last key it visited).
  struct StartScan {
    std::int64_t size;
    Time duration;
    Time horizon;
    Time start_before;  // <= horizon
    Time candidate;
    bool open;
    Time limit;
    Time last_key;
    int budget;
    void open_at(Time key) {
      open = true;
      candidate = key;
      limit = std::min(saturating_end(key, duration), horizon);
    }
    Time answer() const { return open ? candidate : horizon; }
    // The segment that begins at `key` has `free` units; true when the walk
    // stops (answered, or out of budget).
    bool visit(Time key, std::int64_t free) {
      if (key >= limit) return true;  // the window passed with enough units, or the horizon came
      if (--budget < 0) return true;
      last_key = key;
      if (open) {
        if (free < size) {
          open = false;
          limit = start_before;
        }
      } else if (free >= size) {
        open_at(key);
      }
      return false;
    }
  };
  // Visits of the walk before the rounds take over (docs/benchmarks.md,
  // "earliest start", issue 17).
  static constexpr int kWalkBudget = 600;
  // Visits subtree t's segments in key order (`before`: the free units
  // before its first key; t not kNil), skipping what cannot change the
  // state; true when the walk stops.
  bool scan_subtree(StartScan& scan, Index t, std::int64_t before) const;
  // The rounds: from x (x_short: x is a breakpoint whose segment is short),
  // a candidate where enough units are free, then past the last short point
  // of its window, until one fits.
  Time start_by_rounds(std::int64_t size, Time duration, Time x, bool x_short, Time horizon, Time start_before) const;
  // Largest breakpoint < hi (the origin counts) whose segment has fewer than
  // size units; the minimum Time when none.
  Time last_short_before(Time hi, std::int64_t size) const;
  // Adds delta over [a, b) (a >= origin, a < b), unchecked; `count`: a
  // positive delta counts in additions() and the gain log.
  void shift(Time a, Time b, std::int64_t delta, bool count);
  Index erase_key(Index t, Time key);
  void collect(Index t, std::int64_t before, std::vector<AvailabilitySlot>& out) const;

  struct Span {
    Time start;
    Time end;  // kTimeInfinity for an unbounded span
    std::int64_t size;
    std::uint32_t generation;
    bool live;
  };
  // The slot for a new span: a released one, else a new one. Spans whose
  // holders never release them (a reservation that became a running job,
  // whose units its new owner gives back with add()) are reclaimed once
  // they end before the origin, swept when the table has doubled.
  std::uint32_t take_span_slot();
  void sweep_ended_spans();

  std::vector<Node> nodes_;
  // add_all's breakpoints and its sort's second buffer; empty between calls
  std::vector<PointChange> points_scratch_;
  std::vector<PointChange> sort_scratch_;
  // first_after's, last_short_before's and earliest_start's search path
  // (node, free units before its subtree), reused
  mutable std::vector<std::pair<Index, std::int64_t>> path_scratch_;
  std::vector<Index> free_list_;
  Index root_ = kNil;
  std::size_t count_ = 0;  // breakpoints after the origin
  std::int64_t base_;      // free units from the origin to the first breakpoint
  std::int64_t capacity_;
  Time origin_;
  std::vector<Span> spans_;
  std::vector<std::uint32_t> free_spans_;
  std::size_t live_spans_ = 0;
  std::size_t sweep_at_ = kFirstSweep;
  static constexpr std::size_t kFirstSweep = 64;
  std::minstd_rand rng_;  // treap priorities; fixed seed, deterministic
  bool log_gains_ = false;
  std::vector<std::pair<Time, Time>> gains_;
  std::uint64_t additions_ = 0;
};

}  // namespace los
