// Tabu search on the conservative plan, and BF-FAIR: hand-computed plans and
// criteria, the move and its undo, safe mode's promise, and the invariant
// checker on every shared trace.
#include "policies/tabu.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <tuple>
#include <unordered_map>

#include "metrics/summary.hpp"
#include "model/snapshot_diff.hpp"
#include "policies/bf_fair.hpp"
#include "policy/registry.hpp"
#include "sim/invariants.hpp"
#include "test_support.hpp"
#include "workload/swf.hpp"
#include "workload/transform.hpp"

namespace los {
namespace {

using test::job;

using Starts = std::vector<std::pair<JobId, Time>>;

// The plan's reservations in order of start.
Starts starts(const TabuPlan& plan) {
  Starts out;
  for (const PlannedStart& p : plan.starts()) out.push_back({p.job, p.start});
  return out;
}

Time start_in(const TabuPlan& plan, JobId id) {
  const TabuPlan::Entry* e = plan.find(id);
  return e ? e->start : -1;
}

// ---------------------------------------------------------------------------
// The objective function (SELECTBETTER)

TEST(TabuObjective, SumOfRelativeImprovements) {
  const TabuCriteria a{100, 200, 4, 2};
  const TabuCriteria b{50, 150, 2, 3};
  // bsd (4-2)/4 + wait (100-50)/100 + response (200-150)/200 + F (2-3)/2
  EXPECT_DOUBLE_EQ(tabu_improvement(a, b), 0.5 + 0.5 + 0.25 - 0.5);
  // The other way round: each term against b's values.
  EXPECT_DOUBLE_EQ(tabu_improvement(b, a), (2.0 - 4) / 2 + (50.0 - 100) / 50 + (150.0 - 200) / 150 + (3.0 - 2) / 3);
}

TEST(TabuObjective, EqualPlansScoreZeroAndAreNotAccepted) {
  const TabuCriteria a{0, 0, 1, 0};
  EXPECT_EQ(tabu_improvement(a, a), 0.0);
  const TabuCriteria c{12.5, 22.5, 3.125, 0.88};
  EXPECT_EQ(tabu_improvement(c, c), 0.0);
}

TEST(TabuObjective, ZeroDenominatorGuards) {
  // Wait 0 now: any wait in the candidate is divided by 1e-13, a veto.
  EXPECT_DOUBLE_EQ(tabu_improvement({0, 10, 1, 1}, {5, 10, 1, 0}), -5 / 1e-13 + 1.0);
  // Response and F the same way.
  EXPECT_DOUBLE_EQ(tabu_improvement({1, 0, 1, 1}, {1, 2, 1, 1}), -2 / 1e-13);
  EXPECT_DOUBLE_EQ(tabu_improvement({1, 1, 1, 0}, {1, 1, 1, 1e-14}), -0.1);
  // Slowdown is floored at 1 in the denominator: (0.5 - 0.25) / 1.
  EXPECT_DOUBLE_EQ(tabu_improvement({1, 1, 0.5, 1}, {1, 1, 0.25, 1}), 0.25);
  // A criterion at 0 in both plans contributes nothing.
  EXPECT_DOUBLE_EQ(tabu_improvement({0, 4, 2, 0}, {0, 2, 2, 0}), 0.5);
}

// ---------------------------------------------------------------------------
// Insertion, compression, re-insertion on a hand-computed plan.
//
// 4 units at t = 0; R (2 units) runs until 10. Inserted in order:
//   A 4 units x 5   -> 10  (needs the whole machine: after R)
//   B 2 units x 10  ->  0  (backfills beside R, ends with it)
//   C 3 units x 5   -> 15  (after A)
//   D 1 unit  x 20  -> 15  (beside C, then alone)
class TabuHandPlan : public ::testing::Test {
 protected:
  void SetUp() override {
    plan = TabuPlan(4, 0);
    plan.add_running(job(9, 0, 2, 10, 10, 4), 0, 10);
    EXPECT_EQ(plan.insert(job(1, 0, 4, 5, 5, 1), 0), 10);
    EXPECT_EQ(plan.insert(job(2, 0, 2, 10, 10, 2), 0), 0);
    EXPECT_EQ(plan.insert(job(3, 0, 3, 5, 5, 1), 0), 15);
    EXPECT_EQ(plan.insert(job(4, 0, 1, 20, 20, 3), 0), 15);
    ASSERT_TRUE(plan.consistent());
  }
  TabuPlan plan;
};

TEST_F(TabuHandPlan, InsertionTakesTheEarliestGap) {
  // The list: B, A, then D before C. D (1 x 20 from 15) delays nobody at
  // the first position where it can start at 15, ahead of C; C still gets
  // its 3 units at 15.
  EXPECT_EQ(starts(plan), (Starts{{2, 0}, {1, 10}, {4, 15}, {3, 15}}));
  // Free units: [0,15) 0, [15,20) 0, [20,35) 3, then 4 (adjacent equal segments merge).
  EXPECT_EQ(plan.profile().slots(), (std::vector<AvailabilitySlot>{{0, 20, 0}, {20, 35, 3}, {35, kTimeInfinity, 4}}));
}

TEST_F(TabuHandPlan, RemovalThenCompressionMovesLaterJobsEarlier) {
  ASSERT_TRUE(plan.remove(1));
  plan.compress();
  // C fits in [10, 15) once A is gone; then D fits beside it from 10.
  EXPECT_EQ(start_in(plan, 3), 10);
  EXPECT_EQ(start_in(plan, 4), 10);
  EXPECT_EQ(start_in(plan, 2), 0);
  // Re-insertion of A: the machine is whole only after D ends at 30.
  EXPECT_EQ(plan.insert(job(1, 0, 4, 5, 5, 1), 0), 30);
  EXPECT_TRUE(plan.consistent());
}

TEST_F(TabuHandPlan, CriteriaMatchHandValues) {
  // Waits B 0, A 10, C 15, D 15; durations 10, 5, 5, 20.
  const TabuCriteria c = plan.criteria();
  EXPECT_DOUBLE_EQ(c.wait, 40.0 / 4);
  EXPECT_DOUBLE_EQ(c.response, 80.0 / 4);
  // (S + p - r) / p: 10/10, 15/5, 20/5, 35/20
  EXPECT_DOUBLE_EQ(c.bsd, (1 + 3 + 4 + 1.75) / 4);
  // NUWT: user 1 (A, C) 25 / (20 + 15); user 2 (B) 0 / 20; user 3 (D) 15 / 20; user 4 (R) 0 / 20.
  const double n[] = {25.0 / 35, 0, 0.75, 0};
  const double mean = (n[0] + n[1] + n[2] + n[3]) / 4;
  double f = 0;
  for (double x : n) f += (mean - x) * (mean - x);
  EXPECT_NEAR(c.fairness, f, 1e-12);
}

TEST_F(TabuHandPlan, WorseningMoveLeavesThePlanAsItWas) {
  // Moving A: C and D gain 5 each, A loses 20; slowdown, wait, response and
  // F all get worse, so the move is rejected and the plan is as before.
  const std::vector<AvailabilitySlot> before = plan.profile().slots();
  plan.prepare();
  EXPECT_EQ(plan.try_move(1, 0, false), TabuPlan::MoveResult::Rejected);
  EXPECT_EQ(starts(plan), (Starts{{2, 0}, {1, 10}, {4, 15}, {3, 15}}));
  EXPECT_EQ(plan.profile().slots(), before);
  EXPECT_TRUE(plan.consistent());
  // A move that changes nothing scores 0 and is rejected too.
  EXPECT_EQ(plan.try_move(4, 0, false), TabuPlan::MoveResult::Rejected);
  EXPECT_EQ(start_in(plan, 4), 15);
}

// Compression keeps the order of starts (the paper): 4 units; R1 (2 units)
// expected until 100, R2 (2 units) until 70. X (4 x 10) is planned at 100,
// Y (2 x 40) after it at 110 ([70, 100) is too short for it). R1 ends at 5:
// X moves to 70 (R2 still holds 2 units) and Y follows it at 80. Our
// conservative's compression would put Y at 5, before X.
TEST(TabuCompression, KeepsTheOrderOfStarts) {
  TabuPlan plan(4, 0);
  plan.add_running(job(91, 0, 2, 100, 100, 9), 0, 100);
  plan.add_running(job(92, 0, 2, 70, 70, 9), 0, 70);
  EXPECT_EQ(plan.insert(job(1, 0, 4, 10, 10, 1), 0), 100);
  EXPECT_EQ(plan.insert(job(2, 0, 2, 40, 40, 2), 0), 110);
  plan.advance_to(5);
  bool freed = false;
  ASSERT_TRUE(plan.end_running(91, 5, freed));
  EXPECT_TRUE(freed);
  plan.compress();
  EXPECT_EQ(starts(plan), (Starts{{1, 70}, {2, 80}}));
  EXPECT_TRUE(plan.consistent());
  // A new 2 x 40 job takes the gap before X: it delays nobody there.
  EXPECT_EQ(plan.insert(job(3, 5, 2, 40, 40, 3), 5), 5);
  EXPECT_EQ(starts(plan), (Starts{{3, 5}, {1, 70}, {2, 80}}));
}

// Insertion into the list gives the earliest start of the availability
// profile (spec 2.4) and moves no other job, on random plans.
TEST(TabuInsertion, EqualsTheProfilesEarliestStartAndDelaysNobody) {
  std::mt19937_64 rng(11);
  int checked = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int units = std::uniform_int_distribution<int>(1, 32)(rng);
    TabuPlan plan(units, 0);
    std::uniform_int_distribution<int> size(1, units);
    std::uniform_int_distribution<Time> dur(1, 100);
    int used = 0;
    for (JobId id = 1; id <= 4; ++id) {
      const int s = std::uniform_int_distribution<int>(0, units - used)(rng);
      if (s == 0) continue;
      used += s;
      plan.add_running(job(1000 + id, 0, s, 100, 100, 1), 0, dur(rng));
    }
    for (JobId id = 1; id <= 30; ++id) {
      const Job j = job(id, 0, size(rng), dur(rng), -1, static_cast<int>(id % 4));
      const Starts before = starts(plan);
      const Time expect = plan.profile().earliest_start(j.size, j.estimate, 0);
      ASSERT_EQ(plan.insert(j, 0), expect) << "trial " << trial << " job " << id;
      for (const auto& [other, start] : before) ASSERT_EQ(start_in(plan, other), start);
      ++checked;
    }
    ASSERT_TRUE(plan.consistent());
  }
  EXPECT_EQ(checked, 9000);
}

// 4 units; R (all 4) runs until 10. A (4 x 100) is planned at 10, B and C
// (4 x 1 each) behind it at 110 and 111. Moving A after them is the tabu
// move conservative backfilling cannot make.
TabuPlan long_job_first() {
  TabuPlan plan(4, 0);
  plan.add_running(job(9, 0, 4, 10, 10, 3), 0, 10);
  EXPECT_EQ(plan.insert(job(1, 0, 4, 100, 100, 1), 0), 10);
  EXPECT_EQ(plan.insert(job(2, 0, 4, 1, 1, 2), 0), 110);
  EXPECT_EQ(plan.insert(job(3, 0, 4, 1, 1, 2), 0), 111);
  return plan;
}

TEST(TabuMove, ImprovingMoveIsKept) {
  TabuPlan plan = long_job_first();
  plan.prepare();
  EXPECT_DOUBLE_EQ(plan.current().wait, (10 + 110 + 111) / 3.0);
  EXPECT_EQ(plan.try_move(1, 0, false), TabuPlan::MoveResult::Kept);
  // Removal compresses B to 10 and C to 11; A re-enters after them at 12.
  EXPECT_EQ(starts(plan), (Starts{{2, 10}, {3, 11}, {1, 12}}));
  EXPECT_TRUE(plan.consistent());
  // The incrementally updated criteria equal a recount, and the hand values.
  const TabuCriteria c = plan.criteria();
  EXPECT_DOUBLE_EQ(plan.current().wait, c.wait);
  EXPECT_DOUBLE_EQ(c.wait, (12 + 10 + 11) / 3.0);
  EXPECT_DOUBLE_EQ(c.response, (33 + 102) / 3.0);
  EXPECT_DOUBLE_EQ(c.bsd, (112.0 / 100 + 11 + 12) / 3);
  EXPECT_NEAR(plan.current().bsd, c.bsd, 1e-12);
  EXPECT_NEAR(plan.current().fairness, c.fairness, 1e-12);
}

TEST(TabuMove, SafeModeRefusesToDelayPastThePromise) {
  TabuPlan plan = long_job_first();
  plan.prepare();
  EXPECT_EQ(plan.find(1)->promise, 10);
  EXPECT_EQ(plan.try_move(1, 0, true), TabuPlan::MoveResult::Unsafe);
  EXPECT_EQ(starts(plan), (Starts{{1, 10}, {2, 110}, {3, 111}}));
  EXPECT_TRUE(plan.consistent());
}

// Random plans: after every move, kept or undone, the plan is consistent and
// the incremental criteria equal a recount from scratch.
TEST(TabuMove, IncrementalCriteriaMatchRecountOnRandomPlans) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    TabuPlan plan(16, 0);
    std::uniform_int_distribution<int> size(1, 16), small(1, 2), user(1, 5);
    std::uniform_int_distribution<Time> dur(1, 50);
    for (JobId id = 1; id <= 6; ++id) plan.add_running(job(100 + id, 0, small(rng), 60, 60, user(rng)), 0, dur(rng));
    for (JobId id = 1; id <= 40; ++id) plan.insert(job(id, -dur(rng), size(rng), dur(rng), -1, user(rng)), 0);
    plan.prepare();
    int kept = 0;
    for (int i = 0; i < 100; ++i) {
      const std::vector<JobId>& movable = plan.movable();
      const JobId id = movable[std::uniform_int_distribution<std::size_t>(0, movable.size() - 1)(rng)];
      const bool safe = i % 3 == 0;
      const TabuPlan::MoveResult r = plan.try_move(id, 0, safe);
      kept += r == TabuPlan::MoveResult::Kept;
      if (safe && r == TabuPlan::MoveResult::Kept) {
        // Compression only moves earlier; safe re-insertion keeps the promise.
        EXPECT_LE(start_in(plan, id), plan.find(id)->promise);
      }
      ASSERT_TRUE(plan.consistent()) << "trial " << trial << " move " << i;
      const TabuCriteria c = plan.criteria();
      ASSERT_NEAR(plan.current().wait, c.wait, 1e-9 * std::max(1.0, c.wait));
      ASSERT_NEAR(plan.current().response, c.response, 1e-9 * std::max(1.0, c.response));
      ASSERT_NEAR(plan.current().bsd, c.bsd, 1e-9 * c.bsd);
      ASSERT_NEAR(plan.current().fairness, c.fairness, 1e-9 * std::max(1.0, c.fairness));
    }
    EXPECT_GT(kept, 0) << "trial " << trial;
  }
}

