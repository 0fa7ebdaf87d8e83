// Tabu's insertion read off the availability profile (issue 17) equals the
// spec's list scan, a batch of insertions equals one insertion after
// another, and a search move's re-insertion read off the replay's probe
// equals the scan, on random plans driven through what the policy does to
// them: starts, early ends, withdrawals, compressions, search moves.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <random>

#include "policies/tabu_plan.hpp"
#include "test_support.hpp"

namespace los {
namespace {

using test::job;

void expect_same_plans(const TabuPlan& a, const TabuPlan& b, const std::string& where) {
  ASSERT_EQ(a.entries().size(), b.entries().size()) << where;
  for (std::size_t i = 0; i < a.entries().size(); ++i) {
    const TabuPlan::Entry& x = a.entries()[i];
    const TabuPlan::Entry& y = b.entries()[i];
    ASSERT_EQ(x.id, y.id) << where << " position " << i;
    ASSERT_EQ(x.start, y.start) << where << " position " << i;
    ASSERT_EQ(x.promise, y.promise) << where << " position " << i;
    ASSERT_EQ(x.confirmed, y.confirmed) << where << " position " << i;
  }
  ASSERT_EQ(a.movable(), b.movable()) << where;
  const TabuCriteria ca = a.criteria(), cb = b.criteria();
  ASSERT_EQ(ca.wait, cb.wait) << where;
  ASSERT_EQ(ca.bsd, cb.bsd) << where;
  ASSERT_EQ(ca.fairness, cb.fairness) << where;
}

struct Counts {
  int probes = 0;          // profile vs scan compared
  int inside = 0;          // ... of which the job went before some listed job
  int tied = 0;            // ... of which a listed job starts at the same time
  int batches = 0;         // insert_all vs one by one
  int kept_moves = 0;
  int move_probes = 0;     // a move's insertion: probe vs scan compared
  int move_inside = 0;     // ... of which the job went before some listed job
  int move_gave_up = 0;    // ... of which a safe move passed its promise
  int early_ends = 0;
};

// One random plan through `steps` steps of a policy's life.
void drive(std::uint64_t seed, int steps, Counts& n) {
  std::mt19937_64 rng(seed);
  auto uniform = [&rng](long long lo, long long hi) { return std::uniform_int_distribution<long long>(lo, hi)(rng); };
  const int units = static_cast<int>(uniform(1, 48));
  // Durations from a few values, so that starts often coincide.
  const Time durations[] = {1, 5, 10, 10, 20, 30, 60, 100, 7, 13};
  auto duration = [&] { return durations[uniform(0, 9)] * (uniform(0, 3) == 0 ? uniform(1, 4) : 1); };
  TabuPlan plan(units, 0);
  std::map<JobId, Time> running;  // id -> expected end
  JobId next_id = 1;
  int used = 0;
  for (int r = 0; r < 4 && used < units; ++r) {
    const int size = static_cast<int>(uniform(1, units - used));
    used += size;
    const Time end = duration();
    plan.add_running(job(next_id, 0, size, end, end, static_cast<int>(uniform(1, 5))), 0, end);
    running[next_id++] = end;
  }
  Time now = 0;
  for (int step = 0; step < steps; ++step) {
    const std::string where = "seed " + std::to_string(seed) + " step " + std::to_string(step);
    // Time moves to the next event at most (as a simulator steps).
    Time next = now + uniform(0, 15);
    next = std::min(next, plan.first_start());
    for (const auto& [id, end] : running) next = std::min(next, end);
    now = std::max(now, next);
    plan.advance_to(now);
    bool freed = false;
    // Expected ends, and sometimes an early one.
    for (auto it = running.begin(); it != running.end();) {
      const bool early = uniform(0, 9) == 0;
      if (it->second <= now || early) {
        ASSERT_TRUE(plan.end_running(it->first, now, freed)) << where;
        n.early_ends += it->second > now;
        it = running.erase(it);
      } else {
        ++it;
      }
    }
    if (!plan.entries().empty() && uniform(0, 6) == 0) {
      const auto& list = plan.entries();
      const TabuPlan::Entry& e = list[static_cast<std::size_t>(uniform(0, static_cast<long long>(list.size()) - 1))];
      if (!e.starting) freed = plan.remove(e.id) || freed;
    }
    if (freed) plan.compress();
    // Due jobs start.
    for (const JobId id : plan.take_due(now)) {
      const TabuPlan::Entry e = *plan.find(id);
      ASSERT_TRUE(plan.start_planned(id, e.start)) << where;
      running[id] = e.start + e.duration;
    }
    ASSERT_TRUE(plan.consistent()) << where;
    // The profile's answer and the scan's, for jobs of every shape.
    if (plan.profile_insertion()) {
      for (int probe = 0; probe < 6; ++probe) {
        const int size = static_cast<int>(uniform(1, units));
        const Time d = duration();
        const auto by_scan = plan.insertion_by_scan(size, d);
        ASSERT_EQ(plan.insertion_by_profile(size, d), by_scan) << where << " size " << size << " duration " << d;
        ++n.probes;
        n.inside += by_scan.first < plan.entries().size();
        for (const TabuPlan::Entry& e : plan.entries()) {
          if (e.start == by_scan.second) {
            ++n.tied;
            break;
          }
        }
      }
    }
    // Arrivals: a batch, and the same jobs one by one on a copy.
    std::vector<Job> queue;
    for (const TabuPlan::Entry& e : plan.entries()) queue.push_back(job(e.id, 0, e.size, e.duration));
    const int arrivals = static_cast<int>(uniform(0, 3) == 0 ? uniform(8, 16) : uniform(0, 7));
    for (int a = 0; a < arrivals; ++a) {
      queue.push_back(job(next_id++, now - uniform(0, 50), static_cast<int>(uniform(1, units)), duration(), -1,
                          static_cast<int>(uniform(1, 5))));
    }
    std::shuffle(queue.begin(), queue.end(), rng);
    TabuPlan one_by_one = plan;
    plan.insert_all(queue, now);
    for (const Job& j : queue) {
      if (!one_by_one.contains(j.id)) one_by_one.insert(j, now);
    }
    expect_same_plans(plan, one_by_one, where);
    n.batches += arrivals > 1;
    ASSERT_TRUE(plan.consistent()) << where;
    // Search moves change the list the way no insertion does.
    if (plan.movable().size() >= 2 && uniform(0, 2) == 0) {
      plan.prepare();
      for (int m = 0; m < 8; ++m) {
        const std::vector<JobId>& movable = plan.movable();
        const JobId id = movable[static_cast<std::size_t>(uniform(0, static_cast<long long>(movable.size()) - 1))];
        const bool safe = uniform(0, 2) == 0;
        const TabuPlan::MoveInsertions in = plan.move_insertions(id, now, safe);
        if (in.probed) {
          const std::string what = where + " move " + std::to_string(m) + " of job " + std::to_string(id);
          if (in.by_scan.second > in.give_up) {  // gave up: some start after the promise
            ASSERT_GT(in.by_probe.second, in.give_up) << what;
            ASSERT_EQ(in.by_probe.first, in.by_scan.first) << what;
            ++n.move_gave_up;
          } else {
            ASSERT_EQ(in.by_probe, in.by_scan) << what;
          }
          ++n.move_probes;
          n.move_inside += in.by_scan.first + 1 < plan.entries().size();
        }
        n.kept_moves += plan.try_move(id, now, safe) == TabuPlan::MoveResult::Kept;
      }
      ASSERT_TRUE(plan.consistent()) << where;
    }
    plan.confirm_promises();
  }
}

TEST(TabuInsertion, ProfileEqualsTheListScanAndBatchesEqualSingleInsertions) {
  Counts n;
  for (std::uint64_t seed = 1; seed <= 150; ++seed) {
    drive(seed, 60, n);
    if (HasFatalFailure()) return;
  }
  // The cases that matter were reached: jobs placed inside the list, at a
  // start another job has, after moves and early ends.
  EXPECT_GT(n.probes, 20000);
  EXPECT_GT(n.inside, 2000);
  EXPECT_GT(n.tied, 2000);
  EXPECT_GT(n.batches, 2000);
  EXPECT_GT(n.kept_moves, 200);
  EXPECT_GT(n.early_ends, 200);
  EXPECT_GT(n.move_probes, 5000);
  EXPECT_GT(n.move_inside, 1000);
  EXPECT_GT(n.move_gave_up, 100);
  std::printf("probes %d inside %d tied %d batches %d kept moves %d early ends %d move probes %d inside %d gave up %d\n",
              n.probes, n.inside, n.tied, n.batches, n.kept_moves, n.early_ends, n.move_probes, n.move_inside,
              n.move_gave_up);
}

// A plan where the running jobs hold more units than the machine (the
// profile would go negative): insertion falls back to the scan, and a
// batch still equals single insertions.
TEST(TabuInsertion, OverbookedRunningJobsFallBackToTheScan) {
  TabuPlan plan(4, 0);
  plan.add_running(job(90, 0, 3, 50, 50, 1), 0, 50);
  plan.add_running(job(91, 0, 3, 20, 20, 1), 0, 20);
  EXPECT_FALSE(plan.profile_insertion());
  TabuPlan one_by_one = plan;
  const std::vector<Job> queue = {job(1, 0, 2, 10), job(2, 0, 4, 5), job(3, 0, 1, 30)};
  plan.insert_all(queue, 0);
  for (const Job& j : queue) one_by_one.insert(j, 0);
  expect_same_plans(plan, one_by_one, "overbooked");
}

}  // namespace
}  // namespace los
