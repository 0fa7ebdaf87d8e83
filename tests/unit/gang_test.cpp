// Gang scheduling family: identities that pin the semantics (gang with MPL 1
// is FCFS, bgs with MPL 1 is conservative, no migration budget is no
// migration, zero overheads cost nothing) and hand-computed schedules.
#include <gtest/gtest.h>

#include <algorithm>

#include "hand_partition.hpp"
#include "policies/gang.hpp"
#include "policies/gang_matrix.hpp"
#include "policy/registry.hpp"
#include "sim/invariants.hpp"
#include "test_support.hpp"
#include "workload/estimates.hpp"
#include "workload/models.hpp"
#include "workload/transform.hpp"

namespace los {
namespace {

using test::end_of;
using test::job;
using test::run;
using test::start_of;
using test::workload;

// A shared trace window, 320 units as in the paper, load raised so that
// queues form (the identities are trivial on an idle machine).
Workload trace_window(const std::string& file, std::size_t jobs, double load) {
  const std::string path = test::shared_trace(file);
  if (path.empty()) return {};
  SwfReadOptions o;
  o.units = 320;
  Workload w = read_swf(path, o);
  cut_window(w, 0, jobs);
  scale_to_load(w, load, true);
  return w;
}

void expect_same_schedule(const SimResult& a, const SimResult& b) {
  ASSERT_EQ(a.jobs.size(), b.jobs.size());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < a.jobs.size(); ++i) {
    if (a.jobs[i].start != b.jobs[i].start || a.jobs[i].end != b.jobs[i].end) {
      if (++differ <= 5) {
        ADD_FAILURE() << a.policy << " vs " << b.policy << ": job " << a.jobs[i].job.id << " starts " << a.jobs[i].start
                      << "/" << b.jobs[i].start << ", ends " << a.jobs[i].end << "/" << b.jobs[i].end;
      }
    }
  }
  EXPECT_EQ(differ, 0u);
}

// ---- the matrix ----------------------------------------------------------------

// The paper's Phi model of overestimation (spec 4.3): a fraction phi ends at
// the estimate, run time / estimate is uniform on (0, 1) for the rest, so the
// median factor is 2 (1 - phi).
TEST(PhiEstimates, FollowThePapersLaw) {
  Random rng(7);
  const int n = 40000;
  int exact = 0, below_half = 0;
  std::vector<double> factors;
  double ratio_sum = 0;
  for (int i = 0; i < n; ++i) {
    const double f = phi_overestimation(0.2, rng);
    ASSERT_GE(f, 1.0);
    factors.push_back(f);
    if (f == 1.0) {
      ++exact;
      continue;
    }
    ratio_sum += 1 / f;
    if (1 / f <= 0.5) ++below_half;
  }
  EXPECT_NEAR(static_cast<double>(exact) / n, 0.2, 0.01);
  const int rest = n - exact;
  EXPECT_NEAR(ratio_sum / rest, 0.5, 0.01);  // uniform (0, 1): mean 1/2
  EXPECT_NEAR(static_cast<double>(below_half) / rest, 0.5, 0.01);
  std::nth_element(factors.begin(), factors.begin() + n / 2, factors.end());
  EXPECT_NEAR(factors[n / 2], 1.6, 0.05);
  EXPECT_EQ(phi_overestimation(1.0, rng), 1.0);  // phi = 1: perfect estimates
  EXPECT_THROW(phi_overestimation(1.5, rng), EstimateModelError);

  // The model's estimates=phi keeps the jobs of estimates=exact and gives
  // each an estimate at least its run time, exactly it for about phi of them.
  const Workload plain = generate_model(parse_model_spec("lublin:jobs=2000:nodes=256:seed=3")).workload;
  const Workload phi =
      generate_model(parse_model_spec("lublin:jobs=2000:nodes=256:seed=3:estimates=phi:phi=0.5")).workload;
  ASSERT_EQ(plain.jobs.size(), phi.jobs.size());
  int at_estimate = 0;
  for (std::size_t i = 0; i < phi.jobs.size(); ++i) {
    EXPECT_EQ(phi.jobs[i].submit, plain.jobs[i].submit);
    EXPECT_EQ(phi.jobs[i].runtime, plain.jobs[i].runtime);
    EXPECT_GE(phi.jobs[i].estimate, phi.jobs[i].runtime);
    at_estimate += phi.jobs[i].estimate == std::max<Time>(1, phi.jobs[i].runtime);
  }
  EXPECT_NEAR(static_cast<double>(at_estimate) / 2000, 0.5, 0.05);
}

TEST(GangMatrix, PlacesReplicatesAndCleans) {
  GangMatrix m(3, 8);
  m.place(1, 4, 0, m.lowest_free(0, 4));
  m.place(2, 2, 1, {2, 3});
  EXPECT_EQ(m.columns_of(1), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(m.free_count(0), 4);
  EXPECT_EQ(m.population(1), 2);
  EXPECT_FALSE(m.columns_free(1, m.columns_of(1)));
  m.replicate(1, 2);
  EXPECT_EQ(m.row_count(1), 2);
  EXPECT_EQ(m.jobs_on(1, {0, 1, 2, 3}), (std::vector<JobId>{2}));
  m.remove_replicas();
  EXPECT_EQ(m.row_count(1), 1);
  EXPECT_EQ(m.free_count(2), 8);
  m.move_home(2, 0, {4, 5});
  EXPECT_EQ(m.home_of(2), 0);
  EXPECT_EQ(m.free_count(1), 8);
  m.relocate(2, {6, 7});
  EXPECT_EQ(m.at(0, 6), 2);
  EXPECT_EQ(m.at(0, 4), GangMatrix::kNoJob);
  EXPECT_THROW(m.place(3, 3, 0, {0, 4, 5}), std::logic_error);  // column 0 is taken
  m.remove(1);
  EXPECT_EQ(m.free_count(0), 6);
  EXPECT_EQ(m.by_placement(), (std::vector<JobId>{2}));
}

// ---- options -------------------------------------------------------------------

TEST(Gang, OptionsHaveDocumentedDefaultsAndRejectBadInput) {
  PolicyPtr p = make_policy("gang");
  EXPECT_EQ(p->name(), "gang");  // defaults are not written
  EXPECT_EQ(make_policy(p->name())->name(), p->name());
  EXPECT_EQ(make_policy("mbgs")->name(), "mbgs");
  EXPECT_EQ(make_policy("mbgs:mpl=3:charge_start=false:migrate_idle:cs=2.5:plan=keep")->name(),
            "mbgs:charge_start=false:cs=2.5:migrate_idle:mpl=3");
  EXPECT_THROW(make_policy("gang:mpl=0"), SpecError);
  EXPECT_THROW(make_policy("gang:mpl=65"), SpecError);
  EXPECT_THROW(make_policy("gang:cs=-1"), SpecError);
  EXPECT_THROW(make_policy("gang:q=5"), SpecError);  // migration options belong to mgs/mbgs
  EXPECT_THROW(make_policy("mgs:q=-2"), SpecError);
  EXPECT_THROW(make_policy("bgs:slice=abc"), SpecError);
  EXPECT_THROW(make_policy("bgs:plan=later"), SpecError);
  EXPECT_THROW(make_policy("gang:plan=rebuild"), SpecError);  // no plan without backfilling
}

// ---- hand-computed schedules --------------------------------------------------

// Two full-width jobs share the machine slice by slice; the short one ends
// in its first slice and the long one then holds every row.
TEST(Gang, TwoFullJobsAlternateSlices) {
  const Workload w = workload(4, {job(1, 0, 4, 300), job(2, 0, 4, 100)});
  const SimResult r = run(w, "gang:mpl=2:slice=100");
  EXPECT_EQ(start_of(r, 1), 0);
  EXPECT_EQ(start_of(r, 2), 100);  // row 1 runs in the second slice
  EXPECT_EQ(end_of(r, 2), 200);
  EXPECT_EQ(end_of(r, 1), 400);  // 100 s in slice 0, then from 200 on in both rows
  EXPECT_EQ(r.overhead, 0);
  EXPECT_EQ(r.overhead_while_waiting, 0);
}

// The same with a 10 % context switch (10 s): every switch-in, first starts
// included, stalls the job; a job replicated into the next row is not switched.
TEST(Gang, ContextSwitchStallsEverySwitchIn) {
  const Workload w = workload(4, {job(1, 0, 4, 300), job(2, 0, 4, 100)});
  const SimResult r = run(w, "gang:mpl=2:slice=100:cs=10");
  // job 1: [0,100) 10 stall + 90; [200,300) 10 + 90; job 2: [100,200) 10 + 90,
  // [300,320) 10 + 10 -> ends 320; job 1 resumes at 320: 10 + 70 to 400, then
  // keeps running (replicated in both rows) and needs 50 more -> 450.
  EXPECT_EQ(end_of(r, 2), 320);
  EXPECT_EQ(end_of(r, 1), 450);
  EXPECT_EQ(r.overhead, 4.0 * (3 * 10) + 4.0 * (2 * 10));
  // Without the charge on first starts job 2 ends in its first slice (200),
  // and job 1 pays one switch-in when it resumes at 200: 10 + 200 -> 410.
  const SimResult r2 = run(w, "gang:mpl=2:slice=100:cs=10:charge_start=false");
  EXPECT_EQ(end_of(r2, 2), 200);
  EXPECT_EQ(end_of(r2, 1), 410);
  EXPECT_EQ(r2.overhead, 4.0 * 10);
}

// Backfilling inside a row: a small short job passes a blocked one in BGS;
// plain gang scheduling stops at the blocked job.
TEST(Gang, BackfillingInsideRows) {
  const Workload w = workload(4, {job(1, 0, 3, 100), job(2, 0, 4, 100), job(3, 0, 2, 100), job(4, 0, 1, 10)});
  const SimResult g = run(w, "gang:mpl=2:slice=100");
  // Job 1 (row 0) ends at 100; jobs 3 and 4 go to row 0, which runs again at 200.
  EXPECT_EQ(start_of(g, 2), 100);
  EXPECT_EQ(start_of(g, 3), 200);
  EXPECT_EQ(start_of(g, 4), 200);
  const SimResult b = run(w, "bgs:mpl=2:slice=100");
  // Job 3 is reserved in row 0 at 200 (job 1's hold: 2 x 100); job 4 fits the
  // free column of row 0 for 2 x 10 s and starts at once.
  EXPECT_EQ(start_of(b, 4), 0);
  EXPECT_EQ(end_of(b, 4), 10);
  EXPECT_EQ(start_of(b, 2), 100);
  // Job 1 ends at 100: job 3's reservation is compressed to 100 in row 0,
  // which runs next at 200.
  EXPECT_EQ(start_of(b, 3), 200);
}

// Migration: a relocation in FillMatrix-2 lets two half-width jobs that
// collide on columns {0,1} run in every row; a full-width arrival then finds
// an empty row after a free compaction. Without migration it waits for one of
// them to finish.
TEST(Gang, MigrationFillsAndFreesRows) {
  const Workload w =
      workload(4, {job(1, 0, 2, 1000), job(2, 0, 2, 50), job(3, 0, 2, 1000), job(4, 0, 2, 50), job(5, 300, 4, 100)});
  const SimResult g = run(w, "gang:mpl=2:slice=100");
  EXPECT_EQ(end_of(g, 1), 1900);  // ten slices of row 0
  EXPECT_EQ(start_of(g, 5), 2000);
  EXPECT_EQ(end_of(g, 5), 2100);
  const SimResult m = run(w, "mgs:mpl=2:slice=100:c=0:q=-1");
  EXPECT_EQ(start_of(m, 3), 100);
  EXPECT_EQ(start_of(m, 5), 400);
  EXPECT_EQ(end_of(m, 5), 500);
  EXPECT_EQ(end_of(m, 1), 1100);
  EXPECT_EQ(end_of(m, 3), 1200);
  EXPECT_EQ(m.overhead, 0);
  // With C = 20 s: job 3 is relocated (checkpoint + restart, 20 s on 2
  // nodes), job 1 waits for the checkpoint (10 s on 2 nodes).
  const SimResult c = run(w, "mgs:mpl=2:slice=100:c=20:q=-1");
  EXPECT_EQ(c.overhead, 2.0 * 20 + 2.0 * 10);
  // A budget of one task per slice forbids the two-task move.
  const SimResult q = run(w, "mgs:mpl=2:slice=100:c=0:q=1");
  EXPECT_EQ(start_of(q, 5), start_of(g, 5));
}

// plan=rebuild (the spec's default for BGS): every event re-plans the queue;
// a running job holds its row for MPL x its remaining estimate.
TEST(Gang, RebuiltPlanUsesRemainingEstimates) {
  // Row 0: job 1 (3 of 4 columns, estimate 100); row 1: job 2 (full width).
  // Job 3 (full width) fits no row and is reserved in row 0 at 0 + 2 x 100 =
  // 200 (the tie with row 1 goes to the lower index). Job 4 (1 column,
  // estimate 60, so 2 x 60 = 120 s of row time) arrives at 50.
  //   plan=keep: row 0 has 1 column free over [50, 170), before job 3's
  //   reservation at 200: job 4 starts at once.
  //   plan=rebuild: job 1 has done 50 s and holds row 0 until 50 + 2 x 50 =
  //   150; re-planned first, job 3 is reserved in row 0 at 150, so job 4 no
  //   longer fits there and waits. Job 1 ends at 100, job 3 is placed in
  //   row 0 then and runs with row 0's next slice at 200; job 2 ends at 200,
  //   job 4 takes row 1 and runs in its slice at 300.
  const Workload w = workload(4, {job(1, 0, 3, 100), job(2, 0, 4, 100), job(3, 0, 4, 100), job(4, 50, 1, 60)});
  const SimResult keep = run(w, "bgs:mpl=2:slice=100");
  EXPECT_EQ(start_of(keep, 4), 50);
  const SimResult rebuilt = run(w, "bgs:mpl=2:slice=100:plan=rebuild");
  EXPECT_EQ(start_of(rebuilt, 3), 200);
  EXPECT_EQ(start_of(rebuilt, 4), 300);
}

// plan_factor: a job holds its row for plan_factor x its estimate (0, the
// default, is MPL: the spec's bound, §2.4). Same workload as above.
//   0 or 2 (= MPL): job 3 is reserved in row 0 at 0 + 2 x 100 = 200, and
//   job 4 (1 column, 2 x 60 = 120 s) fits the free column over [50, 170).
//   1: jobs 1 and 2 hold their rows until 100, job 3 is reserved in row 0
//   at 100, so job 4 (60 s) no longer fits before it and is reserved in
//   row 1 at 100; job 2 has not run by then (row 1 runs [100, 200)), its
//   hold is extended by a cycle and job 4 moves to 300, when row 1 runs
//   after job 2 ends at 200 and job 3 (row 0) runs [200, 300).
TEST(Gang, PlanFactorSetsTheHoldPerEstimate) {
  const Workload w = workload(4, {job(1, 0, 3, 100), job(2, 0, 4, 100), job(3, 0, 4, 100), job(4, 50, 1, 60)});
  const SimResult mpl = run(w, "bgs:mpl=2:slice=100");
  EXPECT_EQ(mpl.policy, "bgs:mpl=2:slice=100");  // the default is not written
  EXPECT_EQ(start_of(mpl, 4), 50);
  expect_same_schedule(mpl, run(w, "bgs:mpl=2:slice=100:plan_factor=2"));
  const SimResult one = run(w, "bgs:mpl=2:slice=100:plan_factor=1");
  EXPECT_EQ(one.policy, "bgs:mpl=2:plan_factor=1:slice=100");
  EXPECT_EQ(start_of(one, 3), 200);
  EXPECT_EQ(start_of(one, 4), 300);
  EXPECT_THROW(make_policy("bgs:plan_factor=-1"), SpecError);
  EXPECT_THROW(make_policy("gang:plan_factor=1"), SpecError);  // no plan without backfilling
  EXPECT_EQ(make_policy("mbgs:plan_factor=3")->name(), "mbgs:plan_factor=3");
}

using test::one_running_one_blocked;

// With MPL 1 the reservations are start times: plan_factor=3 holds job 1's
// row for 3 x 100 s, so job 2 is promised 300 instead of 100.
TEST(Gang, PlanFactorScalesTheReservedStart) {
  for (const auto& [spec, promised] : std::vector<std::pair<std::string, Time>>{
           {"bgs:mpl=1", 100}, {"bgs:mpl=1:plan_factor=1", 100}, {"bgs:mpl=1:plan_factor=3", 300}}) {
    PolicyPtr p = make_policy(spec);
    p->step(one_running_one_blocked());
    const std::vector<PlannedStart> planned = p->reservations();
    ASSERT_EQ(planned.size(), 1u) << spec;
    EXPECT_EQ(planned.front().job, 2) << spec;
    EXPECT_EQ(planned.front().start, promised) << spec;
  }
}

// The plan's counters (stats=true prints them): job 1's hold (MPL 1, 100 s)
// is cut short by its end at 60, which frees 40 s and compresses job 2's
// reservation from 100 to 60, where it starts.
TEST(Gang, PlanStatsCountEarlyEndsAndCompressions) {
  PolicyPtr p = make_policy("bgs:mpl=1");
  auto& g = dynamic_cast<GangPolicy&>(*p);
  p->step(one_running_one_blocked());
  EXPECT_EQ(g.plan_stats().reservations, 1);
  Snapshot next;
  next.now = 60;
  next.total_units = 4;
  next.free_units = 4;
  next.queue.push_back(job(2, 5, 4, 50));
  next.events.push_back({SnapshotEvent::Kind::Ended, 1, 3, 0, 100});
  const StepResult r = p->step(next);
  ASSERT_EQ(r.decisions.size(), 1u);
  EXPECT_EQ(r.decisions.front().job, 2);
  const GangPolicy::PlanStats& st = g.plan_stats();
  EXPECT_EQ(st.ended, 1);
  EXPECT_EQ(st.ended_early, 1);
  EXPECT_EQ(st.early_slack_seconds, 40);
  EXPECT_EQ(st.compress_moves, 1);
  EXPECT_EQ(st.compress_seconds, 40);
  EXPECT_EQ(st.overrun_extensions, 0);
  EXPECT_NE(g.stats_line().find("ended_early=1 early_slack_s=40"), std::string::npos);
}

// Job 1 outlives its hold (MPL 1: 100 s): at 100, when job 2's reservation
// falls due, the hold is extended by a cycle (MPL x slice = 200 s) and job 2
// is re-planned behind it; at 300 once more. One job, two extensions.
TEST(Gang, PlanStatsCountAnOverrunningJobOnce) {
  PolicyPtr p = make_policy("bgs:mpl=1");
  auto& g = dynamic_cast<GangPolicy&>(*p);
  Snapshot s = one_running_one_blocked();
  p->step(s);
  s.resync = false;
  for (const Time now : {Time{100}, Time{300}}) {
    s.now = now;
    EXPECT_TRUE(p->step(s).decisions.empty()) << now;
  }
  const GangPolicy::PlanStats& st = g.plan_stats();
  EXPECT_EQ(st.overrun_extensions, 2);
  EXPECT_EQ(st.overrun_jobs, 1);
  EXPECT_EQ(st.replan_delays, 2);
  ASSERT_EQ(p->reservations().size(), 1u);
  EXPECT_EQ(p->reservations().front().start, 500);
}

// ---- identities on shared traces ----------------------------------------------

class GangTrace : public ::testing::TestWithParam<const char*> {};

TEST_P(GangTrace, GangWithMpl1IsFcfs) {
  const Workload w = trace_window(GetParam(), 3000, 0.9);
  if (w.jobs.empty()) GTEST_SKIP() << "shared trace absent";
  expect_same_schedule(run(w, "fcfs"), run(w, "gang:mpl=1"));
}

TEST_P(GangTrace, BgsWithMpl1IsConservative) {
  const Workload w = trace_window(GetParam(), 3000, 0.9);
  if (w.jobs.empty()) GTEST_SKIP() << "shared trace absent";
  expect_same_schedule(run(w, "conservative"), run(w, "bgs:mpl=1"));
}

TEST_P(GangTrace, NoMigrationBudgetIsNoMigration) {
  const Workload w = trace_window(GetParam(), 2000, 0.9);
  if (w.jobs.empty()) GTEST_SKIP() << "shared trace absent";
  expect_same_schedule(run(w, "gang:mpl=3:cs=2"), run(w, "mgs:mpl=3:cs=2:q=0:c=30"));
  expect_same_schedule(run(w, "bgs:mpl=3:cs=2"), run(w, "mbgs:mpl=3:cs=2:q=0:c=30"));
}

TEST_P(GangTrace, ZeroOverheadsCostNothingAndChangeNothingElse) {
  const Workload w = trace_window(GetParam(), 2000, 0.9);
  if (w.jobs.empty()) GTEST_SKIP() << "shared trace absent";
  for (const char* spec : {"gang:mpl=3", "bgs:mpl=3", "mgs:mpl=3:c=0:q=-1", "mbgs:mpl=3:c=0:q=-1"}) {
    const SimResult a = run(w, spec);
    EXPECT_EQ(a.overhead, 0) << spec;
    EXPECT_EQ(a.overhead_while_waiting, 0) << spec;
    EXPECT_GT(a.suspensions, 0u) << spec;  // it did time-share
    // The switch-in charge is an overhead term only: off or on, nothing moves.
    expect_same_schedule(a, run(w, std::string(spec) + ":charge_start=false"));
  }
  // A positive overhead does cost something (the identities above can fail).
  const SimResult c = run(w, "gang:mpl=3:cs=5");
  EXPECT_GT(c.overhead, 0);
  EXPECT_GT(c.overhead_while_waiting, 0);
  const SimResult m = run(w, "mgs:mpl=3:c=30:q=-1");
  EXPECT_GT(m.overhead, 0);
}

TEST_P(GangTrace, SchedulesAreSoundAndEveryJobRuns) {
  const Workload w = trace_window(GetParam(), 2000, 0.95);
  if (w.jobs.empty()) GTEST_SKIP() << "shared trace absent";
  for (const char* spec : {"gang:mpl=5:cs=2", "bgs:mpl=2:cs=1", "mgs:mpl=5:c=10:q=64", "mbgs:mpl=5:cs=1:c=10:q=64",
                           "bgs:mpl=3:cs=2:plan=rebuild", "mbgs:mpl=5:c=10:q=64:plan=rebuild"}) {
    PolicyPtr p = make_policy(spec);
    InvariantChecker checker;
    const SimResult r = simulate(w, *p, {}, &checker);
    EXPECT_TRUE(checker.check(r, true).empty()) << spec << ": " << checker.check(r, true).front();
    double work = 0;
    for (const JobOutcome& o : r.jobs) {
      EXPECT_EQ(o.executed, effective_runtime(o.job, true));
      // A job's wall time is at least its dedicated run time plus overheads.
      EXPECT_GE(o.end - o.start, o.executed) << spec << " job " << o.job.id;
      work += static_cast<double>(o.executed) * o.job.size;
    }
    EXPECT_GT(work, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(SharedTraces, GangTrace,
                         ::testing::Values("lublin_256.swf.gz", "SDSC-SP2-1998-4.2-cln.swf.gz",
                                           "KTH-SP2-1996-2.1-cln.swf.gz"),
                         [](const auto& info) {
                           std::string n = info.param;
                           n = n.substr(0, n.find('.'));
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

}  // namespace
}  // namespace los
