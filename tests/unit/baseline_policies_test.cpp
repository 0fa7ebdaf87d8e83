// Hand-computed schedules for every baseline policy: ties, early completion,
// oversize jobs, an empty queue. The derivations are in the comments.
#include <gtest/gtest.h>

#include <map>

#include "policies/backfilling.hpp"
#include "policy/registry.hpp"
#include "test_support.hpp"

namespace los {
namespace {

using test::job;
using test::run;
using test::start_of;
using test::workload;

std::map<JobId, Time> starts(const SimResult& r) {
  std::map<JobId, Time> out;
  for (const JobOutcome& o : r.jobs) out[o.job.id] = o.start;
  return out;
}

// 10 units. J1 runs [0,10) on 6. J2 (8 units) must wait for J1. J3 (9 units)
// must wait for J2. J4 and J5 are small but long (2 units, 100 s).
//   EASY: J2 holds the reservation at 10 with 2 extra units; J4 fits now and
//     in the extra units, so it backfills at 3 — and delays J3, which holds no
//     reservation, until J4 ends at 103. J5 then finds no extra units left and
//     waits for J3: 103 + 20 = 123.
//   conservative: J3 is promised [20,40), so J4 and J5 may not take its
//     units: both start at 40.
//   aggressive: no reservations: J4 at 3 and J5 at 4 take the units J2 needs;
//     J2 starts when J4 ends (103), J3 when J2 ends (113).
//   fcfs: strictly in order: 0, 10, 20, 40, 40.
Workload contention() {
  return workload(10, {job(1, 0, 6, 10), job(2, 1, 8, 10), job(3, 2, 9, 20), job(4, 3, 2, 100), job(5, 4, 2, 100)});
}

TEST(BaselinePolicies, Fcfs) {
  EXPECT_EQ(starts(run(contention(), "fcfs")), (std::map<JobId, Time>{{1, 0}, {2, 10}, {3, 20}, {4, 40}, {5, 40}}));
}

TEST(BaselinePolicies, Easy) {
  EXPECT_EQ(starts(run(contention(), "easy")), (std::map<JobId, Time>{{1, 0}, {2, 10}, {3, 103}, {4, 3}, {5, 123}}));
}

TEST(BaselinePolicies, Conservative) {
  EXPECT_EQ(starts(run(contention(), "conservative")),
            (std::map<JobId, Time>{{1, 0}, {2, 10}, {3, 20}, {4, 40}, {5, 40}}));
}

TEST(BaselinePolicies, Aggressive) {
  EXPECT_EQ(starts(run(contention(), "aggressive")),
            (std::map<JobId, Time>{{1, 0}, {2, 103}, {3, 113}, {4, 3}, {5, 4}}));
}

TEST(BaselinePolicies, DepthTwoProtectsTheFirstTwoBlockedJobs) {
  // J2 and J3 hold reservations (10 and 20); J4 and J5 cannot start now
  // without taking J3's units, and get theirs when the depth frees up: 40.
  EXPECT_EQ(starts(run(contention(), "depth:k=2")),
            (std::map<JobId, Time>{{1, 0}, {2, 10}, {3, 20}, {4, 40}, {5, 40}}));
  // Depth 1 is EASY, depth 0 is aggressive.
  EXPECT_EQ(starts(run(contention(), "depth:k=1")), starts(run(contention(), "easy")));
  EXPECT_EQ(starts(run(contention(), "depth:k=0")), starts(run(contention(), "aggressive")));
}

// The same jobs, but J1 ends at 5 instead of its estimate 10.
//   conservative compresses: J2 moves from 10 to 5, J3 from 20 to 15, J4 and
//     J5 from 40 to 35 (J3 now ends at 35).
//   EASY: J4 has backfilled at 3; at 5 J2 starts; J3's shadow is J4's end (103).
Workload early_end() {
  return workload(10, {job(1, 0, 6, 10, 5), job(2, 1, 8, 10), job(3, 2, 9, 20), job(4, 3, 2, 100), job(5, 4, 2, 100)});
}

TEST(BaselinePolicies, ConservativeCompressesOnEarlyCompletion) {
  EXPECT_EQ(starts(run(early_end(), "conservative")),
            (std::map<JobId, Time>{{1, 0}, {2, 5}, {3, 15}, {4, 35}, {5, 35}}));
}

TEST(BaselinePolicies, EasyMovesTheHeadOnEarlyCompletion) {
  EXPECT_EQ(starts(run(early_end(), "easy")), (std::map<JobId, Time>{{1, 0}, {2, 5}, {3, 103}, {4, 3}, {5, 123}}));
}

// Jobs submitted together keep their workload order. J1 and J2 (6 units each)
// cannot run together; J3 (4 units, 10 s) fits beside J1.
//   fcfs: J3 queues behind J2 and starts with it at 10.
//   EASY: J3 ends by J2's shadow time (10), so it backfills at 0.
TEST(BaselinePolicies, TiesKeepSubmitOrder) {
  const Workload w = workload(10, {job(1, 0, 6, 10), job(2, 0, 6, 10), job(3, 0, 4, 10)});
  EXPECT_EQ(starts(run(w, "fcfs")), (std::map<JobId, Time>{{1, 0}, {2, 10}, {3, 10}}));
  EXPECT_EQ(starts(run(w, "easy")), (std::map<JobId, Time>{{1, 0}, {2, 10}, {3, 0}}));
  EXPECT_EQ(starts(run(w, "conservative")), (std::map<JobId, Time>{{1, 0}, {2, 10}, {3, 0}}));
}

// EASY's extra units count every job that ends at the shadow time: two
// running jobs of 3 units both end at 10, so at the shadow 10 units are free,
// the head takes 6 and 4 are extra. A 4-unit job that runs past the shadow
// backfills. (Counting only the first job to end would give 1 extra unit.)
TEST(BaselinePolicies, EasyExtraCountsAllJobsEndingAtTheShadow) {
  const Workload w = workload(10, {job(1, 0, 3, 10), job(2, 0, 3, 10), job(3, 1, 6, 10), job(4, 2, 4, 50)});
  const SimResult r = run(w, "easy");
  EXPECT_EQ(start_of(r, 3), 10);
  EXPECT_EQ(start_of(r, 4), 2);
}

// A job wider than the usable units is passed over, never waited for.
TEST(BaselinePolicies, OversizeJobIsPassedOver) {
  Snapshot s;
  s.now = 0;
  s.total_units = 10;
  s.free_units = 10;
  s.queue = {job(1, 0, 12, 10), job(2, 0, 3, 10)};
  for (const char* name : {"fcfs", "easy", "conservative", "aggressive", "depth"}) {
    PolicyPtr p = make_policy(name);
    const StepResult r = p->step(s);
    ASSERT_EQ(r.decisions.size(), 1u) << name;
    EXPECT_EQ(r.decisions[0].job, 2) << name;
    EXPECT_TRUE(p->reservations().empty()) << name;
  }
}

TEST(BaselinePolicies, EmptyQueueDecidesNothing) {
  Snapshot s;
  s.now = 100;
  s.total_units = 10;
  s.free_units = 10;
  for (const char* name : {"fcfs", "easy", "conservative", "aggressive", "depth:k=3"}) {
    PolicyPtr p = make_policy(name);
    EXPECT_TRUE(p->step(s).decisions.empty()) << name;
  }
  // And an empty workload simulates to an empty result.
  const SimResult r = run(workload(10, {}), "conservative");
  EXPECT_TRUE(r.jobs.empty());
}

TEST(BaselinePolicies, ConservativePromisesEveryWaitingJob) {
  // After the first steps of the contention workload every blocked job holds
  // a reservation, and the promises match the final starts.
  Snapshot s;
  s.total_units = 10;
  s.free_units = 4;
  s.now = 3;
  RunningJob r1;
  r1.job = job(1, 0, 6, 10);
  r1.start = 0;
  s.running = {r1};
  s.queue = {job(2, 1, 8, 10), job(3, 2, 9, 20), job(4, 3, 2, 100)};
  PolicyPtr p = make_policy("conservative");
  EXPECT_TRUE(p->step(s).decisions.empty());
  const auto res = p->reservations();
  ASSERT_EQ(res.size(), 3u);
  EXPECT_EQ(res[0].job, 2);
  EXPECT_EQ(res[0].start, 10);
  EXPECT_EQ(res[1].job, 3);
  EXPECT_EQ(res[1].start, 20);
  EXPECT_EQ(res[2].job, 4);
  EXPECT_EQ(res[2].start, 40);
  // The plan is visible as an availability list.
  EXPECT_EQ(p->plan()->slots(), (std::vector<AvailabilitySlot>{
                                    {3, 10, 4}, {10, 20, 2}, {20, 40, 1}, {40, 140, 8}, {140, kTimeInfinity, 10}}));
}

TEST(BaselinePolicies, SpecErrorsNameTheProblem) {
  EXPECT_THROW(make_policy("nosuch"), SpecError);
  try {
    make_policy("depth:k=abc");
    FAIL();
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("'k' must be a whole number"), std::string::npos) << e.what();
  }
  try {
    make_policy("easy:k=3");
    FAIL();
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown parameter 'k'"), std::string::npos) << e.what();
  }
  EXPECT_EQ(make_policy("depth:k=7")->name(), "depth:k=7");
  EXPECT_EQ(make_policy("depth")->name(), "depth");  // defaults are not written
  EXPECT_EQ(make_policy("depth:k=4")->name(), "depth");
  const auto list = parse_spec_list("fcfs,depth:k=2,los:lookahead=10:traceback=selected-first");
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[2].params.at("traceback"), "selected-first");
  EXPECT_EQ(Spec::parse("x:flag").params.at("flag"), "true");
}

}  // namespace
}  // namespace los

