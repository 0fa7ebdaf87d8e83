// The planner: an availability profile of one partition.
//
// The profile is a step function free(t): how many allocation units are free
// from t on, given the running jobs' expected ends and the reservations made.
// It is the core of EASY, conservative and depth-k backfilling, LOS's shadow
// time, tabu's plan and SA's availability list.
//
// Representation: the breakpoints of the step function in a treap keyed by
// time, each node holding the free units of the segment [key, next key). Every
// node also keeps the minimum and maximum free value of its subtree and a
// pending addition for it (lazy propagation), so that
//   - reserve / release of [a, b) is O(log P): split, add, merge;
//   - earliest_start jumps from one infeasible block to the next with two
//     O(log P) descents ("first breakpoint after x with free >= size", "first
//     breakpoint after x with free < size") instead of walking the profile.
// P is the number of breakpoints; adjacent segments with equal free values
// are merged so P stays at most 2 x (running jobs + reservations) + 1.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "model/job.hpp"

namespace los {

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
  // A profile with `capacity` units free from `origin` on.
  explicit Planner(std::int64_t capacity = 0, Time origin = 0);

  std::int64_t capacity() const { return capacity_; }
  Time origin() const { return origin_; }

  // Free units at time t (t >= origin).
  std::int64_t free_at(Time t) const;

  // Minimum free units over [a, b) (a < b, a >= origin).
  std::int64_t min_free(Time a, Time b) const;

  // The earliest s >= not_before such that free >= size throughout
  // [s, s + duration). Returns kTimeInfinity when no such s exists (size above
  // the free units the profile ever reaches).
  //
  // With a horizon, the window is cut at the horizon: the answer is the
  // earliest s in [not_before, horizon) with free >= size on
  // [s, min(s + duration, horizon)), or `horizon` if there is none. This asks
  // "can the job start before `horizon`?" in one pass; conservative
  // compression uses it with the job's own reservation still in place.
  Time earliest_start(std::int64_t size, Time duration, Time not_before,
                      Time horizon = kTimeInfinity) const;

  // Take `size` units over [start, start + duration). Throws std::logic_error
  // if that would drive the free units below zero anywhere: a reservation
  // never overbooks.
  void reserve(Time start, Time duration, std::int64_t size);

  // Give back what reserve() took.
  void release(Time start, Time duration, std::int64_t size);

  // Adds `delta` units to free over [a, b), unchecked. b may be kTimeInfinity.
  void add(Time a, Time b, std::int64_t delta);

  // Forget the profile before t: the origin moves to t (t >= origin).
  void advance_to(Time t);

  // The availability list: maximal segments of equal free units, in time
  // order, from the origin to kTimeInfinity.
  std::vector<AvailabilitySlot> slots() const;

  // Number of breakpoints (segments) in the profile.
  std::size_t size() const { return count_; }

 private:
  using Index = std::int32_t;
  static constexpr Index kNil = -1;

  struct Node {
    Time key;
    std::int64_t value;  // free units on [key, next key)
    std::int64_t lo;     // min value in subtree
    std::int64_t hi;     // max value in subtree
    std::int64_t lazy;   // pending addition for the children
    std::uint32_t prio;
    Index left;
    Index right;
  };

  Index make_node(Time key, std::int64_t value);
  void free_tree(Index t);
  void apply(Index t, std::int64_t delta) const;
  void push(Index t) const;
  void pull(Index t);
  void split(Index t, Time key, Index& l, Index& r);  // l: keys < key
  Index merge(Index l, Index r);
  Index rightmost(Index t) const;
  Index leftmost(Index t) const;
  Index pop_leftmost(Index t, Index& popped);
  // Node with the largest key <= t, or kNil.
  Index floor_node(Time t) const;
  // Smallest key > x whose value satisfies (value >= size) when want_at_least,
  // else (value < size); kTimeInfinity when none.
  Time first_after(Time x, std::int64_t size, bool want_at_least) const;
  Time first_after(Index t, Time x, std::int64_t size, bool want_at_least) const;
  // Largest key < hi whose value is below size; the minimum Time when none.
  Time last_short_before(Time hi, std::int64_t size) const;
  void ensure_breakpoint(Time t);
  void collect(Index t, std::vector<AvailabilitySlot>& out) const;

  // The tree is logically const during queries, but pushing pending
  // additions down rewrites nodes: an implementation detail, hence mutable.
  mutable std::vector<Node> nodes_;
  mutable std::vector<Index> path_scratch_;  // first_after's search path, reused
  std::vector<Index> free_list_;
  Index root_ = kNil;
  std::size_t count_ = 0;
  std::int64_t capacity_;
  Time origin_;
  std::minstd_rand rng_;  // treap priorities; fixed seed, deterministic
};

}  // namespace los
