// StartBound: the dominance bound that conservative's insertions and
// compression searches start from. Its buckets must order sizes strictly, its
// bound must be the largest recorded start of a strictly smaller shape in
// lower buckets, and searching from it must give the plain search's answer.
#include "planner/start_bound.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <vector>

#include "planner/planner.hpp"

namespace los {
namespace {

TEST(StartBound, BucketsAreMonotoneAndStrict) {
  EXPECT_EQ(StartBound::bucket(1, 1), 0);
  EXPECT_EQ(StartBound::bucket(2, 1), 1);
  EXPECT_EQ(StartBound::bucket(3, 1), 2);
  EXPECT_EQ(StartBound::bucket(4, 1), 3);
  EXPECT_EQ(StartBound::bucket(6, 1), 4);
  EXPECT_EQ(StartBound::bucket(7, 3), 6);  // up to 2^4 one value a bucket
  EXPECT_EQ(StartBound::bucket(8, 3), 7);
  EXPECT_EQ(StartBound::bucket(15, 3), 14);
  EXPECT_EQ(StartBound::bucket(16, 3), 15);  // then 8 buckets per power of two
  EXPECT_EQ(StartBound::bucket(17, 3), 15);
  EXPECT_EQ(StartBound::bucket(18, 3), 16);
  EXPECT_EQ(StartBound::buckets(1), 48);
  EXPECT_EQ(StartBound::buckets(3), 179);
  for (int bits = 1; bits <= 4; ++bits) {
    // Nondecreasing, and 2^bits buckets per power of two.
    std::int64_t prev = 1;
    for (std::int64_t x = 2; x < 5000; ++x) {
      ASSERT_GE(StartBound::bucket(x, bits), StartBound::bucket(prev, bits)) << x;
      ASSERT_LE(StartBound::bucket(x, bits), StartBound::bucket(prev, bits) + 1) << x;
      prev = x;
    }
    EXPECT_EQ(StartBound::bucket(4096, bits) - StartBound::bucket(2048, bits), 1 << bits);
    // Sizes and estimates of real machines lie inside the tree; the largest value has a bucket too.
    EXPECT_EQ(StartBound::bucket((std::int64_t{3} << 23) - 1, bits), StartBound::buckets(bits) - 1);
    EXPECT_EQ(StartBound::bucket(std::int64_t{3} << 23, bits), StartBound::buckets(bits));
    EXPECT_GE(StartBound::bucket(std::numeric_limits<std::int64_t>::max(), bits), StartBound::buckets(bits));
  }
}

TEST(StartBound, LowerIsTheLatestStartOfAShapeInLowerBuckets) {
  for (const int bits : {1, StartBound::kOctaveBits}) {
    std::mt19937_64 rng(7);
    StartBound bound(bits);
    struct Rec {
      std::int64_t size;
      Time duration;
      Time start;
    };
    std::vector<Rec> recs;
    for (int round = 0; round < 2000; ++round) {
      if (rng() % 50 == 0) {
        bound.reset();
        recs.clear();
      }
      // Now and then a shape beyond the tree: never counted, and above every counted one.
      const std::int64_t size = rng() % 40 == 0 ? (std::int64_t{3} << 23) + static_cast<std::int64_t>(rng() % 1000)
                                                : 1 + static_cast<std::int64_t>(rng() % 300);
      const Time duration = rng() % 40 == 0 ? (Time{1} << 40) : 1 + static_cast<Time>(rng() % 100000);
      Time expect = std::numeric_limits<Time>::min();
      const auto b = [bits](std::int64_t x) { return StartBound::bucket(x, bits); };
      const auto inside = [&](std::int64_t x) { return b(x) < StartBound::buckets(bits); };
      for (const Rec& r : recs) {
        if (inside(r.size) && inside(r.duration) && b(r.size) < b(size) && b(r.duration) < b(duration)) {
          expect = std::max(expect, r.start);
        }
      }
      ASSERT_EQ(bound.lower(size, duration), expect) << "bits " << bits << ", round " << round;
      const Time start = static_cast<Time>(rng() % 1000000);
      bound.record(size, duration, start);
      recs.push_back({size, duration, start});
    }
  }
}

// Insertions as conservative makes them (the profile only loses units
// between searches): searching from the bound finds the plain search's start.
TEST(StartBound, InsertionsFromTheBoundFindThePlainStarts) {
  std::mt19937_64 rng(11);
  int searches = 0;
  int bounded = 0;  // searches the bound started after now
  for (int round = 0; round < 200; ++round) {
    const std::int64_t cap = 4 + static_cast<std::int64_t>(rng() % 60);
    Planner p(cap, 0);
    StartBound bound(round % 2 == 0 ? 1 : StartBound::kOctaveBits);
    const Time now = static_cast<Time>(rng() % 50);
    for (int k = 0; k < 60; ++k) {
      const std::int64_t size = 1 + static_cast<std::int64_t>(rng() % cap);
      const Time dur = 1 + static_cast<Time>(rng() % 400);
      const Time plain = p.earliest_start(size, dur, now);
      const Time lower = bound.lower(size, dur);
      bounded += lower > now;
      const Time from_bound = p.earliest_start(size, dur, std::max(now, lower));
      ASSERT_EQ(from_bound, plain) << "round " << round << " insertion " << k;
      bound.record(size, dur, plain);
      p.reserve(plain, dur, size);
      ++searches;
    }
  }
  EXPECT_EQ(searches, 200 * 60);
  EXPECT_GT(bounded, 2000);
}

// seed() after gains: the bound is the earliest start of the largest shape
// of the buckets below the query's, exactly, and searching from it gives the
// plain start.
TEST(StartBound, ASeedFromTheProfileIsTheTightestBound) {
  std::mt19937_64 rng(13);
  int queries = 0;
  int bounded = 0;  // the seed's bound lay after now
  for (int round = 0; round < 120; ++round) {
    const int bits = round % 2 == 0 ? 1 : StartBound::kOctaveBits;
    const std::int64_t cap = 4 + static_cast<std::int64_t>(rng() % 120);
    const Time now = static_cast<Time>(rng() % 50);
    Planner p(cap, now);
    std::vector<Planner::SpanId> spans;
    for (int k = 0; k < 80; ++k) {
      const std::int64_t size = 1 + static_cast<std::int64_t>(rng() % cap);
      const Time dur = 1 + static_cast<Time>(rng() % 400);
      spans.push_back(p.reserve(p.earliest_start(size, dur, now + static_cast<Time>(rng() % 300)), dur, size));
    }
    for (int k = 0; k < 30; ++k) p.release(spans[rng() % spans.size()]);  // gains: a fragmented plan
    StartBound bound(bits);
    bound.record(1, 1, now + 100000);  // voided by the reset: the seed alone counts
    bound.reset();
    bound.seed(p, cap);
    for (int q = 0; q < 200; ++q) {
      const std::int64_t size = 1 + static_cast<std::int64_t>(rng() % cap);
      const Time dur = 1 + static_cast<Time>(rng() % 600);
      const Time plain = p.earliest_start(size, dur, now);
      const Time lower = bound.lower(size, dur);
      const int sb = StartBound::bucket(size, bits);
      const int db = StartBound::bucket(dur, bits);
      if (sb == 0 || db == 0) {
        ASSERT_EQ(lower, std::numeric_limits<Time>::min()) << "round " << round;
      } else {
        const Time tightest =
            p.earliest_start(StartBound::lower_edge(sb, bits) - 1, StartBound::lower_edge(db, bits) - 1, now);
        ASSERT_EQ(lower, tightest) << "round " << round << " size " << size << " duration " << dur;
      }
      ASSERT_EQ(p.earliest_start(size, dur, std::max(now, lower)), plain) << "round " << round;
      bounded += lower > now;
      ++queries;
    }
  }
  EXPECT_EQ(queries, 120 * 200);
  EXPECT_GT(bounded, 5000);
}

TEST(StartBound, LowerEdgeIsTheFirstValueOfItsBucket) {
  for (int bits = 1; bits <= 4; ++bits) {
    for (int b = 0; b < StartBound::buckets(bits); ++b) {
      const std::int64_t x = StartBound::lower_edge(b, bits);
      ASSERT_EQ(StartBound::bucket(x, bits), b) << bits << " " << b;
      if (x > 1) {
        ASSERT_EQ(StartBound::bucket(x - 1, bits), b - 1) << bits << " " << b;
      }
    }
  }
}

}  // namespace
}  // namespace los