// A running job past its expected end (an overrun), or a step later than a
// reservation's start, is planned in place (TabuPolicy::apply_events):
// extend_overruns, order_movable_as_listed, compress. That must be the plan
// a rebuild from the snapshot makes, as TabuPolicy did before (reset,
// add_running at the expected ends, append in list order with the promises,
// compress): the same starts, promises, criteria and the movable order the
// search draws its moves from.
TEST(TabuPlanInPlace, OverrunsAndLateStepsPlanAsARebuildDoes) {
  std::mt19937_64 rng(41);
  int overrun_rounds = 0, late_rounds = 0;
  for (int round = 0; round < 300; ++round) {
    const int cap = 8 + static_cast<int>(rng() % 24);
    std::uniform_int_distribution<int> user(1, 5);
    std::uniform_int_distribution<Time> estimate(5, 120);
    TabuPlan plan(cap, 0);
    struct Run {
      Job job;
      Time start;
    };
    std::vector<Run> running;
    JobId id = 1;
    for (int used = 0; used < cap - 2;) {
      const int size = 1 + static_cast<int>(rng() % static_cast<std::uint64_t>(std::min(6, cap - 2 - used)));
      const Job j = job(id++, -60, size, estimate(rng), -1, user(rng));
      const Time start = -static_cast<Time>(rng() % 30);
      running.push_back({j, start});
      plan.add_running(j, start, start + j.estimate);
      used += size;
    }
    std::vector<Job> queue;
    for (int k = 0; k < 30; ++k) {
      queue.push_back(job(id++, -static_cast<Time>(rng() % 50), 1 + static_cast<int>(rng() % cap), estimate(rng), -1,
                          user(rng)));
      plan.insert(queue.back(), 0);
    }
    plan.confirm_promises();
    // Kept moves and a withdrawal reorder the movable jobs (swap removal).
    plan.prepare();
    for (int k = 0; k < 40; ++k) plan.try_move(plan.movable()[rng() % plan.movable().size()], 0, k % 2 == 0);
    plan.remove(queue[rng() % queue.size()].id);
    // Some running jobs end (early or on time), the rest may overrun.
    const Time now = 1 + static_cast<Time>(rng() % 100);
    for (std::size_t k = 0; k < running.size();) {
      if (rng() % 3 == 0) {
        bool freed = false;
        ASSERT_TRUE(plan.end_running(running[k].job.id, now, freed));
        running.erase(running.begin() + static_cast<std::ptrdiff_t>(k));
      } else {
        ++k;
      }
    }
    // The rebuild, on a copy of the plan as it stands before `now`.
    TabuPlan rebuilt = plan;
    {
      std::vector<TabuPlan::Entry> holders(rebuilt.entries().begin(), rebuilt.entries().end());
      rebuilt.reset(cap, now);
      for (const Run& r : running) {
        RunningJob rj;
        rj.job = r.job;
        rj.start = r.start;
        rebuilt.add_running(r.job, r.start, rj.expected_end(now));
      }
      for (const TabuPlan::Entry& e : holders) {
        const auto it = std::find_if(queue.begin(), queue.end(), [&](const Job& q) { return q.id == e.id; });
        ASSERT_NE(it, queue.end());
        rebuilt.append(*it, now, e.promise);
      }
      rebuilt.compress();
    }
    // In place.
    plan.advance_to(now);
    const bool overrun = plan.first_running_end() <= now;
    const bool late = plan.first_start() < now;
    if (!overrun && !late) continue;
    overrun_rounds += overrun;
    late_rounds += late && !overrun;
    EXPECT_EQ(plan.extend_overruns(now), overrun);
    EXPECT_GT(plan.first_running_end(), now);
    plan.order_movable_as_listed();
    plan.compress();
    ASSERT_TRUE(plan.consistent()) << "round " << round;
    ASSERT_EQ(plan.entries().size(), rebuilt.entries().size()) << "round " << round;
    for (std::size_t k = 0; k < plan.entries().size(); ++k) {
      const TabuPlan::Entry& a = plan.entries()[k];
      const TabuPlan::Entry& b = rebuilt.entries()[k];
      ASSERT_EQ(a.id, b.id) << "round " << round << " place " << k;
      ASSERT_EQ(a.start, b.start) << "round " << round << " job " << a.id;
      ASSERT_EQ(a.promise, b.promise) << "round " << round << " job " << a.id;
    }
    ASSERT_EQ(plan.movable(), rebuilt.movable()) << "round " << round;
    const TabuCriteria x = plan.criteria(), y = rebuilt.criteria();
    EXPECT_EQ(x.wait, y.wait);
    EXPECT_EQ(x.response, y.response);
    EXPECT_EQ(x.bsd, y.bsd);
    EXPECT_EQ(x.fairness, y.fairness);
    EXPECT_EQ(plan.profile().slots(), rebuilt.profile().slots()) << "round " << round;
  }
  EXPECT_GT(overrun_rounds, 100);
  EXPECT_GT(late_rounds, 20);
}

