// The simulator's event model: remaining work across suspend/resume, overhead
// stalls, wake-ups, and the checks that catch a broken policy.
#include <gtest/gtest.h>

#include <functional>

#include "sim/simulator.hpp"
#include "test_support.hpp"

namespace los {
namespace {

using test::job;
using test::workload;

// A policy driven by a script: at each step it returns what the script says.
class ScriptedPolicy final : public Policy {
 public:
  explicit ScriptedPolicy(std::function<StepResult(const Snapshot&)> f) : f_(std::move(f)) {}
  std::string name() const override { return "scripted"; }
  StepResult step(const Snapshot& s) override { return f_(s); }

 private:
  std::function<StepResult(const Snapshot&)> f_;
};

const JobOutcome& outcome(const SimResult& r, JobId id) {
  for (const JobOutcome& o : r.jobs) {
    if (o.job.id == id) return o;
  }
  throw std::out_of_range("job");
}

TEST(Simulator, SuspendResumeKeepsRemainingWorkAndChargesOverhead) {
  // A needs 100 s, B 50 s, both the whole machine.
  // t=0 start A. t=30 suspend A (70 s left), start B with 5 s overhead.
  // t=60 suspend B (5 s overhead + 25 s work done, 25 left), resume A with 10 s
  // overhead: A ends at 60 + 10 + 70 = 140. Then B resumes: ends at 165.
  const Workload w = workload(10, {job(1, 0, 10, 1000, 100), job(2, 0, 10, 1000, 50)});
  std::vector<std::vector<SnapshotEvent::Kind>> seen;
  ScriptedPolicy p([&](const Snapshot& s) {
    std::vector<SnapshotEvent::Kind> kinds;
    for (const auto& e : s.events) kinds.push_back(e.kind);
    seen.push_back(kinds);
    StepResult r;
    if (s.now == 0) {
      r.decisions = {Decision::start(1)};
      r.wakeup = 30;
    } else if (s.now == 30) {
      Decision b = Decision::start(2);
      b.overhead = 5;
      r.decisions = {Decision::suspend(1), b};
      r.wakeup = 60;
    } else if (s.now == 60) {
      Decision a = Decision::resume(1);
      a.overhead = 10;
      r.decisions = {Decision::suspend(2), a};
    } else if (s.now == 140) {
      r.decisions = {Decision::resume(2)};
    }
    return r;
  });
  const SimResult r = simulate(w, p);
  EXPECT_EQ(outcome(r, 1).start, 0);
  EXPECT_EQ(outcome(r, 1).end, 140);
  EXPECT_EQ(outcome(r, 2).start, 30);
  EXPECT_EQ(outcome(r, 2).end, 165);
  EXPECT_EQ(outcome(r, 1).executed, 100);
  EXPECT_EQ(outcome(r, 1).suspensions, 1);
  EXPECT_EQ(r.suspensions, 2u);
  EXPECT_DOUBLE_EQ(r.overhead, 10.0 * 5 + 10.0 * 10);
  // Steps at 0, 30, 60, 140 (A ends), 165 (B ends); events reach the next step.
  ASSERT_EQ(seen.size(), 5u);
  using K = SnapshotEvent::Kind;
  EXPECT_EQ(seen[0], (std::vector<K>{K::Arrived, K::Arrived}));
  EXPECT_EQ(seen[1], (std::vector<K>{K::Started}));
  EXPECT_EQ(seen[2], (std::vector<K>{K::Suspended, K::Started}));
  EXPECT_EQ(seen[3], (std::vector<K>{K::Suspended, K::Resumed, K::Ended}));
  EXPECT_EQ(seen[4], (std::vector<K>{K::Resumed, K::Ended}));
}

TEST(Simulator, JobsAreKilledAtTheirEstimateUnlessNoKill) {
  const Workload w = workload(4, {job(1, 0, 2, 50, 80)});
  SimResult r = test::run(w, "fcfs");
  EXPECT_EQ(outcome(r, 1).end, 50);
  EXPECT_TRUE(outcome(r, 1).killed);
  r = test::run(w, "fcfs", /*kill_at_estimate=*/false);
  EXPECT_EQ(outcome(r, 1).end, 80);
  EXPECT_FALSE(outcome(r, 1).killed);
}

TEST(Simulator, OverrunningJobsDoNotBreakReservations) {
  // --no-kill: J1 runs 40 s past its estimate. The policies must notice that
  // its units are not back and re-plan instead of starting J2 on them.
  const Workload w = workload(10, {job(1, 0, 8, 10, 50), job(2, 1, 6, 10), job(3, 2, 2, 5)});
  for (const char* name : {"easy", "conservative", "depth:k=2", "aggressive", "fcfs"}) {
    const SimResult r = test::run(w, name, false);
    EXPECT_EQ(outcome(r, 2).start, 50) << name;
    EXPECT_GE(outcome(r, 3).start, 2) << name;
  }
}

TEST(Simulator, RejectsAStartBeyondTheFreeUnits) {
  const Workload w = workload(4, {job(1, 0, 3, 10), job(2, 0, 3, 10)});
  ScriptedPolicy greedy([](const Snapshot& s) {
    StepResult r;
    for (const Job& j : s.queue) r.decisions.push_back(Decision::start(j.id));
    return r;
  });
  try {
    simulate(w, greedy);
    FAIL();
  } catch (const SimulationError& e) {
    EXPECT_NE(std::string(e.what()).find("policy scripted at t=0, job 2: start needs 3 units but only 1 are free"),
              std::string::npos)
        << e.what();
  }
}

TEST(Simulator, RejectsAPolicyThatNeverStartsAJob) {
  const Workload w = workload(4, {job(1, 0, 3, 10)});
  ScriptedPolicy idle([](const Snapshot&) { return StepResult{}; });
  EXPECT_THROW(simulate(w, idle), SimulationError);
}

TEST(Simulator, ZeroLengthJobsStartAndEndAtOnce) {
  const Workload w = workload(4, {job(1, 0, 4, 10, 0), job(2, 0, 4, 10)});
  const SimResult r = test::run(w, "fcfs");
  EXPECT_EQ(outcome(r, 1).start, 0);
  EXPECT_EQ(outcome(r, 1).end, 0);
  EXPECT_EQ(outcome(r, 2).start, 0);
}

}  // namespace
}  // namespace los
