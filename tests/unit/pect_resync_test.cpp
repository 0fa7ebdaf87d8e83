// SCOJO-PECT and pect-search rebuilt from a resync snapshot (losd restarted,
// a policy switch, a lost message): hand-built states come back as the same
// slice with the same executing and preempted jobs and the same next
// decisions, impossible states lose no job, and whole simulations with
// resyncs at random steps stay sound.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "hand_partition.hpp"
#include "policies/pect.hpp"
#include "policies/pect_search.hpp"
#include "policy/registry.hpp"
#include "resync_property.hpp"
#include "sim/invariants.hpp"
#include "test_support.hpp"
#include "workload/models.hpp"
#include "workload/transform.hpp"

namespace los {
namespace {

using test::job;
using Kind = Decision::Kind;

using test::Machine;

std::vector<std::pair<int, JobId>> kinds(const StepResult& r) {
  std::vector<std::pair<int, JobId>> out;
  for (const Decision& d : r.decisions) out.push_back({static_cast<int>(d.kind), d.job});
  return out;
}

std::unique_ptr<PectPolicy> pect(const std::string& spec) {
  PolicyPtr p = make_policy(spec);
  auto* g = dynamic_cast<PectPolicy*>(p.get());
  if (!g) throw std::logic_error(spec + " is not a pect policy");
  p.release();
  return std::unique_ptr<PectPolicy>(g);
}

TEST(PectResync, CapabilityIsStated) {
  EXPECT_TRUE(make_policy("pect")->capabilities().resync);
  EXPECT_TRUE(make_policy("pect-search")->capabilities().resync);
}

// A long job preempted for a short slice: a fresh instance resynced in the
// short slice sees the same slice, suspends and starts nothing, and then
// takes the same decisions as the instance that followed the events.
TEST(PectResync, RebuildsTheSliceAndDecidesAsTheOriginal) {
  for (const char* spec : {"pect", "pect-search"}) {
    SCOPED_TRACE(spec);
    Machine m(4);
    auto original = pect(spec);
    m.arrive(job(1, 0, 4, 20000));
    m.step(*original, 0);
    m.arrive(job(2, 10, 4, 100));
    m.step(*original, 10);
    m.step(*original, 9917);  // long slice ends: job 1 suspended, gap
    m.step(*original, 9977);  // short slice: job 2 starts
    ASSERT_TRUE(m.running(1).suspended);
    ASSERT_FALSE(m.running(2).suspended);
    ASSERT_EQ(original->current(), PectClass::Short);

    auto fresh = pect(spec);
    const StepResult r = fresh->step(m.resync_snapshot(10000));
    EXPECT_TRUE(r.decisions.empty()) << "a consistent state needs no decision";
    EXPECT_EQ(fresh->phase(), PectPolicy::Phase::Slice);
    EXPECT_EQ(fresh->current(), PectClass::Short);

    // Job 2 ends: both switch (gap), then job 1 resumes on its nodes.
    m.end(2);
    Snapshot s = m.s;
    s.now = 10077;
    const StepResult a = fresh->step(s);
    const StepResult b = m.step(*original, 10077);
    EXPECT_EQ(kinds(a), kinds(b));
    EXPECT_EQ(a.wakeup, b.wakeup);
    s = m.s;
    s.now = 10137;
    const StepResult c = fresh->step(s);
    const StepResult d = m.step(*original, 10137);
    EXPECT_EQ(kinds(c), kinds(d));
    ASSERT_EQ(c.decisions.size(), 1u);
    EXPECT_EQ(c.decisions[0].kind, Kind::Resume);
    EXPECT_EQ(c.decisions[0].nodes, m.running(1).nodes);
  }
}

// Nothing executes (a switch gap, or every job preempted): the resync ends
// the gap and the next class with work gets its slice at once.
TEST(PectResync, NothingExecutingBeginsTheNextSliceAtOnce) {
  Machine m(4);
  auto original = pect("pect");
  m.arrive(job(1, 0, 4, 20000));
  m.step(*original, 0);
  m.arrive(job(2, 10, 4, 100));
  m.step(*original, 10);
  m.step(*original, 9917);  // job 1 suspended, gap until 9977
  ASSERT_TRUE(m.running(1).suspended);
  auto fresh = pect("pect");
  const StepResult r = fresh->step(m.resync_snapshot(9920));
  // The cycle from MEDIUM: LONG is the first class with work; job 1 resumes.
  ASSERT_EQ(r.decisions.size(), 1u);
  EXPECT_EQ(r.decisions[0].kind, Kind::Resume);
  EXPECT_EQ(r.decisions[0].job, 1);
  EXPECT_EQ(r.decisions[0].nodes, m.running(1).nodes);
  EXPECT_EQ(fresh->current(), PectClass::Long);
  EXPECT_EQ(r.wakeup, 9920 + PectOptions{}.long_slice());
}

// Two executing jobs on the same node (an impossible state): the later one
// is suspended, never started again, and resumes once its node is free.
TEST(PectResync, OverlappingExecutingJobsAreSuspendedNotStartedTwice) {
  Machine m(2);
  RunningJob a;
  a.job = job(1, 0, 2, 5000);
  a.start = 0;
  a.nodes = {0, 1};
  RunningJob b = a;
  b.job = job(2, 0, 2, 5000);
  b.start = 5;
  m.s.running = {a, b};
  m.s.free_units = 0;
  auto p = pect("pect");
  m.s.now = 100;
  m.s.resync = true;
  StepResult r = p->step(m.s);
  m.s.resync = false;
  ASSERT_EQ(r.decisions.size(), 1u);
  EXPECT_EQ(r.decisions[0].kind, Kind::Suspend);
  EXPECT_EQ(r.decisions[0].job, 2);
  m.running(2).suspended = true;
  m.end(1);
  m.s.free_units = 2;
  r = m.step(*p, 4000);
  ASSERT_EQ(r.decisions.size(), 1u);
  EXPECT_EQ(r.decisions[0].kind, Kind::Resume);
  EXPECT_EQ(r.decisions[0].job, 2);
}

// A running job without a node list takes the lowest nodes free for its
// class; queued jobs then start on the others.
TEST(PectResync, AJobWithoutNodesTakesTheLowestFree) {
  Machine m(4);
  RunningJob a;
  a.job = job(1, 0, 2, 5000);
  a.start = 0;
  m.s.running = {a};
  m.s.free_units = 2;
  m.s.queue = {job(2, 50, 2, 5000)};
  auto p = pect("pect");
  m.s.now = 100;
  m.s.resync = true;
  const StepResult r = m.step(*p, 100);
  ASSERT_EQ(r.decisions.size(), 1u);
  EXPECT_EQ(r.decisions[0].kind, Kind::Start);
  EXPECT_EQ(r.decisions[0].nodes, (std::vector<int>{2, 3}));
}

// Whole simulations with resyncs at random steps (fresh instances or the
// same one): tests/support/resync_property.hpp.
using test::expect_sound_with_resyncs;

TEST(PectResyncSimulation, LublinWorkloadsStaySoundWithResyncsAtRandomSteps) {
  Workload w = generate_model(parse_model_spec("lublin:jobs=600:nodes=64:seed=11")).workload;
  ASSERT_FALSE(w.jobs.empty());
  unsigned seed = 1;
  for (const char* spec : {"pect", "pect:switch=0:smart=false", "pect-search", "pect-search:level2=false"}) {
    expect_sound_with_resyncs(w, spec, seed++, true);
    expect_sound_with_resyncs(w, spec, seed++, false);
  }
}

// Without resync steps the seam changes nothing.
TEST(PectResyncSimulation, NoResyncStepsIsThePlainRun) {
  const Workload w = generate_model(parse_model_spec("lublin:jobs=300:nodes=64:seed=5")).workload;
  for (const char* spec : {"pect", "pect-search"}) {
    const SimResult a = test::run(w, spec);
    PolicyPtr p = make_policy(spec);
    SimOptions o;
    o.on_resync = [&]() -> Policy& { return *p; };
    const SimResult b = simulate(w, *p, o);
    ASSERT_EQ(a.jobs.size(), b.jobs.size());
    for (std::size_t i = 0; i < a.jobs.size(); ++i) {
      EXPECT_EQ(a.jobs[i].start, b.jobs[i].start);
      EXPECT_EQ(a.jobs[i].end, b.jobs[i].end);
    }
  }
}

}  // namespace
}  // namespace los