// reset_keeping is reset() and append() of the kept jobs: in place when
// they are a subsequence of the list, by the two calls otherwise. The same
// list, id tables, movable order, user totals and, after compress(), starts.
TEST(TabuPlanInPlace, ResetKeepingIsResetThenAppend) {
  std::mt19937_64 rng(43);
  int in_place = 0, fallback = 0;
  for (int round = 0; round < 300; ++round) {
    const int cap = 8 + static_cast<int>(rng() % 24);
    std::uniform_int_distribution<int> user(1, 6);
    std::uniform_int_distribution<Time> estimate(5, 120);
    TabuPlan plan(cap, 0);
    JobId id = 1;
    plan.add_running(job(id++, -30, cap / 2, 60, -1, user(rng)), -10, 50);
    std::vector<Job> queue;
    for (int k = 0; k < 40; ++k) {
      queue.push_back(job(id++, -static_cast<Time>(rng() % 50), 1 + static_cast<int>(rng() % cap), estimate(rng), -1,
                          user(rng)));
      plan.insert(queue.back(), 0);
    }
    plan.confirm_promises();
    plan.prepare();
    for (int k = 0; k < 30; ++k) plan.try_move(plan.movable()[rng() % plan.movable().size()], 0, false);
    plan.take_due(0);  // some jobs are starting: listed, not movable
    // The jobs kept: most of the list in its order (a few left the queue);
    // sometimes out of order or with a job never listed (the fallback).
    std::vector<Job> snapshot_jobs;
    std::vector<Time> promises;
    for (const TabuPlan::Entry& e : plan.entries()) {
      if (rng() % 6 == 0) continue;
      Job j = *std::find_if(queue.begin(), queue.end(), [&](const Job& q) { return q.id == e.id; });
      if (rng() % 10 == 0) j.estimate += 7;  // the snapshot's job may differ from the plan's
      snapshot_jobs.push_back(j);
      promises.push_back(e.promise);
    }
    const int kind = static_cast<int>(rng() % 4);
    if (kind == 0 && snapshot_jobs.size() > 2) std::swap(snapshot_jobs.front(), snapshot_jobs.back());
    if (kind == 1) {
      snapshot_jobs.push_back(job(id++, 0, 1, 10, -1, 1));
      promises.push_back(kTimeInfinity);
    }
    std::vector<TabuPlan::KeptJob> kept;
    for (std::size_t k = 0; k < snapshot_jobs.size(); ++k) kept.push_back({&snapshot_jobs[k], promises[k]});
    const int new_cap = rng() % 3 == 0 ? cap - 3 : cap;  // a smaller partition refuses the widest
    const Time now = 5 + static_cast<Time>(rng() % 20);
    TabuPlan appended = plan;
    appended.reset(new_cap, now);
    for (const TabuPlan::KeptJob& k : kept) appended.append(*k.job, now, k.promise);
    TabuPlan kept_plan = plan;
    kept_plan.reset_keeping(new_cap, now, kept);
    (kind <= 1 && snapshot_jobs.size() > 2 ? fallback : in_place) += 1;
    for (TabuPlan* p : {&appended, &kept_plan}) {
      p->add_running(job(999, -30, 2, 60, -1, 2), -10, now + 40);
    }
    ASSERT_EQ(kept_plan.entries().size(), appended.entries().size()) << "round " << round;
    for (std::size_t k = 0; k < appended.entries().size(); ++k) {
      const TabuPlan::Entry& a = kept_plan.entries()[k];
      const TabuPlan::Entry& b = appended.entries()[k];
      ASSERT_EQ(std::tie(a.id, a.user, a.size, a.submit, a.duration, a.start, a.promise, a.starting, a.confirmed),
                std::tie(b.id, b.user, b.size, b.submit, b.duration, b.start, b.promise, b.starting, b.confirmed))
          << "round " << round << " place " << k;
    }
    ASSERT_EQ(kept_plan.movable(), appended.movable()) << "round " << round;
    for (const Job& j : queue) ASSERT_EQ(kept_plan.contains(j.id), appended.contains(j.id)) << "round " << round;
    kept_plan.compress();
    appended.compress();
    ASSERT_TRUE(kept_plan.consistent()) << "round " << round;
    ASSERT_EQ(starts(kept_plan), starts(appended)) << "round " << round;
    const TabuCriteria x = kept_plan.criteria(), y = appended.criteria();
    EXPECT_EQ(x.wait, y.wait);
    EXPECT_EQ(x.bsd, y.bsd);
    EXPECT_EQ(x.fairness, y.fairness);
    // The search works from the same sums: the same moves, the same plans.
    kept_plan.prepare();
    appended.prepare();
    for (int k = 0; k < 10 && kept_plan.movable().size() >= 2; ++k) {
      const JobId pick = kept_plan.movable()[rng() % kept_plan.movable().size()];
      ASSERT_EQ(kept_plan.try_move(pick, now, false), appended.try_move(pick, now, false)) << "round " << round;
    }
    ASSERT_EQ(starts(kept_plan), starts(appended)) << "round " << round;
  }
  EXPECT_GT(in_place, 120);
  EXPECT_GT(fallback, 100);
}

