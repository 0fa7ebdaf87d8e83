// LOS against the thesis's worked example (Shmueli 2003, Figs. 3.1-3.6,
// Tables 3.2 and 3.4-3.8) and the spec's Max-Slowdown vectors, through the
// table solver, the production solver and the policy itself.
#include "policies/los.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>

#include "policies/los_dp.hpp"
#include "policy/registry.hpp"
#include "sim/forecast.hpp"
#include "sim/invariants.hpp"
#include "test_support.hpp"

namespace los {
namespace {

// The example's waiting queue as the table sees it: wj1..wj5 as size_ssize
// (shadow 28, extra 3; wj2 ends by the shadow time).
LosProblem worked_example(LosTraceback rule = LosTraceback::BypassedFirst) {
  LosProblem p;
  p.jobs = {{7, 7, 0}, {2, 0, 0}, {1, 1, 0}, {2, 2, 0}, {3, 3, 0}};
  p.free_now = 5;
  p.extra = 3;
  p.traceback = rule;
  return p;
}

// "u_s M" for one cell, M in {B, S, SB}.
std::string cell_text(const LosCell& c) {
  std::ostringstream o;
  o << c.util << "_" << c.sutil << " " << (c.selected ? "S" : "") << (c.bypassed ? "B" : "");
  return o.str();
}

// Plane k of the table as rows i = 1..5 of columns j = 1..5.
std::vector<std::vector<std::string>> plane(const LosTable& t, int k) {
  std::vector<std::vector<std::string>> out;
  for (std::size_t i = 1; i < t.rows(); ++i) {
    std::vector<std::string> row;
    for (int j = 1; j <= t.free_now(); ++j) row.push_back(cell_text(t.at(i, j, k)));
    out.push_back(row);
  }
  return out;
}

using Plane = std::vector<std::vector<std::string>>;
const std::vector<std::string> kRow1 = {"0_0 B", "0_0 B", "0_0 B", "0_0 B", "0_0 B"};
const std::vector<std::string> kRow2 = {"0_0 B", "2_0 S", "2_0 S", "2_0 S", "2_0 S"};
const std::vector<std::string> kRow3 = {"1_1 S", "2_0 B", "3_1 S", "3_1 S", "3_1 S"};

TEST(LosTable, Table32And34PlaneZeroIsTheBasicAlgorithm) {
  LosTable t;
  los_select_table(worked_example(), &t);
  const std::vector<std::string> rest = {"0_0 B", "2_0 B", "2_0 B", "2_0 B", "2_0 B"};
  EXPECT_EQ(plane(t, 0), (Plane{kRow1, kRow2, rest, rest, rest}));
  // Column j = 0 and row i = 0 are zero padding in every plane.
  for (int k = 0; k <= 3; ++k) {
    for (std::size_t i = 0; i <= 5; ++i) EXPECT_EQ(t.at(i, 0, k).util, 0);
    for (int j = 0; j <= 5; ++j) EXPECT_EQ(t.at(0, j, k).util, 0);
  }
}

TEST(LosTable, Table35) {
  LosTable t;
  los_select_table(worked_example(), &t);
  const std::vector<std::string> rest = {"1_1 B", "2_0 B", "3_1 B", "3_1 B", "3_1 B"};
  EXPECT_EQ(plane(t, 1), (Plane{kRow1, kRow2, kRow3, rest, rest}));
}

TEST(LosTable, Table36WithTheSutilTieBreak) {
  LosTable t;
  los_select_table(worked_example(), &t);
  EXPECT_EQ(plane(t, 2), (Plane{kRow1,
                                kRow2,
                                kRow3,
                                {"1_1 B", "2_0 B", "3_1 B", "4_2 S", "4_2 S"},
                                {"1_1 B", "2_0 B", "3_1 B", "4_2 B", "4_2 B"}}));
  // m'[4][2][2]: selecting wj4 gives 2_2, bypassing gives 2_0: bypass only.
  EXPECT_EQ(cell_text(t.at(4, 2, 2)), "2_0 B");
}

TEST(LosTable, Table37RootIsATieWithBothMarkers) {
  LosTable t;
  los_select_table(worked_example(), &t);
  EXPECT_EQ(plane(t, 3), (Plane{kRow1,
                                kRow2,
                                kRow3,
                                {"1_1 B", "2_0 B", "3_1 B", "4_2 S", "5_3 S"},
                                {"1_1 B", "2_0 B", "3_1 B", "4_2 B", "5_3 SB"}}));
}

std::vector<std::size_t> both_solvers(const LosProblem& p, LosKey expected_key) {
  const LosSelection table = los_select_table(p);
  const LosSelection fast = los_select(p);
  EXPECT_EQ(table.chosen, fast.chosen);
  EXPECT_EQ(table.key, expected_key);
  EXPECT_EQ(fast.key, expected_key);
  return fast.chosen;
}

TEST(LosSelect, BypassedFirstGivesFig35AndSelectedFirstFig36) {
  // Indices are 0-based: wj2 is 1.
  EXPECT_EQ(both_solvers(worked_example(LosTraceback::BypassedFirst), {5, 3, 0}), (std::vector<std::size_t>{1, 2, 3}));
  EXPECT_EQ(both_solvers(worked_example(LosTraceback::SelectedFirst), {5, 3, 0}), (std::vector<std::size_t>{1, 4}));
}

TEST(LosSelect, BasicAlgorithmStartsOnlyWj2) {
  LosProblem p = worked_example();
  p.extra = 0;
  EXPECT_EQ(both_solvers(p, {2, 0, 0}), (std::vector<std::size_t>{1}));
}

TEST(LosSelect, MaxjobsBreaksTheRootTieTowardsThreeJobs) {
  for (LosTraceback rule : {LosTraceback::BypassedFirst, LosTraceback::SelectedFirst}) {
    LosProblem p = worked_example(rule);
    for (LosCandidate& c : p.jobs) c.merit = 1;
    EXPECT_EQ(both_solvers(p, {5, 3, 3}), (std::vector<std::size_t>{1, 2, 3}));
  }
}

TEST(LosSelect, MaxSlowdownVectors) {
  // t = 25; (size, estimate) as in the example.
  const std::vector<std::pair<int, Time>> jobs = {{7, 4}, {2, 2}, {1, 6}, {2, 4}, {3, 5}};
  auto problem = [&](std::vector<Time> submits, LosTraceback rule) {
    LosProblem p = worked_example(rule);
    for (std::size_t i = 0; i < p.jobs.size(); ++i)
      p.jobs[i].merit = los_slowdown_merit(25, submits[i], jobs[i].second);
    return p;
  };
  for (LosTraceback rule : {LosTraceback::BypassedFirst, LosTraceback::SelectedFirst}) {
    // All arrived at 20: bypass wins, 7.583 against 5.5.
    const LosProblem a = problem({20, 20, 20, 20, 20}, rule);
    EXPECT_EQ(a.jobs[1].merit, 3500000);
    EXPECT_EQ(a.jobs[2].merit, 1833333);
    EXPECT_EQ(both_solvers(a, {5, 3, 7583333}), (std::vector<std::size_t>{1, 2, 3}));
    // wj5 arrived at 0, the others at 24: select wins, 7.5 against 3.917.
    const LosProblem b = problem({24, 24, 24, 24, 0}, rule);
    EXPECT_EQ(both_solvers(b, {5, 3, 7500000}), (std::vector<std::size_t>{1, 4}));
  }
}

TEST(LosSelect, JobsThenSlowdownCountsJobsFirstAndBreaksTheirTiesBySlowdown) {
  // Two free units, none reserved: A (2 units, slowdown 10), B (1, 1), C (1, 2),
  // D (1, 3). Each merit picks another set filling both units.
  LosProblem p;
  p.jobs = {{2, 0, 10}, {1, 0, 1}, {1, 0, 2}, {1, 0, 3}};
  p.free_now = 2;
  p.extra = 0;
  EXPECT_EQ(both_solvers(p, {2, 0, 10}), (std::vector<std::size_t>{0}));  // slowdown: A
  LosProblem jobs = p;
  for (LosCandidate& c : jobs.jobs) c.merit = 1;
  EXPECT_EQ(both_solvers(jobs, {2, 0, 2}), (std::vector<std::size_t>{1, 2}));  // jobs: the first pair
  LosProblem both = p;
  weigh_jobs_over_slowdown(both.jobs);
  // A job weighs 4 * 10 + 1, more than every slowdown together.
  EXPECT_EQ(both.jobs[0].merit, 41 + 10);
  EXPECT_EQ(both.jobs[1].merit, 41 + 1);
  EXPECT_EQ(both_solvers(both, {2, 0, 2 * 41 + 5}), (std::vector<std::size_t>{2, 3}));  // the pair C, D
  // Slowdowns too large for the weight are halved until (q + 1) weights fit
  // in 2^62; the order between sets of as many jobs survives.
  LosProblem huge;
  huge.jobs = {{1, 0, std::int64_t{1} << 61}, {1, 0, (std::int64_t{1} << 61) + (std::int64_t{1} << 40)}, {2, 0, 0}};
  huge.free_now = 2;
  weigh_jobs_over_slowdown(huge.jobs);
  EXPECT_LT(huge.jobs[0].merit, huge.jobs[1].merit);
  EXPECT_EQ(both_solvers(huge, {2, 0, huge.jobs[0].merit + huge.jobs[1].merit}), (std::vector<std::size_t>{0, 1}));
}

TEST(LosSelect, RejectsMalformedCandidates) {
  LosProblem p = worked_example();
  p.jobs[2].ssize = 2;  // neither 0 nor the size 1
  EXPECT_THROW(los_select(p), std::invalid_argument);
  EXPECT_THROW(los_select_table(p), std::invalid_argument);
  p = worked_example();
  p.jobs[0].size = 0;
  EXPECT_THROW(los_select(p), std::invalid_argument);
  p = worked_example();
  p.extra = -1;
  EXPECT_THROW(los_select(p), std::invalid_argument);
}

// The example as a snapshot: N = 10, t = 25, one running job of size 5
// expected to end at 28.
Snapshot example_snapshot(std::vector<Time> submits = {20, 20, 20, 20, 20}) {
  Snapshot s;
  s.now = 25;
  s.total_units = 10;
  s.free_units = 5;
  RunningJob r;
  r.job = test::job(100, 0, 5, 8);
  r.start = 20;  // expected end 28: rem 3
  s.running.push_back(r);
  const std::vector<std::pair<int, Time>> jobs = {{7, 4}, {2, 2}, {1, 6}, {2, 4}, {3, 5}};
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    s.queue.push_back(test::job(static_cast<JobId>(i + 1), submits[i], jobs[i].first, jobs[i].second));
  }
  s.resync = true;
  return s;
}

std::set<JobId> started(const StepResult& r) {
  std::set<JobId> out;
  for (const Decision& d : r.decisions) {
    EXPECT_EQ(d.kind, Decision::Kind::Start);
    out.insert(d.job);
  }
  return out;
}

std::set<JobId> step_once(const std::string& spec, const Snapshot& s) {
  PolicyPtr p = make_policy(spec);
  const std::set<JobId> out = started(p->step(s));
  // The blocked head wj1 holds the shadow time 28 as its reservation.
  const std::vector<PlannedStart> res = p->reservations();
  EXPECT_EQ(res.size(), 1U) << spec;
  if (!res.empty()) {
    EXPECT_EQ(res[0].job, 1);
    EXPECT_EQ(res[0].start, 28);
  }
  return out;
}

TEST(LosPolicy, WorkedExampleEveryVariant) {
  const Snapshot s = example_snapshot();
  EXPECT_EQ(step_once("los:design=thesis", s), (std::set<JobId>{2, 3, 4}));
  EXPECT_EQ(step_once("los:design=thesis:traceback=selected-first", s), (std::set<JobId>{2, 5}));
  EXPECT_EQ(step_once("los-basic", s), (std::set<JobId>{2}));
  EXPECT_EQ(step_once("los-maxjobs:design=thesis", s), (std::set<JobId>{2, 3, 4}));
  EXPECT_EQ(step_once("los-maxjobs:design=thesis:traceback=selected-first", s), (std::set<JobId>{2, 3, 4}));
  EXPECT_EQ(step_once("los-maxsd:design=thesis", s), (std::set<JobId>{2, 3, 4}));
  EXPECT_EQ(step_once("los-maxsd:design=thesis:traceback=selected-first", example_snapshot({24, 24, 24, 24, 0})),
            (std::set<JobId>{2, 5}));
  EXPECT_EQ(step_once("los-maxsd:design=thesis", example_snapshot({24, 24, 24, 24, 0})), (std::set<JobId>{2, 5}));
}

TEST(LosPolicy, LookaheadThreeKeepsWj2ToWj4AfterTheFilter) {
  // Table 3.8: WQ' = {wj2..wj5}; C = 3 keeps wj2..wj4 and gives Fig. 3.5.
  const Snapshot s = example_snapshot();
  EXPECT_EQ(step_once("los:design=thesis:lookahead=3", s), (std::set<JobId>{2, 3, 4}));
  // C = 3 with Selected-First can no longer reach {wj2, wj5}.
  EXPECT_EQ(step_once("los:design=thesis:lookahead=3:traceback=selected-first", s), (std::set<JobId>{2, 3, 4}));
  EXPECT_EQ(step_once("los:design=thesis:lookahead=1", s), (std::set<JobId>{2}));
}

TEST(LosPolicy, HeadSemantics) {
  // N = 10, nothing running. Queue: a (4), b (4), c (6), d (2).
  Snapshot s;
  s.now = 0;
  s.total_units = 10;
  s.free_units = 10;
  s.queue = {test::job(1, 0, 4, 100), test::job(2, 0, 4, 100), test::job(3, 0, 6, 50), test::job(4, 0, 2, 10)};
  s.resync = true;
  // loop: a and b start as heads; c is blocked (shadow 100, extra 10 - 6 = 4);
  // d (2 units, ends by 100) fills the rest.
  PolicyPtr loop = make_policy("los:design=thesis");
  EXPECT_EQ(started(loop->step(s)), (std::set<JobId>{1, 2, 4}));
  ASSERT_EQ(loop->reservations().size(), 1U);
  EXPECT_EQ(loop->reservations()[0].job, 3);
  EXPECT_EQ(loop->reservations()[0].start, 100);
  // once: a starts, then the rest is packed with no reservation: c (6) fills 6 of 6.
  PolicyPtr once = make_policy("los:design=thesis:head=once");
  EXPECT_EQ(started(once->step(s)), (std::set<JobId>{1, 3}));
  EXPECT_TRUE(once->reservations().empty());
}

TEST(LosPolicy, RestEasyBackfillsPastTheWindowUnderTheHeadsShadow) {
  // The worked example with C = 1: the window holds only wj2, which starts.
  // rest=easy then walks wj3.. in queue order with what is left (5 - 2 = 3
  // units now, extra 3): wj3 (1 unit, ends at 31 > 28: uses 1 of the extra),
  // wj4 (2 units, ends at 29 > 28: uses the last 2); wj5 (3) no longer fits.
  const Snapshot s = example_snapshot();
  EXPECT_EQ(step_once("los:design=thesis:lookahead=1", s), (std::set<JobId>{2}));
  EXPECT_EQ(step_once("los:design=thesis:lookahead=1:rest=easy", s), (std::set<JobId>{2, 3, 4}));
  EXPECT_EQ(step_once("easy", s), (std::set<JobId>{2, 3, 4}));
  // With the whole queue in the window the selection leaves nothing that fits.
  EXPECT_EQ(step_once("los:design=thesis:rest=easy", s), step_once("los:design=thesis", s));
  EXPECT_EQ(make_policy("los:design=thesis:rest=easy")->name(), "los:design=thesis:rest=easy");
  EXPECT_EQ(make_policy("los:design=thesis:rest=auto")->name(), "los:design=thesis");
}

TEST(LosPolicy, RestEasyWithLookaheadOneIsEasy) {
  // C = 1 makes the selection EASY's own test of the first job that fits, and
  // rest=easy continues as EASY does: the schedules must be the same.
  const Workload w = [] {
    std::vector<Job> jobs;
    for (int i = 0; i < 400; ++i) {
      jobs.push_back(test::job(i + 1, i * 5, 1 + (i * 7) % 16, 20 + (i * 37) % 300, 5 + (i * 11) % 290));
    }
    return test::workload(16, jobs);
  }();
  // Also EASY by their rules: gate=fit with C = 1 (a step with two jobs that
  // fit is EASY's; with one, the selection starts it if admissible),
  // keep=easy with gain=100 (the selection never fills 100 % more), and
  // keep=ties with the queue order (of the sets filling EASY's units, the
  // first in queue order is EASY's own), with or without protect.
  PolicyPtr easy = make_policy("easy");
  const SimResult a = simulate(w, *easy, {});
  for (const char* spec :
       {"los:design=thesis:lookahead=1:rest=easy", "los:design=thesis:lookahead=1:gate=fit",
        "los-maxsd:design=thesis:keep=easy:gain=100:rest=easy", "los:design=thesis:keep=ties:rest=easy:select=queue",
        "los:design=thesis:keep=ties:protect=first:rest=easy:select=queue",
        "los-maxsd:design=thesis:keep=ties:lookahead=5:protect=once:rest=easy:select=queue"}) {
    PolicyPtr los = make_policy(spec);
    const SimResult b = simulate(w, *los, {});
    ASSERT_EQ(a.jobs.size(), b.jobs.size());
    std::size_t waited = 0;
    for (std::size_t i = 0; i < a.jobs.size(); ++i) {
      ASSERT_EQ(a.jobs[i].start, b.jobs[i].start) << spec << " job " << a.jobs[i].job.id;
      waited += a.jobs[i].start > a.jobs[i].job.submit;
    }
    EXPECT_GT(waited, a.jobs.size() / 4) << "the workload should make jobs wait";
  }
}

TEST(LosPolicy, GateMakesTheStepEasysWhenTheWindowMissesJobs) {
  // The worked example plus wj6 (6 units: waits, never fits now). Behind the
  // blocked wj1 wait 5 jobs, 4 of which fit. Selected-First picks {wj2, wj5};
  // EASY's walk starts {wj2, wj3, wj4}.
  Snapshot s = example_snapshot();
  s.queue.push_back(test::job(6, 20, 6, 2));
  const std::string sf = "los:design=thesis:traceback=selected-first";
  EXPECT_EQ(step_once(sf, s), (std::set<JobId>{2, 5}));
  EXPECT_EQ(step_once("easy", s), (std::set<JobId>{2, 3, 4}));
  // fit: more than C jobs that fit -> EASY's step (even without rest=easy).
  EXPECT_EQ(step_once(sf + ":lookahead=3:gate=fit", s), (std::set<JobId>{2, 3, 4}));
  EXPECT_EQ(step_once(sf + ":lookahead=4:gate=fit", s), (std::set<JobId>{2, 5}));
  // queue: more than C jobs waiting behind the head -> EASY's step.
  EXPECT_EQ(step_once(sf + ":lookahead=4:gate=queue", s), (std::set<JobId>{2, 3, 4}));
  EXPECT_EQ(step_once(sf + ":lookahead=5:gate=queue", s), (std::set<JobId>{2, 5}));
  EXPECT_EQ(make_policy("los:design=thesis:gate=auto")->name(), "los:design=thesis");
}

// N = 10; a job of 10 - free units runs until 100. The head (job 1, 8
// units) is blocked until 100 with extra 2; `jobs` (size, estimate) wait
// behind it as jobs 2, 3, ...
Snapshot behind_blocked_head(int free, const std::vector<std::pair<int, Time>>& jobs) {
  Snapshot s;
  s.now = 0;
  s.total_units = 10;
  s.free_units = free;
  RunningJob r;
  r.job = test::job(100, 0, 10 - free, 100);
  r.start = 0;
  s.running.push_back(r);
  s.queue.push_back(test::job(1, 0, 8, 50));
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    s.queue.push_back(test::job(static_cast<JobId>(i + 2), 0, jobs[i].first, jobs[i].second));
  }
  s.resync = true;
  return s;
}

