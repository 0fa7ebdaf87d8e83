// Migration only for jobs that opted in (docs/gang-live.md): mgs and mbgs
// never move a started job whose Job::migratable is false to other units,
// and live, a job requeued for a migration keeps its new place in the matrix
// and is started there again.
//
// The scenario (2 units, MPL 2, 100 s slices): A, X, B (1 unit each) and D
// (both units) arrive at t=0. A and X go to row 0, B to row 1 on unit 0, X
// is replicated into row 1 on unit 1; D waits. At t=100 row 1's slice starts
// B. X ends at t=150: rows 0 and 1 each hold one job on unit 0 (A suspended,
// B executing), D waits, and CollapseMatrix-2 can empty a row for D only by
// moving A (option 2: to unit 1 of row 1) or B (option 1: to unit 1, A takes
// its place on unit 0). Which one is allowed depends on who opted in.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "hand_partition.hpp"
#include "policy/registry.hpp"
#include "test_support.hpp"

namespace los {
namespace {

constexpr JobId kA = 1, kX = 2, kB = 3, kD = 4;

struct Outcome {
  std::set<JobId> moved;              // started jobs resumed on other units
  std::map<JobId, Time> first_start;  // by the policy's Start decisions
};

// Steps the scenario to t=300 with `migratable` telling who opted in.
Outcome scenario(const std::string& spec, std::set<JobId> migratable) {
  test::Machine m(2);
  PolicyPtr p = make_policy(spec);
  for (JobId id : {kA, kX, kB}) m.arrive(test::job(id, 0, 1, 1000));
  m.arrive(test::job(kD, 0, 2, 1000));
  for (Job& j : m.s.queue) j.migratable = migratable.count(j.id) != 0;
  Outcome run;
  auto step = [&](Time t) {
    std::map<JobId, std::vector<int>> before;
    for (const RunningJob& r : m.s.running) before[r.job.id] = r.nodes;
    const StepResult res = m.step(*p, t);
    for (const Decision& d : res.decisions) {
      if (d.kind == Decision::Kind::Start) run.first_start.emplace(d.job, t);
      if (d.kind != Decision::Kind::Resume || d.nodes.empty()) continue;
      std::vector<int> to = d.nodes;
      std::vector<int> from = before.at(d.job);
      std::sort(to.begin(), to.end());
      std::sort(from.begin(), from.end());
      if (to != from) run.moved.insert(d.job);
    }
  };
  step(0);
  step(100);
  EXPECT_TRUE(m.running(kA).suspended);
  EXPECT_FALSE(m.running(kB).suspended);
  m.end(kX);
  step(150);
  step(200);
  step(300);
  return run;
}

class GangMigrationOptIn : public ::testing::TestWithParam<std::string> {};

TEST_P(GangMigrationOptIn, EveryJobMigratableMovesA) {
  // the simulator's case (every job may move): equal costs, option 2 moves A
  const Outcome r = scenario(GetParam(), {kA, kX, kB, kD});
  EXPECT_EQ(r.moved, (std::set<JobId>{kA}));
  EXPECT_EQ(r.first_start.at(kD), 200);  // row 0 emptied for D at t=150, its slice at 200
}

TEST_P(GangMigrationOptIn, OnlyTheOptedInJobIsMoved) {
  EXPECT_EQ(scenario(GetParam(), {kA}).moved, (std::set<JobId>{kA}));
  // A did not opt in: option 2 is out; B did, and option 1 moves B instead
  const Outcome r = scenario(GetParam(), {kB});
  EXPECT_EQ(r.moved, (std::set<JobId>{kB}));
  EXPECT_EQ(r.first_start.at(kD), 200);
}

TEST_P(GangMigrationOptIn, NoOptedInJobNoMigration) {
  // neither A nor B may move: no row is emptied, D waits for one to end
  const Outcome r = scenario(GetParam(), {});
  EXPECT_TRUE(r.moved.empty());
  EXPECT_EQ(r.first_start.count(kD), 0u);
}

INSTANTIATE_TEST_SUITE_P(MigrationPolicies, GangMigrationOptIn,
                         ::testing::Values("mgs:mpl=2:slice=100", "mbgs:mpl=2:slice=100"),
                         [](const auto& info) { return info.param.substr(0, info.param.find(':')); });

TEST(GangMigrationLive, ARequeuedJobIsStartedAgainOnItsNewUnits) {
  // live, losd turns A's move into a requeue: A leaves the running jobs and
  // is back in the queue; the policy starts it on the unit it moved it to
  test::Machine m(2);
  PolicyPtr p = make_policy("mgs:mpl=2:slice=100", RunMode::Live);
  for (JobId id : {kA, kX, kB}) m.arrive(test::job(id, 0, 1, 1000));
  m.arrive(test::job(kD, 0, 2, 1000));
  for (Job& j : m.s.queue) j.migratable = j.id == kA;
  m.step(*p, 0);
  m.step(*p, 100);
  m.end(kX);
  m.step(*p, 150);
  ASSERT_EQ(m.running(kA).nodes, (std::vector<int>{1}));  // moved (the Machine resumed it there)
  const Job a = m.running(kA).job;
  m.end(kA);  // the requeue: Ended, and A is pending again
  m.arrive(a);
  const StepResult r = m.step(*p, 152);
  const auto start = std::find_if(r.decisions.begin(), r.decisions.end(),
                                  [](const Decision& d) { return d.kind == Decision::Kind::Start && d.job == kA; });
  ASSERT_NE(start, r.decisions.end()) << "A not started again";
  EXPECT_EQ(start->nodes, (std::vector<int>{1}));
  // B kept its place, nothing else moved
  for (const Decision& d : r.decisions) EXPECT_NE(d.job, kB) << "B touched";
  EXPECT_FALSE(m.running(kB).suspended);
}

}  // namespace
}  // namespace los