// Live, a job that runs past its estimate keeps its units: nothing is
// started on them, and the job planned after it moves with it a second past
// each step, until it ends.
// A partition of `units` units at `now`: `running` (started at
// `running_start`) holds its units when `busy`, `queue` waits.
Snapshot partition_at(Time now, int units, const Job& running, Time running_start, bool busy, std::vector<Job> queue) {
  Snapshot s;
  s.now = now;
  s.total_units = units;
  s.free_units = busy ? units - running.size : units;
  if (busy) {
    RunningJob r;
    r.job = running;
    r.start = running_start;
    s.running.push_back(r);
  }
  s.queue = std::move(queue);
  return s;
}

TEST(TabuPolicy, AnOverrunningJobKeepsItsUnitsUntilItEnds) {
  auto snapshot = [](Time now, bool running) {
    return partition_at(now, 4, job(9, 0, 4, 100, 100, 3), 0, running, {job(1, 0, 4, 10, 10, 1)});
  };
  PolicyPtr p = make_policy("tabu:period=0", RunMode::Live);
  const auto& tabu = dynamic_cast<const TabuPolicy&>(*p);
  auto with_events = [&](Snapshot now, const Snapshot& before) {
    now.events = diff_snapshots(before, now);
    return now;
  };
  Snapshot previous = snapshot(0, true);
  EXPECT_TRUE(p->step(previous).decisions.empty());
  EXPECT_EQ(starts(tabu.tabu_plan()), (Starts{{1, 100}}));
  for (const Time t : {100, 130, 170}) {
    const Snapshot s = with_events(snapshot(t, true), previous);
    EXPECT_TRUE(p->step(s).decisions.empty()) << "t = " << t;
    EXPECT_EQ(starts(tabu.tabu_plan()), (Starts{{1, t + 1}})) << "t = " << t;
    EXPECT_TRUE(tabu.tabu_plan().consistent());
    previous = s;
  }
  const StepResult ended = p->step(with_events(snapshot(175, false), previous));
  ASSERT_EQ(ended.decisions.size(), 1u);
  EXPECT_EQ(ended.decisions[0].job, 1);
}

// A resync rebuilds the plan from the snapshot alone. A job that ended since
// the last step is not in it, and no Ended event says so: it still counts as
// a finished job of its user, as the event would have it (fairness counts
// every finished job's wait and run time).
TEST(TabuPolicy, AResyncCountsAJobThatEndedMeanwhileAsFinished) {
  auto snapshot = [](Time now, bool running) {
    // Job 9 is user 3's only job: it waited 200 s.
    return partition_at(now, 8, job(9, 0, 6, 1000, 1000, 3), 200, running,
                        {job(1, 250, 8, 100, 100, 1), job(2, 260, 4, 300, 300, 2), job(3, 270, 2, 50, 50, 1)});
  };
  PolicyPtr by_event = make_policy("tabu:period=0", RunMode::Live);
  PolicyPtr by_resync = make_policy("tabu:period=0", RunMode::Live);
  const Snapshot first = snapshot(300, true);
  by_event->step(first);
  by_resync->step(first);
  Snapshot ended = snapshot(400, false);
  ended.events = diff_snapshots(first, ended);
  ASSERT_EQ(ended.events.size(), 1u);
  Snapshot resync = snapshot(400, false);
  resync.resync = true;
  const StepResult a = by_event->step(ended);
  const StepResult b = by_resync->step(resync);
  ASSERT_EQ(a.decisions.size(), b.decisions.size());
  const TabuPlan& x = dynamic_cast<const TabuPolicy&>(*by_event).tabu_plan();
  const TabuPlan& y = dynamic_cast<const TabuPolicy&>(*by_resync).tabu_plan();
  EXPECT_EQ(starts(x), starts(y));
  const TabuCriteria cx = x.criteria();
  const TabuCriteria cy = y.criteria();
  EXPECT_EQ(cx.wait, cy.wait);
  EXPECT_GT(cx.fairness, 0);
  EXPECT_DOUBLE_EQ(cx.fairness, cy.fairness);
}