std::set<JobId> step_keep(const std::string& spec, const Snapshot& s) {
  PolicyPtr p = make_policy(spec);
  const std::set<JobId> out = started(p->step(s));
  EXPECT_EQ(p->reservations().size(), 1U) << spec;
  return out;
}

TEST(LosPolicy, KeepEasyYieldsOnlyToAStrictGainAboveTheThreshold) {
  const Snapshot s = behind_blocked_head(6, {{3, 10}, {2, 10}, {3, 10}});
  // EASY starts a, b (5 units); the selection a, c (6 units: 1/6 = 16.7 % more).
  EXPECT_EQ(step_keep("easy", s), (std::set<JobId>{2, 3}));
  EXPECT_EQ(step_keep("los:design=thesis", s), (std::set<JobId>{2, 4}));
  EXPECT_EQ(step_keep("los:design=thesis:keep=easy", s), (std::set<JobId>{2, 4}));
  EXPECT_EQ(step_keep("los:design=thesis:keep=easy:gain=16", s), (std::set<JobId>{2, 4}));
  EXPECT_EQ(step_keep("los:design=thesis:keep=easy:gain=17", s), (std::set<JobId>{2, 3}));
  // A tie goes to EASY's set: Selected-First's {wj2, wj5} fills as much as
  // EASY's {wj2, wj3, wj4}.
  EXPECT_EQ(step_once("los:design=thesis:traceback=selected-first:keep=easy", example_snapshot()),
            (std::set<JobId>{2, 3, 4}));
}

