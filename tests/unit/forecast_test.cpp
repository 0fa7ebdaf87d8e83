// Predicted starts: a forward replay of the real policy.
#include "sim/forecast.hpp"

#include <gtest/gtest.h>

#include "policy/registry.hpp"
#include "test_support.hpp"

namespace los {
namespace {

Snapshot busy_partition() {
  Snapshot s;
  s.now = 1000;
  s.total_units = 10;
  RunningJob a;
  a.job = test::job(1, 0, 6, 500);
  a.start = 900;  // ends at 1400
  RunningJob b;
  b.job = test::job(2, 0, 4, 300);
  b.start = 1000;  // ends at 1300
  s.running = {a, b};
  s.free_units = 0;
  s.queue = {test::job(3, 950, 8, 100), test::job(4, 960, 2, 50), test::job(5, 970, 10, 10)};
  return s;
}

TEST(Forecast, FcfsByHand) {
  const auto starts = forecast_starts(busy_partition(), "fcfs");
  // 3 needs 8: at 1400 (10 free). 4 after it (FCFS) at 1400 too (2 left).
  // 5 needs all 10: when 3 and 4 end, 3 ends at 1500.
  EXPECT_EQ(starts, (std::vector<Time>{1400, 1400, 1500}));
}

TEST(Forecast, EasyBackfillsTheSmallJob) {
  const auto starts = forecast_starts(busy_partition(), "easy");
  // 4 (2 units, 50 s) fits at 1300 before 3's reservation at 1400 ends? It
  // would need 2 units at 1300..1350: 4 free then, and 3 needs 8 of 10 at 1400: yes.
  EXPECT_EQ(starts[0], 1400);
  EXPECT_EQ(starts[1], 1300);
  EXPECT_EQ(starts[2], 1500);
}

TEST(Forecast, BfFairReplaysWithTheUsersTotalsTheLivePolicyLearned) {
  // User 7's first job waited 1,000 s and ended; user 5 has no finished job.
  // Their next jobs each need the whole machine: BF-FAIR starts user 7's
  // first (the higher normalized wait), though user 5's was submitted first.
  // A forecast from a blank instance would see no history: queue order.
  const Snapshot first = test::idle_partition(16, 1000, {test::job(1, 0, 16, 100, -1, 7)});
  PolicyPtr live = make_policy("bf-fair");
  ASSERT_EQ(live->step(first).decisions.size(), 1U);
  Snapshot later = first;
  later.now = 1100;
  later.events = {{SnapshotEvent::Kind::Ended, 1, 16, 1000, 100}};
  later.queue = {test::job(2, 1050, 16, 100, -1, 5), test::job(3, 1060, 16, 100, -1, 7)};
  const StepResult step = live->step(later);
  ASSERT_EQ(step.decisions.size(), 1U);
  EXPECT_EQ(step.decisions[0].job, 3);
  // losd forecasts the snapshot the policy last stepped on.
  PolicyPtr fresh = make_policy("bf-fair");
  live->copy_history_to(*fresh);
  EXPECT_EQ(forecast_starts(later, *fresh), (std::vector<Time>{1200, 1100}));
  EXPECT_EQ(forecast_starts(later, "bf-fair"), (std::vector<Time>{1100, 1200}));
}

TEST(Forecast, ConservativeEqualsItsReservations) {
  std::mt19937 rng(11);
  Snapshot s;
  s.now = 5000;
  s.total_units = 64;
  s.free_units = 64;
  for (JobId id = 1; id <= 20; ++id) {
    RunningJob r;
    r.job = test::job(id, 0, 1 + static_cast<int>(rng() % 4), 100 + rng() % 4000);
    r.start = 5000 - static_cast<Time>(rng() % 90);
    s.free_units -= r.job.size;
    s.running.push_back(r);
  }
  for (JobId id = 100; id < 300; ++id)
    s.queue.push_back(test::job(id, 4000, 1 + static_cast<int>(rng() % 40), 10 + rng() % 3000));
  PolicyPtr p = make_policy("conservative");
  Snapshot first = s;
  first.resync = true;
  const StepResult r = p->step(first);
  std::unordered_map<JobId, Time> promised;
  for (const PlannedStart& ps : p->reservations()) promised[ps.job] = ps.start;
  for (const Decision& d : r.decisions) promised[d.job] = s.now;
  const auto starts = forecast_starts(s, "conservative");
  ASSERT_EQ(starts.size(), s.queue.size());
  for (std::size_t i = 0; i < s.queue.size(); ++i) {
    ASSERT_TRUE(promised.count(s.queue[i].id)) << s.queue[i].id;
    // With every job running to its limit no reservation moves.
    EXPECT_EQ(starts[i], promised[s.queue[i].id]) << "job " << s.queue[i].id;
  }
}

TEST(Forecast, TooLargeAndBeyondHorizonAreUnknown) {
  Snapshot s = busy_partition();
  s.queue.push_back(test::job(6, 990, 11, 10));  // never fits
  ForecastOptions o;
  o.horizon = 450;  // 1450: 5's start at 1500 is past it
  const auto starts = forecast_starts(s, "fcfs", o);
  EXPECT_EQ(starts[0], 1400);
  EXPECT_EQ(starts[2], kTimeInfinity);
  EXPECT_EQ(starts[3], kTimeInfinity);
}

TEST(Forecast, GangSchedulingFromAnIdlePartition) {
  Snapshot s;
  s.now = 0;
  s.total_units = 4;
  s.free_units = 4;
  s.queue = {test::job(1, 0, 4, 100), test::job(2, 0, 4, 100)};
  const auto starts = forecast_starts(s, "gang:mpl=2:slice=10");
  // Two rows: job 1 runs in the first slice, job 2 in the second.
  EXPECT_EQ(starts[0], 0);
  EXPECT_EQ(starts[1], 10);
}

TEST(Forecast, ATimeBudgetOfZeroPredictsNothing) {
  ForecastOptions o;
  o.max_seconds = 0;
  const auto starts = forecast_starts(busy_partition(), "easy", o);
  EXPECT_EQ(starts, (std::vector<Time>(3, kTimeInfinity)));
}

}  // namespace
}  // namespace los