TEST(TabuSearch, EveryJobTabuEmptiesTheListAndSpendsTheIteration) {
  TabuPlan plan = long_job_first();
  std::mt19937_64 rng(1);
  TabuSearchStats stats;
  // 3 movable jobs, tabu list of 10: iterations 1-3 pick each job once, the
  // 4th finds all tabu and only empties the list.
  tabu_search(plan, 0, 4, 10, false, rng, std::chrono::steady_clock::time_point::max(), stats);
  EXPECT_EQ(stats.iterations, 4);
  EXPECT_GE(stats.accepted, 1);
  EXPECT_TRUE(plan.consistent());
}

// The search reuses a move's result when the same job is picked again before
// any move is kept. It must be the search that makes every move: Algorithm 2
// drawn the same way (rejection sampling while most jobs are not tabu, an
// explicit list otherwise) and calling try_move() at every iteration, on
// random plans, safe and not, with running jobs that end at random times.
TEST(TabuSearch, AReusedMoveIsTheMoveMadeAgain) {
  std::mt19937_64 gen(17);
  std::int64_t reused = 0;
  std::int64_t kept = 0;
  for (int round = 0; round < 60; ++round) {
    const int capacity = 4 + static_cast<int>(gen() % 29);
    const Time now = 100;
    TabuPlan plan(capacity, now);
    int busy = 0;  // the running jobs fit the machine
    for (JobId id = 1000; id < 1000 + static_cast<JobId>(gen() % 4) && busy < capacity; ++id) {
      const int size = 1 + static_cast<int>(gen() % static_cast<std::uint64_t>(capacity - busy));
      busy += size;
      plan.add_running(job(id, 0, size, 500, 500, 9), 0, now + 1 + static_cast<Time>(gen() % 400));
    }
    std::vector<Job> queue;
    const JobId waiting = 2 + static_cast<JobId>(gen() % 40);
    for (JobId id = 1; id <= waiting; ++id) {
      queue.push_back(job(id, static_cast<Time>(gen() % 100), 1 + static_cast<int>(gen() % capacity),
                          1 + static_cast<Time>(gen() % 300), -1, static_cast<int>(gen() % 5)));
    }
    plan.insert_all(queue, now);
    const bool safe = round % 2 == 1;
    const std::size_t tabu_size = gen() % 8;
    const std::int64_t iterations = 2 * static_cast<std::int64_t>(plan.movable().size());
    TabuPlan oracle = plan;

    std::mt19937_64 rng(static_cast<std::uint64_t>(round));
    TabuSearchStats stats;
    const std::int64_t accepted = tabu_search(plan, now, iterations, tabu_size, safe, rng,
                                              std::chrono::steady_clock::time_point::max(), stats);

    std::mt19937_64 oracle_rng(static_cast<std::uint64_t>(round));
    oracle.advance_to(now);
    oracle.prepare();
    const std::vector<JobId>& movable = oracle.movable();
    TabuList tabu(tabu_size);
    std::int64_t oracle_accepted = 0;
    std::int64_t oracle_unsafe = 0;
    for (std::int64_t i = 0; i < iterations; ++i) {
      std::vector<JobId> free_jobs;
      for (const JobId id : movable) {
        if (!tabu.contains(id)) free_jobs.push_back(id);
      }
      if (free_jobs.empty()) {
        tabu.clear();
        continue;
      }
      JobId pick = 0;
      if (movable.size() > 2 * tabu.size()) {
        std::uniform_int_distribution<std::size_t> any(0, movable.size() - 1);
        do {
          pick = movable[any(oracle_rng)];
        } while (tabu.contains(pick));
      } else {
        pick = free_jobs[std::uniform_int_distribution<std::size_t>(0, free_jobs.size() - 1)(oracle_rng)];
      }
      const TabuPlan::MoveResult result = oracle.try_move(pick, now, safe);
      oracle_accepted += result == TabuPlan::MoveResult::Kept;
      oracle_unsafe += result == TabuPlan::MoveResult::Unsafe;
      tabu.add(pick);
    }
    ASSERT_EQ(accepted, oracle_accepted) << "round " << round;
    ASSERT_EQ(stats.rejected_unsafe, oracle_unsafe) << "round " << round;
    ASSERT_EQ(starts(plan), starts(oracle)) << "round " << round;
    const TabuCriteria a = plan.criteria();
    const TabuCriteria b = oracle.criteria();
    ASSERT_EQ(a.wait, b.wait);
    ASSERT_EQ(a.fairness, b.fairness);
    ASSERT_TRUE(plan.consistent());
    reused += stats.reused;
    kept += accepted;
  }
  // The rounds exercise both: reused results, and kept moves that make
  // earlier results stale.
  EXPECT_GT(reused, 500);
  EXPECT_GT(kept, 20);
}

// ---------------------------------------------------------------------------
// The policy in the simulator.

Workload perfect_window(const std::string& file, std::size_t skip, std::size_t jobs) {
  Workload w = read_swf(file);
  cut_window(w, skip, jobs);
  for (Job& j : w.jobs) j.estimate = std::max<Time>(j.runtime, 1);
  return w;
}

TEST(TabuPolicy, SpecAndName) {
  EXPECT_EQ(make_policy("tabu")->name(), "tabu");
  EXPECT_EQ(make_policy("tabu:safe")->name(), "tabu:safe");
  EXPECT_EQ(make_policy("tabu:seed=3:period=600:safe")->name(), "tabu:period=600:safe:seed=3");
  EXPECT_THROW(make_policy("tabu:nonsense=1"), SpecError);
  EXPECT_THROW(make_policy("tabu:period=-1"), SpecError);
  EXPECT_EQ(make_policy("bf-fair")->name(), "bf-fair");
}

TEST(TabuPolicy, HandScheduleMovesTheLongJobBack) {
  // The long_job_first plan as a workload: the search at t = 300 moves A
  // behind B and C; conservative keeps A first.
  const Workload w = test::workload(
      4, {job(9, 0, 4, 400, 400, 3), job(1, 1, 4, 1000, 1000, 1), job(2, 2, 4, 10, 10, 2), job(3, 3, 4, 10, 10, 2)});
  const SimResult cons = test::run(w, "conservative");
  EXPECT_EQ(test::start_of(cons, 1), 400);
  EXPECT_EQ(test::start_of(cons, 2), 1400);
  const SimResult tabu = test::run(w, "tabu");
  EXPECT_EQ(test::start_of(tabu, 2), 400);
  EXPECT_EQ(test::start_of(tabu, 3), 410);
  EXPECT_EQ(test::start_of(tabu, 1), 420);
  // Safe mode may not move A past its promise (400).
  const SimResult safe = test::run(w, "tabu:safe");
  EXPECT_EQ(test::start_of(safe, 1), 400);
}