TEST(LosPolicy, SelectQueueIsEasysSetWhenItFillsTheMost) {
  // Extra 2. EASY starts the long job 2 in the extra units and job 3 (4
  // units); the thesis's selection fills as much with less shadow use, {3, 4}.
  const Snapshot tie = behind_blocked_head(4, {{2, 500}, {2, 10}, {2, 10}});
  EXPECT_EQ(step_keep("easy", tie), (std::set<JobId>{2, 3}));
  EXPECT_EQ(step_keep("los:design=thesis", tie), (std::set<JobId>{3, 4}));
  EXPECT_EQ(step_keep("los:design=thesis:select=queue", tie), (std::set<JobId>{2, 3}));
  // EASY fills 5 of 6 units ({2, 3}); {2, 4} and {3, 5} fill 6. The queue
  // order takes job 2 (the earliest), whatever the trace-back rule.
  const Snapshot gain = behind_blocked_head(6, {{3, 10}, {2, 10}, {3, 10}, {4, 10}});
  EXPECT_EQ(step_keep("easy", gain), (std::set<JobId>{2, 3}));
  EXPECT_EQ(step_keep("los:design=thesis:traceback=selected-first", gain), (std::set<JobId>{3, 5}));
  EXPECT_EQ(step_keep("los:design=thesis:traceback=selected-first:select=queue", gain), (std::set<JobId>{2, 4}));
  EXPECT_EQ(make_policy("los:design=thesis:select=thesis")->name(), "los:design=thesis");
}

