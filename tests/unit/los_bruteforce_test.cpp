// Both LOS solvers against exhaustive enumeration on random small instances:
// the chosen set fits both capacities, reaches the lexicographic optimum
// (util up, sutil down, merit up), and is the set the trace-back rule names.
//
// The tie rules as properties of the optimal sets (docs/los.md): reading a
// set as a bit mask with job i at bit i, Bypassed-First returns the optimal
// set with the smallest mask (from the tail, a job is left out whenever an
// optimal set without it remains), Selected-First the one with the largest.
// Head-First returns the one whose mask read from job 0 (bit-reversed) is
// the largest: job 0 whenever an optimal set has it, then job 1, and so on.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <random>

#include "policies/los_dp.hpp"

namespace los {
namespace {

struct Oracle {
  LosKey best;
  std::uint32_t smallest_mask = 0;
  std::uint32_t largest_mask = 0;
  std::uint32_t head_first_mask = 0;
};

std::uint32_t reversed(std::uint32_t mask, std::size_t bits) {
  std::uint32_t r = 0;
  for (std::size_t i = 0; i < bits; ++i) r |= (mask >> i & 1U) << (bits - 1 - i);
  return r;
}

bool better(const LosKey& a, const LosKey& b) {
  if (a.util != b.util) return a.util > b.util;
  if (a.sutil != b.sutil) return a.sutil < b.sutil;
  return a.merit > b.merit;
}

Oracle brute_force(const LosProblem& p) {
  Oracle o;
  bool first = true;
  const std::uint32_t count = std::uint32_t{1} << p.jobs.size();
  for (std::uint32_t mask = 0; mask < count; ++mask) {
    LosKey k;
    for (std::size_t i = 0; i < p.jobs.size(); ++i) {
      if (!(mask >> i & 1U)) continue;
      k.util += p.jobs[i].size;
      k.sutil += p.jobs[i].ssize;
      k.merit += p.jobs[i].merit;
    }
    if (k.util > p.free_now || k.sutil > p.extra) continue;
    if (first || better(k, o.best)) {
      o.best = k;
      o.smallest_mask = o.largest_mask = o.head_first_mask = mask;
      first = false;
    } else if (k == o.best) {
      o.largest_mask = mask;  // masks ascend: the first optimum seen is the smallest
      if (reversed(mask, p.jobs.size()) > reversed(o.head_first_mask, p.jobs.size())) o.head_first_mask = mask;
    }
  }
  return o;
}

std::uint32_t mask_of(const std::vector<std::size_t>& chosen) {
  std::uint32_t m = 0;
  for (std::size_t i : chosen) m |= std::uint32_t{1} << i;
  return m;
}

// Random instances, some drawn to make ties likely (few distinct sizes,
// small merits), some with merits spread out.
LosProblem random_problem(std::mt19937_64& rng, int merit_kind) {
  LosProblem p;
  const int q = std::uniform_int_distribution<int>(0, 12)(rng);
  p.free_now = std::uniform_int_distribution<int>(0, 24)(rng);
  p.extra = std::uniform_int_distribution<int>(0, 28)(rng);
  const int max_size = std::uniform_int_distribution<int>(1, 12)(rng);
  std::uniform_int_distribution<int> size(1, max_size);
  std::bernoulli_distribution ends_by_shadow(std::uniform_real_distribution<double>(0, 1)(rng));
  for (int i = 0; i < q; ++i) {
    LosCandidate c;
    c.size = size(rng);
    c.ssize = ends_by_shadow(rng) ? 0 : c.size;
    switch (merit_kind) {
      case 0:
        c.merit = 0;
        break;  // no merit
      case 1:
        c.merit = 1;
        break;  // Maxjobs
      case 2:
        c.merit = std::uniform_int_distribution<int>(0, 3)(rng);
        break;  // many ties
      default:
        c.merit = std::uniform_int_distribution<std::int64_t>(1000000, 50000000)(rng);
        break;  // slowdowns
    }
    p.jobs.push_back(c);
  }
  return p;
}

TEST(LosBruteForce, BothSolversMatchExhaustiveSearchOnTwentyThousandInstances) {
  std::mt19937_64 rng(20031016);
  int instances = 0, with_ties = 0, with_extra_used = 0;
  for (int n = 0; n < 20000; ++n) {
    LosProblem p = random_problem(rng, n % 4);
    const Oracle o = brute_force(p);
    if (o.smallest_mask != o.largest_mask) ++with_ties;
    if (o.best.sutil > 0) ++with_extra_used;
    for (LosTraceback rule : {LosTraceback::BypassedFirst, LosTraceback::SelectedFirst, LosTraceback::HeadFirst}) {
      p.traceback = rule;
      const std::uint32_t expected = rule == LosTraceback::BypassedFirst   ? o.smallest_mask
                                     : rule == LosTraceback::SelectedFirst ? o.largest_mask
                                                                           : o.head_first_mask;
      const LosSelection table = los_select_table(p);
      const LosSelection fast = los_select(p);
      for (const LosSelection* s : {&table, &fast}) {
        const char* who = s == &table ? "table" : "fast";
        LosKey reached;
        for (std::size_t i : s->chosen) {
          reached.util += p.jobs[i].size;
          reached.sutil += p.jobs[i].ssize;
          reached.merit += p.jobs[i].merit;
        }
        ASSERT_LE(reached.util, p.free_now) << who << " instance " << n;
        ASSERT_LE(reached.sutil, p.extra) << who << " instance " << n;
        ASSERT_EQ(reached, o.best) << who << " instance " << n;
        ASSERT_EQ(s->key, o.best) << who << " instance " << n;
        ASSERT_EQ(mask_of(s->chosen), expected) << who << " instance " << n << " rule " << static_cast<int>(rule);
      }
    }
    ++instances;
  }
  EXPECT_EQ(instances, 20000);
  // The instances exercise what they are meant to: ties and the extra units.
  EXPECT_GT(with_ties, 3000) << with_ties;
  EXPECT_GT(with_extra_used, 3000) << with_extra_used;
  std::printf("instances with several optimal sets: %d, using extra units: %d\n", with_ties, with_extra_used);
}

TEST(LosBruteForce, ExtraAboveFreeUnitsIsTheSameAsExtraEqualToThem) {
  std::mt19937_64 rng(7);
  for (int n = 0; n < 2000; ++n) {
    LosProblem p = random_problem(rng, n % 4);
    p.extra = p.free_now + std::uniform_int_distribution<int>(0, 20)(rng);
    LosProblem capped = p;
    capped.extra = p.free_now;
    for (LosTraceback rule : {LosTraceback::BypassedFirst, LosTraceback::SelectedFirst, LosTraceback::HeadFirst}) {
      p.traceback = capped.traceback = rule;
      ASSERT_EQ(los_select_table(p).chosen, los_select_table(capped).chosen);
      ASSERT_EQ(los_select(p).chosen, los_select_table(p).chosen);
    }
  }
}

// los_select_queue_order: of the sets filling the most units (sutil and
// merit ignored), the one whose mask read from job 0 is the largest; and
// EASY's own walk whenever that walk fills the most.
TEST(LosBruteForce, QueueOrderSelectionIsTheEarliestSetFillingTheMost) {
  std::mt19937_64 rng(140014);
  int differs_from_thesis = 0, easy_is_optimal = 0;
  for (int n = 0; n < 20000; ++n) {
    const LosProblem p = random_problem(rng, n % 4);
    const std::uint32_t count = std::uint32_t{1} << p.jobs.size();
    std::int64_t best = -1;
    std::uint32_t expected = 0;
    for (std::uint32_t mask = 0; mask < count; ++mask) {
      std::int64_t util = 0, sutil = 0;
      for (std::size_t i = 0; i < p.jobs.size(); ++i) {
        if (!(mask >> i & 1U)) continue;
        util += p.jobs[i].size;
        sutil += p.jobs[i].ssize;
      }
      if (util > p.free_now || sutil > p.extra) continue;
      if (util > best || (util == best && reversed(mask, p.jobs.size()) > reversed(expected, p.jobs.size()))) {
        best = util;
        expected = mask;
      }
    }
    const LosSelection s = los_select_queue_order(p);
    LosKey reached;
    for (std::size_t i : s.chosen) {
      reached.util += p.jobs[i].size;
      reached.sutil += p.jobs[i].ssize;
      reached.merit += p.jobs[i].merit;
    }
    ASSERT_EQ(reached.util, best) << "instance " << n;
    ASSERT_EQ(s.key, reached) << "instance " << n;
    ASSERT_EQ(mask_of(s.chosen), expected) << "instance " << n;
    if (mask_of(s.chosen) != mask_of(los_select(p).chosen)) ++differs_from_thesis;
    // EASY's walk: in order, take a job whenever it fits what is left.
    std::vector<std::size_t> easy;
    std::int64_t free_left = p.free_now, extra_left = p.extra;
    for (std::size_t i = 0; i < p.jobs.size(); ++i) {
      if (p.jobs[i].size > free_left || p.jobs[i].ssize > extra_left) continue;
      easy.push_back(i);
      free_left -= p.jobs[i].size;
      extra_left -= p.jobs[i].ssize;
    }
    if (p.free_now - free_left == best) {
      ++easy_is_optimal;
      ASSERT_EQ(s.chosen, easy) << "instance " << n;
    }
  }
  // Both cases are exercised: sets other than the thesis's, and EASY's.
  EXPECT_GT(differs_from_thesis, 1000) << differs_from_thesis;
  EXPECT_GT(easy_is_optimal, 3000) << easy_is_optimal;
}

}  // namespace
}  // namespace los
