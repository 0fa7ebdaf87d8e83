// GangRowPlan: a BGS row's plan whose searches start from a dominance bound.
// On random plans, with units taken and given back, time moving on and the
// profile replaced, every bounded search must find the plain search's start,
// and the bound must be a lower bound that is actually used.
#include "policies/gang_row_plan.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace los {
namespace {

TEST(GangRowPlan, BoundedSearchesFindThePlainStarts) {
  std::mt19937_64 rng(17);
  long long searches = 0;
  long long bounded = 0;  // searches whose bound was above `now`
  for (int round = 0; round < 300; ++round) {
    const std::int64_t cap = 2 + static_cast<std::int64_t>(rng() % 80);
    Time now = static_cast<Time>(rng() % 100);
    GangRowPlan plan(cap, now);
    // Running jobs' holds, given back with add() as gang.cpp does.
    struct Hold {
      Time end;
      std::int64_t size;
    };
    std::vector<Hold> holds;
    std::vector<Planner::SpanId> spans;
    for (int k = 0; k < 150; ++k) {
      const int op = static_cast<int>(rng() % 100);
      if (op < 3) {  // time moves on
        now += static_cast<Time>(rng() % 200);
        plan.planner().advance_to(now);
      } else if (op < 5 && !spans.empty()) {  // a reservation is withdrawn: units come back
        const std::size_t i = rng() % spans.size();
        plan.planner().release(spans[i]);
        spans.erase(spans.begin() + static_cast<std::ptrdiff_t>(i));
      } else if (op < 7 && !holds.empty()) {  // a running job ends early
        const std::size_t i = rng() % holds.size();
        if (holds[i].end > now) plan.planner().add(now, holds[i].end, holds[i].size);
        holds.erase(holds.begin() + static_cast<std::ptrdiff_t>(i));
      } else if (op < 8) {  // the row is re-planned from scratch
        plan.restart(cap, now);
        holds.clear();
        spans.clear();
      } else if (op < 9) {  // a query from an earlier time (not what gang does, but allowed)
        const Time earlier = plan.planner().origin() + static_cast<Time>(rng() % 10);
        const std::int64_t size = 1 + static_cast<std::int64_t>(rng() % cap);
        const Time dur = 1 + static_cast<Time>(rng() % 500);
        ASSERT_EQ(plan.earliest_start(size, dur, earlier), plan.planner().earliest_start(size, dur, earlier));
        now = std::max(now, earlier);
      } else {  // a job is searched for and reserved, or starts now and holds units
        const std::int64_t size = 1 + static_cast<std::int64_t>(rng() % cap);
        const Time dur = 1 + static_cast<Time>(rng() % 500);
        const Time plain = plan.planner().earliest_start(size, dur, now);
        const Time bound = plan.lower_bound(size, dur, now);
        ASSERT_LE(bound, plain) << "round " << round << " op " << k;
        ASSERT_GE(bound, now);
        bounded += bound > now;
        ASSERT_EQ(plan.earliest_start(size, dur, now), plain) << "round " << round << " op " << k;
        ++searches;
        if (plain == now && rng() % 2 == 0) {
          plan.planner().add(now, now + dur, -size);
          holds.push_back({now + dur, size});
        } else {
          spans.push_back(plan.planner().reserve(plain, dur, size));
        }
      }
    }
  }
  EXPECT_GT(searches, 30000);
  EXPECT_GT(bounded, searches / 10);  // the bound does real work
}

}  // namespace
}  // namespace los