TEST(LosPolicy, KeepTiesChoosesOnlyAmongTheSetsFillingAsMuchAsEasys) {
  // A tie: EASY's {2, 3} and the selection's {3, 4} both fill the 4 units;
  // the thesis's keys (least shadow use) decide.
  const Snapshot tie = behind_blocked_head(4, {{2, 500}, {2, 10}, {2, 10}});
  EXPECT_EQ(step_keep("los:design=thesis:keep=ties", tie), (std::set<JobId>{3, 4}));
  // EASY fills 5 of 6 units ({2, 3}); the selection could fill 6 ({2, 4}).
  // It chooses among the sets filling 5 instead: Bypassed-First keeps
  // EASY's {2, 3}, Selected-First takes {3, 4}, neither the fuller set.
  const Snapshot gain = behind_blocked_head(6, {{3, 10}, {2, 10}, {3, 10}});
  EXPECT_EQ(step_keep("los:design=thesis:traceback=selected-first", gain), (std::set<JobId>{2, 4}));
  EXPECT_EQ(step_keep("los:design=thesis:traceback=selected-first:keep=ties", gain), (std::set<JobId>{3, 4}));
  EXPECT_EQ(step_keep("los:design=thesis:keep=ties", gain), (std::set<JobId>{2, 3}));
  // With the queue order, the first set filling EASY's units is EASY's own.
  EXPECT_EQ(step_keep("los:design=thesis:keep=ties:select=queue:traceback=selected-first", gain),
            (std::set<JobId>{2, 3}));
  EXPECT_EQ(make_policy("los:design=thesis:keep=ties")->name(), "los:design=thesis:keep=ties");
}

TEST(LosPolicy, ProtectStartsEasysFirstPickBeforeTheSelectionByItsRule) {
  // EASY's first pick is job 2 (2 units in the extra, estimate 500 past the
  // shadow time 100); the thesis's keys pass it over for {3, 4}.
  const Snapshot tie = behind_blocked_head(4, {{2, 500}, {2, 10}, {2, 10}});
  EXPECT_EQ(step_keep("los:design=thesis:keep=ties", tie), (std::set<JobId>{3, 4}));
  EXPECT_EQ(step_keep("los:design=thesis:keep=ties:protect=first", tie), (std::set<JobId>{2, 3}));
  EXPECT_EQ(step_keep("los:design=thesis:keep=ties:protect=extra", tie), (std::set<JobId>{2, 3}));
  EXPECT_EQ(step_keep("los:design=thesis:keep=ties:protect=late", tie), (std::set<JobId>{3, 4}));
  EXPECT_EQ(step_keep("los:design=thesis:keep=ties:protect=long", tie), (std::set<JobId>{3, 4}));
  // late: job 2 has waited its estimate (500 s).
  Snapshot waited = tie;
  waited.queue[1].submit = -500;
  EXPECT_EQ(step_keep("los:design=thesis:keep=ties:protect=late", waited), (std::set<JobId>{2, 3}));
  // long: four jobs wait behind the head, more than C = 3.
  const Snapshot four = behind_blocked_head(4, {{2, 500}, {2, 10}, {2, 10}, {2, 10}});
  EXPECT_EQ(step_keep("los:design=thesis:keep=ties:protect=long:lookahead=3", four), (std::set<JobId>{2, 3}));
  EXPECT_EQ(step_keep("los:design=thesis:keep=ties:protect=long:lookahead=4", four).count(2), 0U);
  // extra: a first pick that ends by the shadow time is not protected.
  const Snapshot short_first = behind_blocked_head(4, {{2, 10}, {2, 500}, {2, 10}});
  EXPECT_EQ(step_keep("los:design=thesis:keep=ties", short_first), (std::set<JobId>{2, 4}));
  EXPECT_EQ(step_keep("los:design=thesis:keep=ties:protect=extra", short_first), (std::set<JobId>{2, 4}));
  // once: passed over at one step, job 2 starts when it is EASY's first
  // pick again.
  PolicyPtr once = make_policy("los:design=thesis:keep=ties:protect=once");
  EXPECT_EQ(started(once->step(tie)), (std::set<JobId>{3, 4}));
  Snapshot again = behind_blocked_head(4, {{2, 500}, {2, 10}, {2, 10}});
  again.queue[2].id = 5;
  again.queue[3].id = 6;
  EXPECT_EQ(started(once->step(again)), (std::set<JobId>{2, 5}));
  EXPECT_EQ(step_keep("los:design=thesis:keep=ties", again), (std::set<JobId>{5, 6}));
  EXPECT_EQ(make_policy("los:design=thesis:protect=auto")->name(), "los:design=thesis");
}

