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
// query's, found in a 2-D Fenwick tree over size and duration buckets (2^b
// per power of two): a recorded shape counts when both its buckets are below
// the query's (so its size and duration are strictly smaller). O(log^2 B)
// per query and per record, B buckets up to sizes and durations of 3 x 2^23
// (25 million units or seconds, 291 days): 179 for the default b = 3, 48
// for b = 1. A larger one is not recorded (the largest start of fewer
// records is still a bound) and, in a query, lies above every bucket. Finer
// buckets bound more queries more tightly and cost more cells per record and
// query: b = 3 against b = 1 made a fresh plan of 100,000 jobs on 10,000
// nodes 0.58-0.66x as long and conservative's resync there 0.6-0.73x, and
// changed no simulation's time measurably (docs/benchmarks.md, fourteenth
// session).
// The owner must reset() whenever the profile gained units
// (Planner::additions() changed) or was rebuilt.
#pragma once

#include <cstdint>
#include <vector>

#include "model/job.hpp"
#include "planner/planner.hpp"

namespace los {

class StartBound {
 public:
  // 2^octave_bits buckets per power of two (1 to 4).
  static constexpr int kOctaveBits = 3;
  // Two per power of two: a 38 KB tree instead of 518 KB, for an owner that
  // keeps many bounds (the gang family's rows: two per row, where the finer
  // trees cost a resync at 5,000 pending jobs 10 % more than they saved).
  static constexpr int kCoarseOctaveBits = 1;
  explicit StartBound(int octave_bits = kOctaveBits);

  // Forget every recorded start.
  void reset();

  // The largest recorded start of a shape with smaller size and duration;
  // the minimum Time when none.
  Time lower(std::int64_t size, Time duration) const;

  // A search for (size, duration) found `start`.
  void record(std::int64_t size, Time duration, Time start);

  // Records, from one pass over `profile`, the earliest start of the
  // largest size of every bucket below `max_size`'s, for every duration at
  // which that start changes (for a size w, a job of duration d starts first
  // where the first run of at least w free units that lasts d begins: a step
  // function of d that rises only at a run longer than all before it). Exact
  // starts in the profile as it is, so bounds as record() gives them, and
  // the tightest this tree can hold: lower(size, duration) is then the
  // earliest start of (the largest size, the largest duration) of the
  // buckets below the query's. O(P + B log^2 B) for P breakpoints. After
  // the profile gained units a re-plan's first insertions would each walk
  // the plan from now (hundreds of rounds in a fragmented plan).
  void seed(const Planner& profile, std::int64_t max_size);

  // The bucket of x with 2^bits buckets per power of two. bits = 1: 0 for
  // 1, then 2-3 -> 1, 2; 4-5 -> 3, 6-7 -> 4; ... Nondecreasing; a value in a
  // lower bucket is smaller. Buckets from buckets(bits) on (values from
  // 3 x 2^23) are beyond the tree.
  static int bucket(std::int64_t x, int bits);
  static int buckets(int bits) { return bucket(std::int64_t{3} << 23, bits); }
  // The least value of bucket b: bucket(lower_edge(b, bits), bits) == b.
  static std::int64_t lower_edge(int b, int bits);

 private:
  struct Cell {
    Time start;
    std::uint32_t epoch;
  };
  int bits_;
  int buckets_;              // buckets(bits_)
  std::vector<Cell> cells_;  // (buckets_ + 1)^2, 1-based Fenwick; lazily made
  std::uint32_t epoch_ = 1;
};

}  // namespace los