// The wall-clock cap applies to live partitions only; a simulation always
// runs its whole iteration budget.
// A full 16-unit partition at t = 300 (the first search is due) with 200
// random jobs waiting: a search with work to do.
Snapshot full_partition_with_200_waiting(const std::string& partition = "", JobId waiting = 200) {
  Snapshot s;
  s.partition = partition;
  s.now = 300;
  s.total_units = 16;
  s.free_units = 0;
  RunningJob r;
  r.job = job(1000, 0, 16, 1000, 1000, 1);
  r.start = 0;
  s.running.push_back(r);
  std::mt19937_64 rng(3);
  for (JobId id = 1; id <= waiting; ++id) {
    s.queue.push_back(job(id, id, std::uniform_int_distribution<int>(1, 16)(rng),
                          std::uniform_int_distribution<Time>(10, 5000)(rng), -1, static_cast<int>(id % 7)));
  }
  return s;
}

// A timed search does not begin a move its learned cost expects to end past
// the deadline, and learns the cost of the moves it makes; an untimed one (a
// simulation) ignores the cost.
TEST(TabuSearch, ATimedSearchBeginsNoMoveItExpectsToOverrunItsDeadline) {
  TabuMoveCost cost;
  cost.record(0.01, 100);
  EXPECT_DOUBLE_EQ(cost.seconds_per_job, 1e-4);
  cost.record(0.02, 100);  // a quarter of the new sample
  EXPECT_DOUBLE_EQ(cost.seconds_per_job, 1.25e-4);
  const auto t = std::chrono::steady_clock::time_point{};
  EXPECT_EQ(cost.expected_end(t, 1000) - t, std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                std::chrono::duration<double>(0.125)));

  const Snapshot s = full_partition_with_200_waiting();
  auto plan_of = [&] {
    TabuPlan plan(s.total_units, s.now);
    for (const RunningJob& r : s.running) plan.add_running(r.job, r.start, r.expected_end(s.now));
    plan.insert_all(s.queue, s.now);
    return plan;
  };
  const auto in_a_minute = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  {
    // A move expected to take 200 x 1 s: none is begun.
    TabuPlan plan = plan_of();
    const Starts before = starts(plan);
    TabuMoveCost slow{1.0};
    TabuSearchStats stats;
    std::mt19937_64 rng(1);
    EXPECT_EQ(tabu_search(plan, s.now, 400, 10, false, rng, in_a_minute, stats, &slow), 0);
    EXPECT_EQ(stats.iterations, 0);
    EXPECT_EQ(starts(plan), before);
    EXPECT_EQ(slow.seconds_per_job, 1.0);  // nothing learned without a move
  }
  {
    // Nothing known yet: it moves, and learns what a move costs.
    TabuPlan plan = plan_of();
    TabuMoveCost unknown;
    TabuSearchStats stats;
    std::mt19937_64 rng(1);
    tabu_search(plan, s.now, 400, 10, false, rng, in_a_minute, stats, &unknown);
    EXPECT_EQ(stats.iterations, 400);
    EXPECT_GT(unknown.seconds_per_job, 0);
    EXPECT_LT(unknown.seconds_per_job, 0.3 / 200);  // a move on 200 jobs is far below 0.3 s
  }
  {
    // Untimed (a simulation): the cost is not consulted.
    TabuPlan plan = plan_of();
    TabuMoveCost slow{1.0};
    TabuSearchStats stats;
    std::mt19937_64 rng(1);
    tabu_search(plan, s.now, 400, 10, false, rng, std::chrono::steady_clock::time_point::max(), stats, &slow);
    EXPECT_EQ(stats.iterations, 400);
  }
}

TEST(TabuPolicy, TimeLimitAppliesLiveOnly) {
  for (const RunMode mode : {RunMode::Simulation, RunMode::Live}) {
    PolicyPtr p = make_policy("tabu:time-limit=0.000001", mode);
    // The partition's name does not decide it: only the mode does.
    p->step(full_partition_with_200_waiting(mode == RunMode::Live ? "" : "named"));
    const TabuSearchStats& stats = dynamic_cast<const TabuPolicy&>(*p).stats();
    EXPECT_EQ(stats.searches, 1);
    if (mode == RunMode::Simulation) {
      EXPECT_EQ(stats.iterations, 400);  // 2 x 200 waiting jobs
    } else {
      EXPECT_LT(stats.iterations, 400);  // 400 iterations cannot fit in a microsecond
    }
    EXPECT_TRUE(dynamic_cast<const TabuPolicy&>(*p).tabu_plan().consistent());
  }
}

// Live, a search stops at live-limit even when time-limit allows more (the
// answer to the plugin must not wait for it); a simulation ignores both.
TEST(TabuPolicy, LiveLimitCapsTheLiveSearch) {
  for (const RunMode mode : {RunMode::Simulation, RunMode::Live}) {
    PolicyPtr p = make_policy("tabu:time-limit=3600:live-limit=0.000001", mode);
    p->step(full_partition_with_200_waiting(""));
    const TabuSearchStats& stats = dynamic_cast<const TabuPolicy&>(*p).stats();
    EXPECT_EQ(stats.searches, 1);
    if (mode == RunMode::Simulation) {
      EXPECT_EQ(stats.iterations, 400);
    } else {
      EXPECT_LT(stats.iterations, 400);
    }
  }
  // Both at 0: no wall-clock cap at all, live or not.
  PolicyPtr uncapped = make_policy("tabu:live-limit=0:time-limit=0", RunMode::Live);
  uncapped->step(full_partition_with_200_waiting(""));
  EXPECT_EQ(dynamic_cast<const TabuPolicy&>(*uncapped).stats().iterations, 400);
  // The default cap is 10 ms, documented in docs/policies.md.
  EXPECT_EQ(make_policy("tabu", RunMode::Live)->name(), "tabu");
  EXPECT_EQ(make_policy("tabu:live-limit=0.5", RunMode::Live)->name(), "tabu:live-limit=0.5");
}

// live-limit counts from the step's start: a step that spent it planning a
// long queue (here 20,000 jobs, whole: plan-limit=0; far more than 2 ms on
// any machine) leaves its search no time, so the search is counted but
// makes no move; a simulation is not timed.
TEST(TabuPolicy, LiveLimitCountsFromTheStepsStart) {
  const Snapshot s = full_partition_with_200_waiting("", 20000);
  PolicyPtr live = make_policy("tabu:plan-limit=0:live-limit=0.002:budget=1", RunMode::Live);
  live->step(s);
  const TabuSearchStats& stats = dynamic_cast<const TabuPolicy&>(*live).stats();
  EXPECT_EQ(stats.searches, 1);
  EXPECT_EQ(stats.iterations, 0);
  EXPECT_EQ(dynamic_cast<const TabuPolicy&>(*live).tabu_plan().planned(), 20000u);
}