TEST(LosPolicy, SelectLongQueueKeepsTheThesisKeysOnlyWhileTheWindowHoldsTheQueue) {
  // Extra 2, 4 units free; behind the blocked head a long job (2 units, in
  // the extra units) and three short ones. EASY and the queue order start
  // {2, 3}; the thesis's keys fill as much with no shadow use.
  const Snapshot s = behind_blocked_head(4, {{2, 500}, {2, 10}, {2, 10}, {2, 10}});
  EXPECT_EQ(step_keep("los:design=thesis:select=queue:lookahead=3", s), (std::set<JobId>{2, 3}));
  const std::set<JobId> thesis3 = step_keep("los:design=thesis:lookahead=3", s);
  const std::set<JobId> thesis4 = step_keep("los:design=thesis:lookahead=4", s);
  EXPECT_EQ(thesis3.count(2), 0U);
  EXPECT_EQ(thesis4.count(2), 0U);
  // C = 4: the window holds all four, so the thesis's keys decide.
  EXPECT_EQ(step_keep("los:design=thesis:select=long-queue:lookahead=4", s), thesis4);
  EXPECT_EQ(step_keep("los:design=thesis:select=long-queue:lookahead=50", s), step_keep("los:design=thesis", s));
  // C = 3: a fourth job waits beyond the window, so the queue order decides.
  EXPECT_EQ(step_keep("los:design=thesis:select=long-queue:lookahead=3", s), (std::set<JobId>{2, 3}));
  EXPECT_EQ(make_policy("los:design=thesis:select=long-queue")->name(), "los:design=thesis:select=long-queue");
}

TEST(LosPolicy, HybridRunsTheThesisOnAShortQueueAndReDecidesEasysTiesOnALongOne) {
  // 6 units free, extra 2. EASY starts {2, 3} (5 units); the thesis's
  // selection fills all 6 with {2, 4}; among the sets filling EASY's 5,
  // {3, 4} has the larger expected slowdown (job 4 has waited 100 s).
  Snapshot s = behind_blocked_head(6, {{3, 10}, {2, 10}, {3, 10}});
  s.queue[3].submit = -100;
  EXPECT_EQ(step_keep("easy", s), (std::set<JobId>{2, 3}));
  EXPECT_EQ(step_keep("los:design=thesis", s), (std::set<JobId>{2, 4}));
  // Three jobs wait behind the head, within C = 50: the thesis's selection.
  EXPECT_EQ(step_keep("los", s), (std::set<JobId>{2, 4}));
  // rules=every: the tie rule on every step, so only EASY's fill.
  EXPECT_EQ(step_keep("los:rules=every", s), (std::set<JobId>{3, 4}));
  // A long queue: two more jobs (9 units) wait and never fit; with C = 3 five
  // wait behind the head but only three fit (no gate): EASY's ties only,
  // broken by expected slowdown; merit=none leaves Bypassed-First's {2, 3}.
  Snapshot long_queue = s;
  long_queue.queue.push_back(test::job(5, 0, 9, 10));
  long_queue.queue.push_back(test::job(6, 0, 9, 10));
  EXPECT_EQ(step_keep("los:lookahead=3", long_queue), (std::set<JobId>{3, 4}));
  EXPECT_EQ(step_keep("los:lookahead=3:merit=none", long_queue), (std::set<JobId>{2, 3}));
  EXPECT_EQ(step_keep("los:lookahead=3:rules=long:keep=optimal", long_queue), (std::set<JobId>{2, 4}));
  // gate=fit: with C = 2 the three jobs that fit are more than the window:
  // EASY's step.
  EXPECT_EQ(step_keep("los:lookahead=2", long_queue), (std::set<JobId>{2, 3}));
  // protect=late applies on a long queue only: job 2 (EASY's first pick) has
  // waited its estimate.
  Snapshot waited = long_queue;
  waited.queue[1].submit = -10;
  waited.queue[3].submit = -1000;
  EXPECT_EQ(step_keep("los:lookahead=3", waited), (std::set<JobId>{2, 3}));
  EXPECT_EQ(step_keep("los:lookahead=3:protect=none", waited), (std::set<JobId>{3, 4}));
  Snapshot waited_short = s;
  waited_short.queue[1].submit = -10;
  EXPECT_EQ(step_keep("los", waited_short), (std::set<JobId>{2, 4}));
}

TEST(LosPolicy, ProtectLateInexactStopsWhileTheEndedJobsRanTheirEstimates) {
  // The hybrid's long-queue step of the test above: job 2 (EASY's first
  // pick) has waited its estimate; protect=late starts it, none does not.
  Snapshot waited = behind_blocked_head(6, {{3, 10}, {2, 10}, {3, 10}});
  waited.queue.push_back(test::job(5, 0, 9, 10));
  waited.queue.push_back(test::job(6, 0, 9, 10));
  waited.queue[1].submit = -10;
  waited.queue[3].submit = -1000;
  // rules=long: the protection alone (the hybrid's rules=long-inexact also
  // turns the whole long-queue step into the thesis's with exact estimates).
  const std::string spec = "los:lookahead=3:protect=late-inexact:rules=long";
  ASSERT_EQ(step_keep("los:lookahead=3:protect=late", waited), (std::set<JobId>{2, 3}));
  ASSERT_EQ(step_keep("los:lookahead=3:protect=none", waited), (std::set<JobId>{3, 4}));
  // No job has ended yet: estimates count as inexact, so late applies.
  EXPECT_EQ(step_keep(spec, waited), (std::set<JobId>{2, 3}));
  // n jobs ended at this step, each after `ran` of its 100 s estimate.
  auto after_ends = [&](int n, Time ran) {
    Snapshot s = waited;
    for (int i = 0; i < n; ++i) {
      SnapshotEvent ended{SnapshotEvent::Kind::Ended, static_cast<JobId>(1000 + i), 1, s.now - ran, 100};
      s.events.push_back(ended);
    }
    return s;
  };
  // Exact estimates: the average reaches 0.9 after 147 ends (1 - (63/64)^n).
  EXPECT_EQ(step_keep(spec, after_ends(146, 100)), (std::set<JobId>{2, 3}));
  EXPECT_EQ(step_keep(spec, after_ends(147, 100)), (std::set<JobId>{3, 4}));
  // Jobs that ran half their estimates, or ended at once, keep the
  // protection on, however many; a run past the estimate counts as exact (1).
  EXPECT_EQ(step_keep(spec, after_ends(1000, 50)), (std::set<JobId>{2, 3}));
  EXPECT_EQ(step_keep(spec, after_ends(1000, 0)), (std::set<JobId>{2, 3}));
  EXPECT_EQ(step_keep(spec, after_ends(1000, 200)), (std::set<JobId>{3, 4}));
  // The average is kept between steps: a policy that saw exact ends stops
  // protecting, and turns back after enough short runs.
  PolicyPtr p = make_policy(spec);
  EXPECT_EQ(started(p->step(after_ends(200, 100))), (std::set<JobId>{3, 4}));
  EXPECT_EQ(started(p->step(after_ends(2, 10))), (std::set<JobId>{3, 4}));  // 0.957 -> 0.930
  EXPECT_EQ(started(p->step(after_ends(200, 10))), (std::set<JobId>{2, 3}));
  // Given explicitly it applies under design=thesis too (no job has ended:
  // as late does).
  EXPECT_EQ(step_keep("los:design=thesis:keep=ties:protect=late-inexact:lookahead=3", waited),
            step_keep("los:design=thesis:keep=ties:protect=late:lookahead=3", waited));
}

