// The units of a partition as a multiset of "free from" times: the list
// representation of a conservative plan (spec fairness-tabu.md, 2.2).
//
// A plan is a list of waiting jobs; placing them in list order, each takes
// the `size` units that are free first. Its start is the size-th smallest
// free time, and those units are free again at its end. Replaying the list
// this way is the compression that keeps the order of starts: starts never
// decrease along the list, and removing a job or freeing units early can
// only move later jobs earlier.
//
// The values are bucketed (time, units), ascending; many units share a free
// time. With B buckets, kth() is O(B) and place() O(B) moves at worst, both
// a few dozen nanoseconds for the B of real partitions (a bucket per
// running or recently placed job). Copies reuse their storage.
#pragma once

#include <cstdint>
#include <vector>

#include "model/job.hpp"

namespace los {

class FreeAt {
 public:
  // All `capacity` units free from `now`.
  void reset(std::int64_t capacity, Time now);
  // `units` of the free ones become free only at `until` (a running job's
  // expected end). Call after reset(), before the first place().
  void hold(std::int64_t units, Time until);

  // Total units.
  std::int64_t capacity() const { return capacity_; }
  // Distinct free times held.
  std::size_t buckets() const { return buckets_.size() - head_; }
  // The k-th smallest free time: when k units are free (kTimeInfinity if
  // k exceeds the capacity).
  Time kth(std::int64_t k) const;
  // kth(a), kth(b) and kth(a + b) in one walk.
  struct KthOfTwo {
    Time a, b, sum;
  };
  KthOfTwo kth_of_two(std::int64_t a, std::int64_t b) const;
  // Units free at or before `t` (kth(k) <= t exactly when k <= units_by(t),
  // for k >= 1).
  std::int64_t units_by(Time t) const;
  // The k units free first are taken and become free at `end`.
  void place(std::int64_t k, Time end);

  // Copy of `other`, reusing this object's storage.
  void assign(const FreeAt& other);

 private:
  struct Bucket {
    Time at;
    std::int64_t units;
  };
  void add(Time at, std::int64_t units);

  std::vector<Bucket> buckets_;  // ascending by time from head_; no empty bucket
  std::size_t head_ = 0;
  std::int64_t capacity_ = 0;
};

}  // namespace los
