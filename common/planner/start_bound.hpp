// Lower bounds for earliest starts in a profile that only loses units.
//
// Conservative backfilling inserts thousands of reservations one after the
// other (a re-plan after a resync, the queue pass): each Planner::earliest_start
// walks the plan from now, block by block, to where the job fits. Between two
// insertions the profile only loses units (reserve, a start), so:
//   if a job of (size', duration') had its earliest start at s' in an earlier
//   profile, a job of (size >= size', duration >= duration') has its earliest
//   start at s >= s' now: a window that fits the larger job now fits the
//   smaller one now, hence in the earlier profile, which had at least as many
//   free units everywhere.
// The search may then start at s' instead of now and finds the same start
// (earliest_start(.., not_before) returns the earliest start >= not_before,
// which is the earliest start when that is >= not_before).
//
// The bound is the largest start recorded for a shape dominated by the
// query's, found in a 2-D Fenwick tree over size and duration buckets (two
// per power of two): a recorded shape counts when both its buckets are below
// the query's (so its size and duration are strictly smaller). O(log^2 B) per
// query and per record, B = 48 buckets: sizes and durations below 3 x 2^23
// (25 million units or seconds, 291 days). A larger one is not recorded (the
// largest start of fewer records is still a bound) and, in a query, lies
// above every bucket. The tree is no larger than that because a record walks
// up to its last index: 48 keeps it to 2-4 cells per axis at the sizes and
// estimates of real machines (128 took 5-7). The owner must reset() whenever
// the profile gained units (Planner::additions() changed) or was rebuilt.
#pragma once

#include <cstdint>
#include <vector>

#include "model/job.hpp"

namespace los {

class StartBound {
 public:
  // Forget every recorded start.
  void reset();

  // The largest recorded start of a shape with smaller size and duration;
  // the minimum Time when none.
  Time lower(std::int64_t size, Time duration) const;

  // A search for (size, duration) found `start`.
  void record(std::int64_t size, Time duration, Time start);

  // 0 for 1, then two buckets per power of two: 2-3 -> 1, 2; 4-5 -> 3, 6-7 -> 4;
  // ... Nondecreasing; a value in a lower bucket is smaller. Buckets from
  // kBuckets on (values from 3 x 2^23) are beyond the tree.
  static int bucket(std::int64_t x);
  static constexpr int kBuckets = 48;

 private:
  struct Cell {
    Time start;
    std::uint32_t epoch;
  };
  std::vector<Cell> cells_;  // (kBuckets + 1)^2, 1-based Fenwick; lazily made
  std::uint32_t epoch_ = 1;
};

}  // namespace los
