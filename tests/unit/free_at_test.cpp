// FreeAt, the units' free times of a list-ordered plan, against a brute
// force that keeps one value per unit.
#include "planner/free_at.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace los {
namespace {

TEST(FreeAt, HandExample) {
  FreeAt f;
  f.reset(4, 0);
  f.hold(2, 10);  // a running job on 2 units until 10
  EXPECT_EQ(f.kth(1), 0);
  EXPECT_EQ(f.kth(2), 0);
  EXPECT_EQ(f.kth(3), 10);
  EXPECT_EQ(f.kth(5), kTimeInfinity);
  f.place(3, 15);  // a 3-unit job starting at 10 (its third unit), ending 15
  EXPECT_EQ(f.kth(1), 10);
  EXPECT_EQ(f.kth(2), 15);
  EXPECT_EQ(f.kth(4), 15);
  f.hold(1, 5);  // a hold at or before the first free time changes nothing
  EXPECT_EQ(f.kth(1), 10);
}

TEST(FreeAt, EqualsOneValuePerUnitOnRandomOperations) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    const int units = std::uniform_int_distribution<int>(1, 300)(rng);
    FreeAt f;
    f.reset(units, 100);
    std::vector<Time> brute(static_cast<std::size_t>(units), 100);
    int held = 0;
    for (int r = 0; r < 20 && held < units; ++r) {
      const int k = std::uniform_int_distribution<int>(1, units - held)(rng);
      const Time until = std::uniform_int_distribution<Time>(50, 1000)(rng);
      f.hold(k, until);
      // The hold takes k of the units free at 100 (sorted first) and frees
      // them at until.
      std::sort(brute.begin(), brute.end());
      if (until > 100) {
        for (int i = 0; i < k; ++i) brute[static_cast<std::size_t>(i)] = until;
        held += k;
      }
    }
    std::sort(brute.begin(), brute.end());
    FreeAt copy;
    for (int step = 0; step < 400; ++step) {
      const int k = std::uniform_int_distribution<int>(1, units)(rng);
      ASSERT_EQ(f.kth(k), brute[static_cast<std::size_t>(k - 1)]) << "trial " << trial << " step " << step;
      const int other = std::uniform_int_distribution<int>(0, units)(rng);
      const FreeAt::KthOfTwo two = f.kth_of_two(k, other);
      ASSERT_EQ(two.a, f.kth(k)) << "trial " << trial << " step " << step;
      ASSERT_EQ(two.b, f.kth(other)) << "trial " << trial << " step " << step << " rank " << other;
      ASSERT_EQ(two.sum, f.kth(k + other)) << "trial " << trial << " step " << step << " ranks " << k << "+" << other;
      const Time start = brute[static_cast<std::size_t>(k - 1)];
      const Time end = start + std::uniform_int_distribution<Time>(1, 500)(rng);
      f.place(k, end);
      for (int i = 0; i < k; ++i) brute[static_cast<std::size_t>(i)] = end;
      std::sort(brute.begin(), brute.end());
      if (step % 10 == 0) {  // every rank, so an addition misplaced anywhere shows
        for (int q = 1; q <= units; ++q)
          ASSERT_EQ(f.kth(q), brute[static_cast<std::size_t>(q - 1)]) << "trial " << trial << " step " << step;
      }
      if (step % 50 == 0) {  // a copy is the same multiset
        copy.assign(f);
        for (int q = 1; q <= units; q += 7) ASSERT_EQ(copy.kth(q), f.kth(q));
      }
    }
  }
}

}  // namespace
}  // namespace los