TEST(LosPolicy, RulesLongInexactRunsTheThesisSelectionWhileTheEndedJobsRanTheirEstimates) {
  // 6 units free, extra 2, five jobs behind the blocked head, three of which
  // fit (the two last never do). `ties`: EASY starts {2, 3}, the thesis's
  // selection fills all 6 with {2, 4}, and among the sets filling EASY's 5,
  // {3, 4} has the larger expected slowdown (job 4 has waited 100 s).
  Snapshot ties = behind_blocked_head(6, {{3, 10}, {2, 10}, {3, 10}, {9, 10}, {9, 10}});
  ties.queue[3].submit = -100;
  // `gated`, with C = 2: more jobs fit than the window holds. EASY starts
  // {2, 4}; the thesis's selection over the window {2, 3} starts job 3.
  const Snapshot gated = behind_blocked_head(6, {{4, 10}, {6, 10}, {2, 10}, {9, 10}, {9, 10}});
  // n jobs ended at this step, each after `ran` of its 100 s estimate.
  auto after_ends = [](Snapshot with, int n, Time ran) {
    for (int i = 0; i < n; ++i) {
      with.events.push_back({SnapshotEvent::Kind::Ended, static_cast<JobId>(1000 + i), 1, with.now - ran, 100});
    }
    return with;
  };
  ASSERT_EQ(step_keep("los:design=thesis", ties), (std::set<JobId>{2, 4}));
  ASSERT_EQ(step_keep("easy", gated), (std::set<JobId>{2, 4}));
  ASSERT_EQ(step_keep("los:design=thesis:lookahead=2:rest=easy", gated), (std::set<JobId>{3}));
  // No job has ended: estimates count as inexact, and the long-queue steps
  // are the hybrid's: EASY's ties re-decided, and the gate's EASY step.
  EXPECT_EQ(step_keep("los:lookahead=3", ties), (std::set<JobId>{3, 4}));
  EXPECT_EQ(step_keep("los:lookahead=2", gated), (std::set<JobId>{2, 4}));
  // Exact estimates (the average reaches 0.9 after 147 ends): the thesis's
  // selection on long queues too, the gate included.
  EXPECT_EQ(step_keep("los:lookahead=3", after_ends(ties, 146, 100)), (std::set<JobId>{3, 4}));
  EXPECT_EQ(step_keep("los:lookahead=3", after_ends(ties, 147, 100)), (std::set<JobId>{2, 4}));
  EXPECT_EQ(step_keep("los:lookahead=2", after_ends(gated, 147, 100)), (std::set<JobId>{3}));
  // Short runs keep the hybrid's steps, however many ended.
  EXPECT_EQ(step_keep("los:lookahead=3", after_ends(ties, 1000, 50)), (std::set<JobId>{3, 4}));
  EXPECT_EQ(step_keep("los:lookahead=2", after_ends(gated, 1000, 50)), (std::set<JobId>{2, 4}));
  // rules=long ignores the estimates.
  EXPECT_EQ(step_keep("los:lookahead=3:rules=long", after_ends(ties, 147, 100)), (std::set<JobId>{3, 4}));
  EXPECT_EQ(step_keep("los:lookahead=2:rules=long", after_ends(gated, 147, 100)), (std::set<JobId>{2, 4}));
  // The average is kept between steps.
  PolicyPtr p = make_policy("los:lookahead=3");
  EXPECT_EQ(started(p->step(after_ends(ties, 200, 100))), (std::set<JobId>{2, 4}));
  EXPECT_EQ(started(p->step(after_ends(ties, 200, 10))), (std::set<JobId>{3, 4}));
}

TEST(LosPolicy, AForecastReplaysWithTheEstimateAccuracyTheLivePolicyLearned) {
  // The `ties` step of the test above: with exact estimates the hybrid
  // starts {2, 4}, while no job has ended {3, 4}. A policy that saw 200 jobs
  // run their estimates hands its average to a forecast's fresh instance,
  // whose replay then starts job 2 at once; a blank one would predict job 3.
  Snapshot ties = behind_blocked_head(6, {{3, 10}, {2, 10}, {3, 10}, {9, 10}, {9, 10}});
  ties.queue[3].submit = -100;
  Snapshot seen = ties;
  for (int i = 0; i < 200; ++i) {
    seen.events.push_back({SnapshotEvent::Kind::Ended, static_cast<JobId>(1000 + i), 1, seen.now - 100, 100});
  }
  PolicyPtr live = make_policy("los:lookahead=3");
  ASSERT_EQ(started(live->step(seen)), (std::set<JobId>{2, 4}));
  EXPECT_GE(dynamic_cast<const LosPolicy&>(*live).estimate_accuracy(), kExactEstimates);

  PolicyPtr blank = make_policy("los:lookahead=3");
  const std::vector<Time> blank_starts = forecast_starts(ties, *blank);
  EXPECT_GT(blank_starts[1], 0) << "job 2";
  EXPECT_EQ(blank_starts[2], 0) << "job 3";
  PolicyPtr fresh = make_policy("los:lookahead=3");
  live->copy_history_to(*fresh);
  EXPECT_EQ(dynamic_cast<const LosPolicy&>(*fresh).estimate_accuracy(),
            dynamic_cast<const LosPolicy&>(*live).estimate_accuracy());
  const std::vector<Time> starts = forecast_starts(ties, *fresh);
  EXPECT_EQ(starts[1], 0) << "job 2";
  EXPECT_GT(starts[2], 0) << "job 3";
  EXPECT_EQ(starts[3], 0) << "job 4";
  // Another policy's instance takes nothing (and nothing breaks).
  PolicyPtr easy = make_policy("easy");
  live->copy_history_to(*easy);
  EXPECT_EQ(forecast_starts(ties, *easy), forecast_starts(ties, "easy"));
}