namespace los {
namespace {

// On a live cluster a decision is applied a moment after the step: the policy
// sees the job started at 11 instead of 10 and keeps its other promises.
TEST(BaselinePolicies, LateStartOnALiveClusterKeepsThePlan) {
  PolicyPtr p = make_policy("conservative");
  Snapshot s;
  s.total_units = 10;
  s.free_units = 10;
  s.now = 10;
  s.queue = {test::job(1, 5, 6, 100), test::job(2, 6, 8, 50)};
  StepResult r = p->step(s);
  ASSERT_EQ(r.decisions.size(), 1u);
  EXPECT_EQ(r.decisions[0].job, 1);
  ASSERT_EQ(p->reservations().size(), 1u);
  EXPECT_EQ(p->reservations()[0].start, 110);
  // The next snapshot: job 1 started at 11.
  s.now = 12;
  RunningJob run;
  run.job = s.queue[0];
  run.start = 11;
  s.running = {run};
  s.free_units = 4;
  s.queue = {test::job(2, 6, 8, 50)};
  s.events = {{SnapshotEvent::Kind::Started, 1, 6, 11, 100}};
  r = p->step(s);
  EXPECT_TRUE(r.decisions.empty());
  ASSERT_EQ(p->reservations().size(), 1u);
  EXPECT_EQ(p->reservations()[0].start, 111);  // job 1 now ends at 111
  EXPECT_EQ(p->plan()->slots().front(), (AvailabilitySlot{12, 111, 4}));
}

}  // namespace
}  // namespace los
