// Gang policies rebuilt from a resync snapshot (losd restarted, a policy
// switch, a lost message): hand-built matrix states come back as the same
// rows in the same cyclic order, impossible states lose no job, and whole
// simulations with resyncs at random steps stay sound.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "hand_partition.hpp"
#include "policies/gang.hpp"
#include "policy/registry.hpp"
#include "resync_property.hpp"
#include "sim/forecast.hpp"
#include "sim/invariants.hpp"
#include "test_support.hpp"
#include "workload/models.hpp"
#include "workload/transform.hpp"

namespace los {
namespace {

using test::job;

using test::Machine;

std::unique_ptr<GangPolicy> gang(const std::string& spec) {
  PolicyPtr p = make_policy(spec);
  auto* g = dynamic_cast<GangPolicy*>(p.get());
  if (!g) throw std::logic_error(spec + " is not a gang policy");
  p.release();
  return std::unique_ptr<GangPolicy>(g);
}

// The matrix's non-empty rows as sets of jobs, from the active row on in
// cycle order: what a resync must preserve (row numbers it may change).
std::vector<std::vector<JobId>> cycle(const GangPolicy& p) {
  std::vector<std::vector<JobId>> out;
  const GangMatrix* m = p.matrix();
  if (!m) return out;
  for (int k = 0; k < m->rows(); ++k) {
    std::vector<JobId> row = m->jobs_in_row((p.active_row() + k) % m->rows());
    std::sort(row.begin(), row.end());
    if (!row.empty()) out.push_back(row);
  }
  return out;
}

std::vector<std::pair<int, JobId>> kinds(const StepResult& r) {
  std::vector<std::pair<int, JobId>> out;
  for (const Decision& d : r.decisions) out.push_back({static_cast<int>(d.kind), d.job});
  return out;
}

using Kind = Decision::Kind;

TEST(GangResync, CapabilityIsStated) {
  for (const char* spec : {"gang", "bgs", "mgs", "mbgs", "bgs:plan=rebuild", "mbgs:mpl=2:plan=rebuild"}) {
    const PolicyPtr p = make_policy(spec);
    EXPECT_TRUE(p->capabilities().resync) << spec;
    EXPECT_TRUE(p->capabilities().time_sharing) << spec;
  }
  // the jobs it may hold on one node: one per row
  EXPECT_EQ(make_policy("gang")->capabilities().jobs_per_node, 5);
  EXPECT_EQ(make_policy("mbgs:mpl=2")->capabilities().jobs_per_node, 2);
  EXPECT_EQ(make_policy("bgs:mpl=1")->capabilities().jobs_per_node, 1);
}

// Three rows, full-width jobs A and B and two halves C, D: after two slice
// ends C and D execute, A and B are suspended. A fresh instance rebuilds the
// same three rows in the same cycle, suspends nothing, and its next slice
// resumes A as the old instance's does (one slice after the resync: the
// slice clock restarts at the snapshot's time).
TEST(GangResync, RebuildsTheRowsAndTheCycle) {
  for (const char* spec :
       {"gang:mpl=3:slice=100", "bgs:mpl=3:slice=100", "mgs:mpl=3:slice=100", "mbgs:mpl=3:slice=100:plan=rebuild"}) {
    SCOPED_TRACE(spec);
    Machine m(4);
    auto old = gang(spec);
    m.arrive(job(1, 0, 4, 1000));
    m.arrive(job(2, 0, 4, 1000));
    m.arrive(job(3, 0, 2, 1000));
    m.arrive(job(4, 0, 2, 1000));
    m.step(*old, 0);
    m.step(*old, 100);
    m.step(*old, 200);
    ASSERT_EQ(cycle(*old), (std::vector<std::vector<JobId>>{{3, 4}, {1}, {2}}));
    ASSERT_TRUE(m.running(1).suspended);
    ASSERT_FALSE(m.running(3).suspended);

    auto fresh = gang(spec);
    const StepResult r = fresh->step(m.resync_snapshot());
    EXPECT_TRUE(r.decisions.empty()) << "a consistent state needs no switch";
    EXPECT_EQ(cycle(*fresh), cycle(*old));
    EXPECT_EQ(fresh->active_row(), 0);
    EXPECT_EQ(r.wakeup, 300);  // resync at t=200: a full slice from now
    EXPECT_EQ(r.admitted, 0u);

    // The same instance resynced again: idempotent.
    const StepResult again = fresh->step(m.resync_snapshot());
    EXPECT_TRUE(again.decisions.empty());
    EXPECT_EQ(cycle(*fresh), cycle(*old));

    // Both go on alike: the next slice suspends C, D and resumes A.
    Machine copy = m;
    const StepResult next_old = m.step(*old, 300);
    const StepResult next_fresh = copy.step(*fresh, 300);
    EXPECT_EQ(kinds(next_fresh), kinds(next_old));
    EXPECT_EQ(kinds(next_fresh), (std::vector<std::pair<int, JobId>>{{static_cast<int>(Kind::Suspend), 3},
                                                                     {static_cast<int>(Kind::Suspend), 4},
                                                                     {static_cast<int>(Kind::Resume), 1}}));
  }
}

// The rebuilt state schedules the queue: a waiting job that fits a row
// with free columns is admitted, and the resync starts it at once if that
// row is the active one.
TEST(GangResync, SchedulesTheQueueFromTheSnapshot) {
  Snapshot s;
  s.now = 50;
  s.total_units = 4;
  s.free_units = 2;
  s.running.push_back(RunningJob{job(1, 0, 2, 500), 0, false, {0, 1}});
  s.running.push_back(RunningJob{job(2, 0, 4, 500), 10, true, {0, 1, 2, 3}});
  s.queue.push_back(job(3, 20, 2, 100));
  s.queue.push_back(job(4, 30, 4, 100));
  s.resync = true;
  auto g = gang("gang:mpl=2:slice=100");
  const StepResult r = g->step(s);
  // Job 3 fits next to job 1 in the active row; job 4 fits no row and
  // waits (gang's Schedule is FCFS and stops there).
  EXPECT_EQ(kinds(r), (std::vector<std::pair<int, JobId>>{{static_cast<int>(Kind::Start), 3}}));
  ASSERT_EQ(r.decisions.size(), 1u);
  EXPECT_EQ(r.decisions[0].nodes, (std::vector<int>{2, 3}));
  EXPECT_EQ(cycle(*g), (std::vector<std::vector<JobId>>{{1, 3}, {2}}));
}

// BGS with one row is conservative backfilling: a resync re-plans the
// reservations from the queue in its order, behind the running job's
// estimate.
TEST(GangResync, ReplansReservationsInQueueOrder) {
  Snapshot s = test::one_running_one_blocked();
  s.queue.push_back(job(3, 6, 1, 500));  // would delay job 2: waits
  s.queue.push_back(job(4, 7, 1, 60));   // ends before job 2's start: backfilled
  auto g = gang("bgs:mpl=1");
  const StepResult r = g->step(s);
  EXPECT_EQ(kinds(r), (std::vector<std::pair<int, JobId>>{{static_cast<int>(Kind::Start), 4}}));
  std::map<JobId, Time> promised;
  for (const PlannedStart& p : g->reservations()) promised[p.job] = p.start;
  EXPECT_EQ(promised, (std::map<JobId, Time>{{2, 100}, {3, 150}}));
  EXPECT_EQ(r.wakeup, 100);
}

// More jobs overlap on a unit than there are rows: the job that fits no row
// stays suspended (never dropped, never started again) and is resumed on
// its own units once a row has them free, before any queued job.
TEST(GangResync, AJobBeyondTheRowsWaitsSuspendedAndIsNeverLost) {
  for (const char* spec : {"gang:mpl=2:slice=100", "bgs:mpl=2:slice=100", "mbgs:mpl=2:slice=100"}) {
    SCOPED_TRACE(spec);
    Machine m(2);
    m.s.now = 0;
    m.s.free_units = 0;
    m.s.running.push_back(RunningJob{job(1, 0, 2, 100), 0, false, {0, 1}});
    m.s.running.push_back(RunningJob{job(2, 0, 2, 1000), 1, true, {0, 1}});
    m.s.running.push_back(RunningJob{job(3, 0, 1, 1000), 2, true, {1}});
    m.s.queue.push_back(job(4, 0, 1, 50));
    m.s.resync = true;
    auto g = gang(spec);
    const StepResult r = m.step(*g, 5);
    EXPECT_TRUE(r.decisions.empty());
    EXPECT_FALSE(g->matrix()->contains(3));
    EXPECT_EQ(cycle(*g), (std::vector<std::vector<JobId>>{{1}, {2}}));

    // Job 1 ends: job 3 takes its column 1 in the free row before job 4.
    m.end(1);
    const StepResult after = m.step(*g, 80);
    EXPECT_TRUE(g->matrix()->contains(3));
    EXPECT_EQ(g->matrix()->columns_of(3), (std::vector<int>{1}));
    const auto resumed =
        std::find_if(after.decisions.begin(), after.decisions.end(), [](const Decision& d) { return d.job == 3; });
    ASSERT_NE(resumed, after.decisions.end());
    EXPECT_EQ(resumed->kind, Kind::Resume);
    EXPECT_EQ(resumed->nodes, (std::vector<int>{1}));
    for (const Decision& d : after.decisions) EXPECT_FALSE(d.kind == Kind::Start && d.job != 4) << d.job;
  }
}

// Two executing jobs on one unit (a snapshot no gang state has): the second
// in (start, id) order is suspended and waits as above.
TEST(GangResync, OverlappingExecutingJobsAreSuspendedNotStartedTwice) {
  Machine m(2);
  m.s.free_units = 0;
  m.s.running.push_back(RunningJob{job(1, 0, 1, 100), 0, false, {0}});
  m.s.running.push_back(RunningJob{job(2, 0, 1, 100), 3, false, {0}});
  m.s.resync = true;
  auto g = gang("gang:mpl=1");
  const StepResult r = m.step(*g, 10);
  EXPECT_EQ(kinds(r), (std::vector<std::pair<int, JobId>>{{static_cast<int>(Kind::Suspend), 2}}));
  m.end(1);
  const StepResult after = m.step(*g, 100);
  EXPECT_EQ(kinds(after), (std::vector<std::pair<int, JobId>>{{static_cast<int>(Kind::Resume), 2}}));
  m.end(2);
  EXPECT_TRUE(m.step(*g, 200).decisions.empty());
  EXPECT_TRUE(g->matrix()->empty());
}

// losd's predicted starts replay a fresh instance from a live snapshot
// (begin_from_snapshot): with gang jobs executing and suspended that is a
// resync, which now works instead of throwing.
TEST(GangResync, ForecastsFromASnapshotWithSuspendedJobs) {
  const Workload w = generate_model(parse_model_spec("lublin:jobs=300:nodes=64:seed=7")).workload;
  struct Pick final : SimObserver {
    void after_step(const Snapshot& s, const StepResult&, const Policy&) override {
      const bool suspended =
          std::any_of(s.running.begin(), s.running.end(), [](const RunningJob& r) { return r.suspended; });
      if (suspended && s.queue.size() > 2 && snapshots.size() < 4 && ++seen % 10 == 0) snapshots.push_back(s);
    }
    std::size_t seen = 0;
    std::vector<Snapshot> snapshots;
  } pick;
  PolicyPtr p = make_policy("gang");
  simulate(w, *p, {}, &pick);
  ASSERT_FALSE(pick.snapshots.empty());
  for (const char* spec : {"gang", "bgs", "mgs", "mbgs:plan=rebuild"}) {
    for (const Snapshot& s : pick.snapshots) {
      std::vector<Time> starts;
      ASSERT_NO_THROW(starts = forecast_starts(s, spec)) << spec << " at t=" << s.now;
      ASSERT_EQ(starts.size(), s.queue.size());
      for (std::size_t i = 0; i < starts.size(); ++i) {
        EXPECT_GE(starts[i], s.now) << spec << " job " << s.queue[i].id;
        EXPECT_LT(starts[i], kTimeInfinity) << spec << " job " << s.queue[i].id;
      }
    }
  }
}

// ---- whole simulations with resyncs -----------------------------------------------

using test::expect_sound_with_resyncs;

const char* const kSpecs[] = {"gang",
                              "gang:mpl=3:cs=2",
                              "bgs",
                              "bgs:mpl=2:cs=1:plan=rebuild",
                              "mgs:c=10:q=64",
                              "mbgs:mpl=3:c=0:q=-1",
                              "mbgs:plan=rebuild:migrate_idle"};

TEST(GangResyncSimulation, LublinWorkloadsStaySoundWithResyncsAtRandomSteps) {
  const Workload w = generate_model(parse_model_spec("lublin:jobs=600:nodes=64:seed=11")).workload;
  ASSERT_FALSE(w.jobs.empty());
  unsigned seed = 1;
  for (const char* spec : kSpecs) {
    expect_sound_with_resyncs(w, spec, seed++, true);
    expect_sound_with_resyncs(w, spec, seed++, false);
  }
}

TEST(GangResyncSimulation, ATraceStaysSoundWithResyncsAtRandomSteps) {
  const std::string path = test::shared_trace("SDSC-SP2-1998-4.2-cln.swf.gz");
  if (path.empty()) GTEST_SKIP() << "shared trace absent";
  SwfReadOptions ro;
  ro.units = 128;
  Workload w = read_swf(path, ro);
  cut_window(w, 0, 800);
  scale_to_load(w, 0.95, true);
  unsigned seed = 100;
  for (const char* spec : kSpecs) expect_sound_with_resyncs(w, spec, seed++, true);
}

// Without resync steps the seam changes nothing.
TEST(GangResyncSimulation, NoResyncStepsIsThePlainRun) {
  const Workload w = generate_model(parse_model_spec("lublin:jobs=300:nodes=64:seed=5")).workload;
  for (const char* spec : {"gang", "mbgs"}) {
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