TEST(LosPolicy, DesignSetsTheDefaultsOfTheKeysLeftAtAuto) {
  // design=hybrid is gate=fit, keep=ties, protect=late-inexact, rest=easy,
  // rules=long-inexact and the expected slowdown as merit (los, los-maxsd) or as the
  // tie-break among sets with as many jobs (los-maxjobs);
  // design=thesis is the thesis's algorithm. Explicit keys win either way.
  // Whole simulations: the spelled-out design gives the same schedule.
  std::vector<Job> jobs;
  for (int i = 0; i < 600; ++i) {
    jobs.push_back(test::job(i + 1, i * 4, 1 + (i * 7) % 16, 20 + (i * 37) % 300, 5 + (i * 11) % 290));
  }
  const Workload w = test::workload(16, jobs);
  const std::pair<const char*, const char*> same[] = {
      {"los", "los:design=thesis:gate=fit:keep=ties:protect=late-inexact:rest=easy:rules=long-inexact:merit=slowdown"},
      {"los-maxsd", "los"},
      {"los-maxjobs",
       "los-maxjobs:design=thesis:gate=fit:keep=ties:protect=late-inexact:rest=easy:rules=long-inexact:"
       "merit=jobs-slowdown"},
      {"los-maxjobs:design=thesis", "los-maxjobs:gate=none:keep=optimal:protect=none:rest=none:rules=every:merit=jobs"},
      {"los:design=thesis", "los:gate=none:keep=optimal:protect=none:rest=none:rules=every:merit=none"},
      {"los-basic", "los-basic:design=thesis"},
      {"los:protect=none", "los:design=thesis:gate=fit:keep=ties:rest=easy:rules=long-inexact:merit=slowdown"},
  };
  std::size_t differ_from_thesis = 0;
  PolicyPtr thesis = make_policy("los:design=thesis");
  const SimResult t = simulate(w, *thesis, {});
  for (const auto& [a, b] : same) {
    PolicyPtr pa = make_policy(a);
    PolicyPtr pb = make_policy(b);
    const SimResult ra = simulate(w, *pa, {});
    const SimResult rb = simulate(w, *pb, {});
    ASSERT_EQ(ra.jobs.size(), rb.jobs.size());
    bool differs = false;
    for (std::size_t i = 0; i < ra.jobs.size(); ++i) {
      ASSERT_EQ(ra.jobs[i].start, rb.jobs[i].start) << a << " against " << b << ", job " << ra.jobs[i].job.id;
      differs = differs || ra.jobs[i].start != t.jobs[i].start;
    }
    differ_from_thesis += differs;
  }
  EXPECT_GE(differ_from_thesis, 3U) << "the workload should tell the designs apart";
  EXPECT_EQ(make_policy("los:design=hybrid")->name(), "los");
  EXPECT_EQ(make_policy("los:gate=auto:keep=auto:merit=auto")->name(), "los");
  EXPECT_EQ(make_policy("los-basic:design=thesis")->name(), "los-basic");
  EXPECT_EQ(make_policy("los-basic:design=hybrid")->name(), "los-basic:design=hybrid");
  EXPECT_EQ(make_policy("los:merit=none:design=thesis")->name(), "los:design=thesis:merit=none");
  EXPECT_THROW(make_policy("los:design=paper"), SpecError);
  EXPECT_THROW(make_policy("los:rules=some"), SpecError);
}

// The policy on a copy of each snapshot whose queue no longer knows its
// compact shapes, so every scan reads every job (the plain loops).
class WithoutShapes final : public Policy {
 public:
  explicit WithoutShapes(PolicyPtr inner) : inner_(std::move(inner)) {}
  std::string name() const override { return inner_->name(); }
  StepResult step(const Snapshot& snapshot) override {
    Snapshot copy = snapshot;
    copy.queue.begin();  // a non-const access: the shapes become unknown
    EXPECT_FALSE(copy.queue.shapes_known());
    return inner_->step(copy);
  }
  std::vector<PlannedStart> reservations() const override { return inner_->reservations(); }
  const Planner* plan() const override { return inner_->plan(); }

 private:
  PolicyPtr inner_;
};

TEST(LosPolicy, ScansThatSkipJobsByTheirShapesStartTheSameJobs) {
  // Long queues on 32 units: bursts of arrivals, sizes up to the machine,
  // runtimes at or below the estimates. Each spelling once with the queue's
  // compact arrays (the simulator keeps them) and once without.
  std::mt19937 rng(7);
  std::vector<Job> jobs;
  Time t = 0;
  for (int i = 0; i < 3000; ++i) {
    if (rng() % 4 == 0) t += static_cast<Time>(rng() % 200);
    const int size = rng() % 4 == 0 ? 1 + static_cast<int>(rng() % 32) : 1 + static_cast<int>(rng() % 4);
    const Time estimate = 1 + static_cast<Time>(rng() % 600);
    jobs.push_back(test::job(i + 1, t, size, estimate, static_cast<Time>(rng() % (estimate + 1))));
  }
  const Workload w = test::workload(32, jobs);
  for (const char* spec : {"los", "los-maxjobs", "los:lookahead=5", "los:design=thesis", "los:design=thesis:rest=easy",
                           "los:design=thesis:gate=fit:rest=easy:lookahead=8", "los:gate=queue:lookahead=8"}) {
    PolicyPtr fast = make_policy(spec);
    WithoutShapes plain(make_policy(spec));
    const SimResult a = simulate(w, *fast, {});
    const SimResult b = simulate(w, plain, {});
    ASSERT_EQ(a.jobs.size(), b.jobs.size());
    std::size_t waited = 0;
    for (std::size_t i = 0; i < a.jobs.size(); ++i) {
      ASSERT_EQ(a.jobs[i].start, b.jobs[i].start) << spec << " job " << a.jobs[i].job.id;
      waited += a.jobs[i].start > a.jobs[i].job.submit + 600;
    }
    EXPECT_GT(waited, a.jobs.size() / 4) << spec << ": the queue should grow long";
  }
}

TEST(LosPolicy, ExtraThesisCountsTheJobsEndingAtTheShadowTimeOnlyUntilTheHeadFits) {
  // Two running jobs of 4 units end together at 100; 2 units free. The head
  // (5 units) starts at 100. Every unit free then leaves 2 + 8 - 5 = 5
  // extra; the thesis's formula stops at the first job (by id) that lets the
  // head fit, 2 + 4 - 5 = 1. Job 2 (2 units, past the shadow time) fits in 5.
  Snapshot s;
  s.now = 0;
  s.total_units = 10;
  s.free_units = 2;
  for (const JobId id : {JobId{101}, JobId{100}}) {
    RunningJob r;
    r.job = test::job(id, 0, 4, 100);
    r.start = 0;
    s.running.push_back(r);
  }
  s.queue.push_back(test::job(1, 0, 5, 50));
  s.queue.push_back(test::job(2, 0, 2, 500));
  s.queue.push_back(test::job(3, 0, 1, 500));
  s.resync = true;
  EXPECT_EQ(step_keep("los:design=thesis", s), (std::set<JobId>{2}));
  EXPECT_EQ(step_keep("los:design=thesis:extra=thesis", s), (std::set<JobId>{3}));
  EXPECT_EQ(step_keep("los:design=thesis:extra=thesis:rest=easy:lookahead=1", s), (std::set<JobId>{3}));
  // Ties go by job id, whatever the snapshot's order: job 100 (now 3 units,
  // listed second) comes first and the head fits with it exactly, leaving
  // no extra; job 101 first would leave 1, enough for job 3.
  s.running[1].job.size = 3;
  s.total_units = 9;
  EXPECT_EQ(step_keep("los:design=thesis", s), (std::set<JobId>{2}));
  EXPECT_EQ(step_keep("los:design=thesis:extra=thesis", s), (std::set<JobId>{}));
  EXPECT_EQ(make_policy("los:design=thesis:extra=profile")->name(), "los:design=thesis");
  EXPECT_EQ(make_policy("los-maxsd:design=thesis:extra=thesis")->name(), "los-maxsd:design=thesis:extra=thesis");
}

TEST(LosPolicy, KeepShortStartsEasysJobsThatEndByTheShadowFirst) {
  // EASY starts {2, 3} (5 of 6 units, both end by the shadow time); the
  // selection {2, 4}. keep=short starts EASY's two, leaving 1 unit.
  const Snapshot s = behind_blocked_head(6, {{3, 10}, {2, 10}, {3, 10}});
  EXPECT_EQ(step_keep("los:design=thesis", s), (std::set<JobId>{2, 4}));
  EXPECT_EQ(step_keep("los:design=thesis:keep=short", s), (std::set<JobId>{2, 3}));
  // EASY starts the long job 2 (in the extra units) and job 3; only job 3
  // ends by the shadow time, so the selection gets the 3 units left and the
  // extra: job 4 fills them, job 2 does not start.
  const Snapshot l = behind_blocked_head(6, {{2, 500}, {3, 10}, {3, 10}});
  EXPECT_EQ(step_keep("easy", l), (std::set<JobId>{2, 3}));
  EXPECT_EQ(step_keep("los:design=thesis:keep=short", l), (std::set<JobId>{3, 4}));
}