// `abort`: a search begun at t = 300 takes eval-cost simulated seconds per
// iteration; a job arriving at t = 302 stops it after the two iterations
// that fit, and the rest of its budget is lost.
TEST(TabuPolicy, AbortStopsTheSearchAtTheNextEvent) {
  Snapshot s = full_partition_with_200_waiting();
  PolicyPtr p = make_policy("tabu:abort:eval-cost=1:time-limit=0");
  const auto& tabu = dynamic_cast<const TabuPolicy&>(*p);
  const StepResult first = p->step(s);
  EXPECT_EQ(tabu.stats().searches, 1);
  EXPECT_EQ(tabu.stats().iterations, 0);  // it runs in simulated time, after t = 300
  EXPECT_EQ(first.wakeup, 600);           // undisturbed it would end at 700; the next search is due at 600
  s.now = 302;
  const Job late = job(201, 302, 4, 100, 100, 1);
  s.queue.push_back(late);
  s.events.push_back({SnapshotEvent::Kind::Arrived, late.id, late.size, 0, late.estimate});
  p->step(s);
  EXPECT_EQ(tabu.stats().iterations, 2);
  EXPECT_EQ(tabu.stats().aborted, 1);
  EXPECT_EQ(tabu.stats().iterations_lost, 398);  // 2 x 200 waiting jobs, 2 run
  EXPECT_TRUE(tabu.tabu_plan().consistent());
  // Live, the option is an error: the live search is bounded by time-limit.
  EXPECT_THROW(make_policy("tabu:abort", RunMode::Live), SpecError);
}

// In a simulation: a search that ends before the next event does what the
// search without `abort` does; one stopped before its first iteration
// changes nothing (the plan stays conservative backfilling's).
TEST(TabuPolicy, AbortedSearchInASimulation) {
  const Workload w = test::workload(
      4, {job(9, 0, 4, 400, 400, 3), job(1, 1, 4, 1000, 1000, 1), job(2, 2, 4, 10, 10, 2), job(3, 3, 4, 10, 10, 2)});
  const SimResult quick = test::run(w, "tabu:abort");
  EXPECT_EQ(test::start_of(quick, 2), 400);
  EXPECT_EQ(test::start_of(quick, 3), 410);
  EXPECT_EQ(test::start_of(quick, 1), 420);
  // 200 s per iteration: job 9 ends at 400, 100 s into the search.
  const SimResult slow = test::run(w, "tabu:abort:eval-cost=200:time-limit=0");
  EXPECT_EQ(test::start_of(slow, 1), 400);
  EXPECT_EQ(test::start_of(slow, 2), 1400);
}

// A rebuild from a snapshot (losd restarted, a resync) replays the old
// reservations in their old order and keeps their promises.
TEST(TabuPolicy, RebuildKeepsTheOrderAndThePromises) {
  auto snapshot = [](Time now, Time running_estimate, bool resync) {
    Snapshot s;
    s.now = now;
    s.total_units = 4;
    s.free_units = 0;
    s.resync = resync;
    RunningJob r;
    r.job = job(9, 0, 4, running_estimate, running_estimate, 3);
    r.start = 0;
    s.running.push_back(r);
    s.queue = {job(1, 0, 4, 10, 10, 1), job(2, 0, 2, 10, 10, 2), job(3, 0, 2, 50, 50, 2)};
    return s;
  };
  PolicyPtr p = make_policy("tabu:period=0:safe");
  const auto& tabu = dynamic_cast<const TabuPolicy&>(*p);
  p->step(snapshot(0, 100, false));
  // C (2 x 50) fits beside B at 110 at the first position after A: the
  // list is A, C, B.
  const Starts planned{{1, 100}, {3, 110}, {2, 110}};
  EXPECT_EQ(starts(tabu.tabu_plan()), planned);
  p->step(snapshot(10, 100, true));
  EXPECT_EQ(starts(tabu.tabu_plan()), planned);
  EXPECT_TRUE(tabu.tabu_plan().consistent());
  // The running job now runs until 200: the same order, 100 s later; the
  // promises are still the first starts.
  p->step(snapshot(20, 200, true));
  EXPECT_EQ(starts(tabu.tabu_plan()), (Starts{{1, 200}, {3, 210}, {2, 210}}));
  for (const TabuPlan::Entry& e : tabu.tabu_plan().entries()) EXPECT_EQ(e.promise, e.start - 100);
  EXPECT_TRUE(tabu.tabu_plan().consistent());
}

TEST(TabuPolicy, WithoutSearchItIsConservativeBackfilling) {
  const std::string file = test::shared_trace("KTH-SP2-1996-2.1-cln.swf.gz");
  if (file.empty()) GTEST_SKIP() << "shared traces absent";
  const Workload w = perfect_window(file, 2000, 3000);
  const SimResult cons = test::run(w, "conservative");
  const SimResult tabu = test::run(w, "tabu:period=0");
  for (std::size_t i = 0; i < w.jobs.size(); ++i)
    ASSERT_EQ(cons.jobs[i].start, tabu.jobs[i].start) << "job " << w.jobs[i].id;
}

TEST(TabuPolicy, RunsAreReproducibleAndSeedMatters) {
  const std::string file = test::shared_trace("KTH-SP2-1996-2.1-cln.swf.gz");
  if (file.empty()) GTEST_SKIP() << "shared traces absent";
  const Workload w = perfect_window(file, 2000, 2000);
  const SimResult a = test::run(w, "tabu");
  const SimResult b = test::run(w, "tabu");
  const SimResult c = test::run(w, "tabu:seed=2");
  bool differs = false;
  for (std::size_t i = 0; i < w.jobs.size(); ++i) {
    ASSERT_EQ(a.jobs[i].start, b.jobs[i].start);
    differs = differs || a.jobs[i].start != c.jobs[i].start;
  }
  EXPECT_TRUE(differs);
}

// Records each job's first planned start, whatever the policy calls it.
class FirstPlanObserver final : public SimObserver {
 public:
  void after_step(const Snapshot& snapshot, const StepResult&, const Policy& policy) override {
    const auto& tabu = dynamic_cast<const TabuPolicy&>(policy);
    for (const PlannedStart& p : tabu.planned_starts()) {
      if (p.start < snapshot.now) ++past;
      first.emplace(p.job, p.start);
    }
    if (++steps % 997 == 0) consistent = consistent && tabu.tabu_plan().consistent();
  }
  std::unordered_map<JobId, Time> first;
  std::size_t past = 0;
  std::size_t steps = 0;
  bool consistent = true;
};

std::size_t started_after_first_plan(const SimResult& r, const FirstPlanObserver& o) {
  std::size_t late = 0;
  for (const JobOutcome& j : r.jobs) {
    const auto it = o.first.find(j.job.id);
    if (it != o.first.end() && j.start > it->second) ++late;
  }
  return late;
}

// With the trace's own estimates jobs end early, compression opens room, and
// safe mode has moves to make (with perfect estimates it has almost none).
TEST(TabuPolicy, SafeNeverStartsAJobAfterItsFirstReservation) {
  const std::string file = test::shared_trace("KTH-SP2-1996-2.1-cln.swf.gz");
  if (file.empty()) GTEST_SKIP() << "shared traces absent";
  Workload w = read_swf(file);
  cut_window(w, 3000, 3000);
  for (const std::string spec : {"tabu", "tabu:safe"}) {
    PolicyPtr p = make_policy(spec);
    FirstPlanObserver plans;
    const SimResult r = simulate(w, *p, {}, &plans);
    EXPECT_EQ(plans.past, 0u) << spec << ": a reservation in the past";
    EXPECT_TRUE(plans.consistent) << spec;
    const TabuSearchStats& stats = dynamic_cast<const TabuPolicy&>(*p).stats();
    EXPECT_GT(stats.accepted, 0) << spec;
    const std::size_t late = started_after_first_plan(r, plans);
    if (spec == "tabu") {
      // The check can fail: the unrestricted search does delay jobs.
      EXPECT_GT(late, 0u);
    } else {
      EXPECT_EQ(late, 0u);
      EXPECT_GT(stats.rejected_unsafe, 0);
      // And the invariant checker, which reads reservations() as promises, agrees.
      PolicyPtr again = make_policy(spec);
      InvariantChecker checker;
      const SimResult r2 = simulate(w, *again, {}, &checker);
      EXPECT_EQ(checker.check(r2, true), std::vector<std::string>{});
      EXPECT_FALSE(checker.first_promises().empty());
    }
  }
}

// Every shared trace under tabu, tabu:safe and bf-fair, with the trace's
// own estimates (early ends: compression is exercised) and with perfect
// ones; one test per policy and estimate kind, so ctest runs them in
// parallel. tabu:safe's reservations are promises and the checker holds it
// to them. bf-fair runs each whole trace; the two tabu policies run the
// first kTabuTraceJobs jobs of each (thousands of searches, compressions and
// promises per trace): their whole traces took 250-900 s each, most of the
// test suite's time, and proved nothing more.
constexpr std::size_t kTabuTraceJobs = 10000;

class TabuTraceInvariants : public ::testing::TestWithParam<std::tuple<std::string, bool>> {};

TEST_P(TabuTraceInvariants, EveryTraceKeepsEveryInvariant) {
  const std::vector<std::string> traces = test::shared_traces();
  if (traces.empty()) GTEST_SKIP() << "shared traces absent";
  const auto& [spec, perfect] = GetParam();
  for (const std::string& file : traces) {
    Workload w = read_swf(file);
    if (spec != "bf-fair" && w.jobs.size() > kTabuTraceJobs) w.jobs.resize(kTabuTraceJobs);
    if (perfect) {
      for (Job& j : w.jobs) j.estimate = std::max<Time>(j.runtime, 1);
    }
    PolicyPtr p = make_policy(spec);
    InvariantChecker checker;
    const SimResult r = simulate(w, *p, {}, &checker);
    EXPECT_EQ(checker.check(r, true), std::vector<std::string>{})
        << std::filesystem::path(file).filename() << " " << spec << (perfect ? " perfect" : "");
    EXPECT_EQ(r.jobs.size(), w.jobs.size());
    if (spec == "tabu:safe") {
      EXPECT_FALSE(checker.first_promises().empty());
    }
    if (spec != "bf-fair") {
      EXPECT_GT(dynamic_cast<const TabuPolicy&>(*p).stats().searches, 0);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(SharedTraces, TabuTraceInvariants,
                         ::testing::Combine(::testing::Values("tabu", "tabu:safe", "bf-fair"), ::testing::Bool()),
                         [](const auto& info) {
                           std::string n = std::get<0>(info.param);
                           for (char& c : n) {
                             if (c == ':' || c == '-') c = '_';
                           }
                           return n + (std::get<1>(info.param) ? "_perfect" : "_trace_estimates");
                         });

// ---------------------------------------------------------------------------
// BF-FAIR

TEST(BfFair, UserWithTheHighestNormalizedWaitGoesFirst) {
  // 2 units. Job 1 (user 1) runs 0-10 without waiting; job 2 (user 2) waits
  // 10 s and runs 10-20. Jobs 3 (user 1) and 4 (user 2) arrive at 5, 3 first.
  // At 20 user 2 has NUWT 10 / 20 = 0.5 and user 1 has 0: job 4 goes first.
  const Workload w = test::workload(
      2, {job(1, 0, 2, 10, 10, 1), job(2, 0, 2, 10, 10, 2), job(3, 5, 2, 10, 10, 1), job(4, 5, 2, 10, 10, 2)});
  const SimResult fair = test::run(w, "bf-fair");
  EXPECT_EQ(test::start_of(fair, 2), 10);  // no finished job has waited yet: queue order
  EXPECT_EQ(test::start_of(fair, 4), 20);
  EXPECT_EQ(test::start_of(fair, 3), 30);
  const SimResult fcfs = test::run(w, "fcfs");
  EXPECT_EQ(test::start_of(fcfs, 3), 20);
}

TEST(BfFair, BackfillsWithoutReservations) {
  // 4 units: job 1 holds 3 until 100; job 2 needs 4 and waits; job 3 (1 unit)
  // starts at once beside job 1.
  const Workload w = test::workload(4, {job(1, 0, 3, 100, 100, 1), job(2, 1, 4, 10, 10, 2), job(3, 2, 1, 500, 500, 3)});
  const SimResult r = test::run(w, "bf-fair");
  EXPECT_EQ(test::start_of(r, 3), 2);
  EXPECT_EQ(test::start_of(r, 2), 502);
}

TEST(BfFair, NuwtFromFinishedJobs) {
  BfFairPolicy p;
  Snapshot s;
  s.total_units = 4;
  s.free_units = 4;
  s.now = 0;
  s.queue = {job(1, 0, 2, 10, 10, 7)};
  EXPECT_EQ(p.step(s).decisions.size(), 1u);
  s.queue.clear();
  s.now = 30;
  s.events = {{SnapshotEvent::Kind::Ended, 1, 2, 10, 10}};  // started at 10, ran 20 s on 2 units
  p.step(s);
  EXPECT_DOUBLE_EQ(p.user_nuwt(7), 10.0 / 40);
  EXPECT_DOUBLE_EQ(p.user_nuwt(8), 0.0);
}

// Live, a resync carries no events: a job running at the last step and not
// now ended in between, and counts as finished as the Ended event would have
// it. Job 1 (user 7) was submitted at 0 and started at 10; it ends before
// the resync at 30: user 7's NUWT is 10 / (20 x 2), as by the event.
TEST(BfFair, AResyncCountsAJobThatEndedMeanwhileAsFinished) {
  auto snapshot = [](Time now, bool running) {
    Snapshot s;
    s.total_units = 4;
    s.free_units = running ? 2 : 4;
    s.now = now;
    if (running) {
      RunningJob r;
      r.job = job(1, 0, 2, 100, 100, 7);
      r.start = 10;
      s.running.push_back(r);
    }
    s.queue = {job(2, 5, 4, 10, 10, 8)};
    return s;
  };
  Snapshot waiting = snapshot(0, false);
  waiting.queue.insert(waiting.queue.begin(), job(1, 0, 2, 100, 100, 7));
  waiting.free_units = 0;  // nothing starts yet
  for (const bool resync : {false, true}) {
    BfFairPolicy p(RunMode::Live);
    p.step(waiting);
    const Snapshot started = snapshot(10, true);
    p.step(started);
    Snapshot ended = snapshot(30, false);
    if (resync) {
      ended.resync = true;
    } else {
      ended.events = diff_snapshots(started, ended);
    }
    p.step(ended);
    EXPECT_DOUBLE_EQ(p.user_nuwt(7), 10.0 / 40) << (resync ? "resync" : "events");
  }
}

}  // namespace
}  // namespace los