TEST(LosPolicy, AdmissibleWindowSkipsJobsTheReservationForbids) {
  // Job 2 (3 units past the shadow time, extra 2) can never start; with
  // C = 3 it takes a window place under window=fit, so job 5 is left out.
  const Snapshot s = behind_blocked_head(6, {{3, 1000}, {3, 10}, {2, 10}, {3, 10}});
  EXPECT_EQ(step_keep("los:design=thesis:lookahead=3", s), (std::set<JobId>{3, 4}));
  EXPECT_EQ(step_keep("los:design=thesis:lookahead=3:window=admissible", s), (std::set<JobId>{3, 5}));
}

TEST(LosPolicy, HeadFirstTakesTheEarliestJobsOfTheOptimalSets) {
  // Optimal sets of the example (util 5, sutil 3): {wj2, wj3, wj4} and
  // {wj2, wj5}; Head-First keeps wj3 (earlier than wj5).
  EXPECT_EQ(step_once("los:design=thesis:traceback=head-first", example_snapshot()), (std::set<JobId>{2, 3, 4}));
  // Sizes 1, 2, 3, 4, 5 in 5 free units: optima {1, 4}, {2, 3}, {5}.
  const Snapshot s = behind_blocked_head(5, {{1, 10}, {2, 10}, {3, 10}, {4, 10}, {5, 10}});
  EXPECT_EQ(step_keep("los:design=thesis", s), (std::set<JobId>{3, 4}));
  EXPECT_EQ(step_keep("los:design=thesis:traceback=selected-first", s), (std::set<JobId>{6}));
  EXPECT_EQ(step_keep("los:design=thesis:traceback=head-first", s), (std::set<JobId>{2, 5}));
}

TEST(LosPolicy, SpecsAndCanonicalNames) {
  EXPECT_EQ(make_policy("los:design=thesis")->name(), "los:design=thesis");
  EXPECT_EQ(make_policy("los:design=thesis:lookahead=50:traceback=bypassed-first:head=loop")->name(),
            "los:design=thesis");
  EXPECT_EQ(make_policy("los-maxsd:design=thesis:traceback=selected-first:lookahead=10")->name(),
            "los-maxsd:design=thesis:lookahead=10:traceback=selected-first");
  EXPECT_EQ(make_policy("los-basic:head=once")->name(), "los-basic:head=once");
  for (const char* bad :
       {"los:design=thesis:lookahead=0", "los:design=thesis:lookahead=x", "los:design=thesis:traceback=first",
        "los:design=thesis:head=twice", "los:design=thesis:depth=3", "los-maxsd:design=thesis:merit=1"}) {
    EXPECT_THROW(make_policy(bad), SpecError) << bad;
  }
  try {
    make_policy("los:design=thesis:traceback=first");
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("traceback"), std::string::npos);
  }
}

TEST(LosPolicy, SlowdownMeritIsExactAndCapped) {
  EXPECT_EQ(los_slowdown_merit(25, 20, 6), 1833333);  // 11/6 rounded
  EXPECT_EQ(los_slowdown_merit(10, 10, 0), 1000000);  // no wait; a zero estimate counts as 1 s
  EXPECT_EQ(los_slowdown_merit(5000000000LL, 0, 1), 1000000LL * 1000000LL);
}

TEST(LosPolicy, RebuildsItsProfileWhenEventsDoNotExplainIt) {
  // Step 1: the worked example; LOS starts wj2, wj3, wj4 (5 units).
  PolicyPtr p = make_policy("los:design=thesis");
  Snapshot s = example_snapshot();
  EXPECT_EQ(started(p->step(s)), (std::set<JobId>{2, 3, 4}));
  // Step 2 (t = 26): wj2..wj4 run as decided; the size-5 job ended early;
  // and someone else started wj5 (3 units, estimate 5) - a start LOS did not
  // decide, so its profile must come from the snapshot.
  Snapshot next = s;
  next.now = 26;
  next.resync = false;
  next.queue = {s.queue[0]};
  next.running.clear();
  next.events = {{SnapshotEvent::Kind::Ended, 100, 5, 20, 8}};
  for (std::size_t i = 1; i < 5; ++i) {
    RunningJob r;
    r.job = s.queue[i];
    r.start = i < 4 ? 25 : 26;
    next.running.push_back(r);
    next.events.push_back({SnapshotEvent::Kind::Started, r.job.id, r.job.size, r.start, r.job.estimate});
  }
  next.free_units = 2;
  EXPECT_TRUE(p->step(next).decisions.empty());  // wj1 (7) is the only job waiting
  // Ends: wj2 at 27 (+2), wj4 at 29 (+2), wj3 and wj5 at 31 (+4): wj1 fits at 31.
  EXPECT_EQ(p->plan()->free_at(26), 2);
  EXPECT_EQ(p->plan()->free_at(29), 6);
  ASSERT_EQ(p->reservations().size(), 1U);
  EXPECT_EQ(p->reservations()[0].job, 1);
  EXPECT_EQ(p->reservations()[0].start, 31);
}

TEST(LosPolicy, SimulatedHeadNeverStartsAfterItsShadowTime) {
  // A small hand-made workload where the head must wait: the checker
  // verifies every promise and the capacity for every variant.
  std::vector<Job> jobs;
  for (int i = 0; i < 40; ++i) {
    jobs.push_back(test::job(i + 1, i * 3, 1 + (i * 7) % 10, 5 + (i * 13) % 40, 3 + (i * 11) % 30));
  }
  const Workload w = test::workload(10, jobs);
  for (const char* spec :
       {"los", "los-maxjobs", "los-maxsd", "los:lookahead=3", "los:protect=once", "los:design=thesis", "los-basic",
        "los-maxjobs:design=thesis", "los-maxsd:design=thesis", "los:design=thesis:traceback=selected-first",
        "los:design=thesis:head=once", "los:design=thesis:lookahead=2", "los:design=thesis:rest=easy",
        "los-maxsd:design=thesis:lookahead=3:rest=easy", "los:design=thesis:lookahead=3:gate=fit",
        "los:design=thesis:lookahead=3:gate=queue:rest=easy", "los:design=thesis:keep=easy:rest=easy",
        "los:design=thesis:window=admissible:lookahead=2", "los-maxjobs:design=thesis:traceback=head-first"}) {
    PolicyPtr p = make_policy(spec);
    InvariantChecker checker;
    const SimResult r = simulate(w, *p, {}, &checker);
    EXPECT_EQ(checker.check(r, true), std::vector<std::string>{}) << spec;
    EXPECT_FALSE(checker.first_promises().empty()) << spec;
  }
}

}  // namespace
}  // namespace los
