// BGS / MBGS under a step's budget (docs/policies.md, "A step's budget"): a
// step that runs out of searches leaves the rest of its planning to the next
// steps. Continued at the same instant with nothing else happening, the
// steps end in the matrix, the row plans and the executing jobs of one step
// without a budget: a resync's re-plan of the whole queue (several rows) and,
// with one row, an early end's compression sweep stopped and resumed (there
// the jobs' columns may differ). Under
// simulation with a small cap every job still runs, with and without
// resyncs.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "hand_partition.hpp"
#include "policies/gang.hpp"
#include "policy/registry.hpp"
#include "sim/simulator.hpp"
#include "test_support.hpp"

namespace los {
namespace {

using test::job;
using test::Machine;

// `units` units, three quarters held by running jobs on the lowest units,
// and `queued` jobs waiting, mostly small, some wide.
Machine random_machine(std::uint32_t seed, int units, int queued) {
  std::mt19937 rng(seed);
  Machine m(units);
  JobId id = 1;
  int busy = 0;
  while (busy < units * 3 / 4) {
    const int size = 1 + static_cast<int>(rng() % static_cast<unsigned>(units / 4));
    if (busy + size > units) break;
    const Time estimate = 300 + static_cast<Time>(rng() % 2000);
    RunningJob r{job(id++, 0, size, estimate), 0, false, {}};
    for (int u = busy; u < busy + size; ++u) r.nodes.push_back(u);
    m.s.running.push_back(r);
    busy += size;
  }
  m.s.free_units = units - busy;
  for (int i = 0; i < queued; ++i) {
    const int size =
        rng() % 3 == 0 ? 1 + static_cast<int>(rng() % static_cast<unsigned>(units)) : 1 + static_cast<int>(rng() % 4);
    m.s.queue.push_back(job(id++, 0, size, 1 + static_cast<Time>(rng() % 3000)));
  }
  return m;
}

// What a step leaves: every cell of the matrix, the jobs of each row, every
// row's reservations and the executing jobs.
struct State {
  std::vector<JobId> cells;
  std::vector<std::set<JobId>> members;
  std::vector<std::vector<std::pair<JobId, Time>>> rows;
  std::set<JobId> executing;
  int steps = 0;

  bool operator==(const State& o) const { return cells == o.cells && rows == o.rows && executing == o.executing; }
};

// FillMatrix-1 has left no job that could be replicated into another row
// (its columns free there): a cut step fills the matrix too, so columns idle
// in this slice run what they can while the plan catches up.
bool filled(const GangMatrix& matrix) {
  for (JobId x : matrix.by_placement()) {
    for (int r = 0; r < matrix.rows(); ++r) {
      if (!matrix.in_row(x, r) && matrix.columns_free(r, matrix.columns_of(x))) return false;
    }
  }
  return true;
}

// Steps `policy` at `now` until its budget leaves nothing for the next step.
State step_until_done(GangPolicy& policy, Machine& m, Time now) {
  State out;
  for (;;) {
    const StepResult result = m.step(policy, now);
    ++out.steps;
    EXPECT_TRUE(filled(*policy.matrix())) << policy.name() << ", step " << out.steps;
    EXPECT_EQ(result.work_left, policy.planning_left()) << "step " << out.steps;
    if (!policy.planning_left()) break;
    EXPECT_EQ(result.wakeup, now + 1) << "step " << out.steps;
    if (out.steps > 100000) {
      ADD_FAILURE() << "no end to the steps: " << policy.name() << " at " << now;
      break;
    }
  }
  const GangMatrix& matrix = *policy.matrix();
  for (int r = 0; r < matrix.rows(); ++r) {
    out.members.emplace_back();
    for (int c = 0; c < matrix.columns(); ++c) {
      out.cells.push_back(matrix.at(r, c));
      if (matrix.at(r, c) != GangMatrix::kNoJob) out.members.back().insert(matrix.at(r, c));
    }
    std::vector<std::pair<JobId, Time>> held;
    for (const PlannedStart& p : policy.row_reservations(r)) held.emplace_back(p.job, p.start);
    out.rows.push_back(std::move(held));
  }
  for (const RunningJob& r : m.s.running) {
    if (!r.suspended) out.executing.insert(r.job.id);
  }
  return out;
}

GangPolicy& gang(PolicyPtr& p) { return dynamic_cast<GangPolicy&>(*p); }

// A resync re-plans the whole queue in queue order (a restarted losd): cut
// into steps, the same matrix, rows and executing jobs as one step. No
// holder can start in another row during that pass (each was reserved
// because it fitted none, and the pass only takes units), so the cut
// changes no order of work.
TEST(GangBudget, AResyncCutByTheBudgetEndsInThePlanOfOneWholeStep) {
  int cut = 0;
  for (std::uint32_t seed = 1; seed <= 8; ++seed) {
    for (const auto& [whole_spec, cut_spec] :
         {std::pair{"bgs", "bgs:searches=1"}, std::pair{"bgs:mpl=3", "bgs:mpl=3:searches=9"},
          std::pair{"mbgs", "mbgs:searches=5"}, std::pair{"bgs:mpl=1", "bgs:mpl=1:searches=2"}}) {
      SCOPED_TRACE(testing::Message() << "seed " << seed << ", " << cut_spec);
      PolicyPtr whole = make_policy(whole_spec);
      PolicyPtr cut_policy = make_policy(cut_spec);
      Machine a = random_machine(seed, 48, 120);
      Machine b = random_machine(seed, 48, 120);
      a.s.resync = b.s.resync = true;
      const State x = step_until_done(gang(whole), a, 10);
      const State y = step_until_done(gang(cut_policy), b, 10);
      ASSERT_EQ(x.steps, 1);
      cut += y.steps > 1;
      ASSERT_TRUE(x == y);
      std::size_t held = 0;
      for (const auto& row : x.rows) held += row.size();
      ASSERT_GT(held, 20u);
    }
  }
  EXPECT_GT(cut, 25);  // the budgets did cut (else the test shows nothing)
}

// With one row BGS is conservative backfilling: early ends make the row's
// compression sweep, which the budget stops and the next steps resume; new
// jobs are planned after it. Jobs the harness never ends outlive their hold,
// so the row is re-planned in its old order too (rebuild_row), its holders
// past the budget waiting in order for the next steps. The same plan and the same jobs executing as
// whole steps; their columns may differ: a reservation due now starts even
// past the budget, so the starts of one instant can take their lowest free
// columns in another order.
TEST(GangBudget, ASweepAndARowReplanCutByTheBudgetEndInThePlanOfOneWholeStep) {
  int cut = 0;
  long long overruns = 0;
  for (std::uint32_t seed = 1; seed <= 10; ++seed) {
    for (const char* cut_spec : {"bgs:mpl=1:searches=1", "bgs:mpl=1:searches=6"}) {
      SCOPED_TRACE(testing::Message() << "seed " << seed << ", " << cut_spec);
      PolicyPtr whole = make_policy("bgs:mpl=1");
      PolicyPtr cut_policy = make_policy(cut_spec);
      Machine a = random_machine(seed, 48, 120);
      Machine b = random_machine(seed, 48, 120);
      a.s.resync = b.s.resync = true;
      ASSERT_TRUE(step_until_done(gang(whole), a, 10) == step_until_done(gang(cut_policy), b, 10));
      std::mt19937 rng(seed);
      for (const Time now : {400, 900, 1500}) {
        const JobId ending = a.s.running.front().job.id;
        a.end(ending);
        b.end(ending);
        for (JobId id = 1000 + 10 * now; id < 1005 + 10 * now; ++id) {
          const Job j = job(id, now, 1 + static_cast<int>(rng() % 8), 1 + static_cast<Time>(rng() % 500));
          a.arrive(j);
          b.arrive(j);
        }
        const State x = step_until_done(gang(whole), a, now);
        const State y = step_until_done(gang(cut_policy), b, now);
        cut += y.steps > 1;
        EXPECT_EQ(x.executing, y.executing) << "t = " << now;
        EXPECT_EQ(x.members, y.members) << "t = " << now;
        ASSERT_EQ(x.rows, y.rows) << "t = " << now;
        ASSERT_FALSE(x.rows.front().empty());
      }
      overruns += gang(cut_policy).plan_stats().overrun_extensions;
    }
  }
  EXPECT_GT(cut, 30);
  EXPECT_GT(overruns, 20);  // rows were re-planned under the budget
}

Workload random_workload(std::uint32_t seed, int units, int jobs) {
  std::mt19937 rng(seed);
  Workload w;
  w.units = units;
  Time t = 0;
  for (int i = 0; i < jobs; ++i) {
    t += static_cast<Time>(rng() % 90);
    const Time estimate = 10 + static_cast<Time>(rng() % 3000);
    const Time runtime = 1 + static_cast<Time>(rng() % static_cast<unsigned>(estimate));
    const int size =
        rng() % 4 == 0 ? 1 + static_cast<int>(rng() % static_cast<unsigned>(units)) : 1 + static_cast<int>(rng() % 4);
    w.jobs.push_back(job(i + 1, t, size, estimate, runtime, 1 + static_cast<int>(rng() % 5)));
  }
  return w;
}

// Whole simulations with a small cap (each step continued a second later,
// events coming meanwhile), with and without resyncs: the simulator accepts
// every decision and every job runs to its end.
TEST(GangBudget, SimulationsUnderASmallCapRunEveryJob) {
  for (std::uint32_t seed = 1; seed <= 3; ++seed) {
    const Workload w = random_workload(seed, seed % 2 ? 16 : 48, 400);
    for (const char* spec : {"bgs:searches=1", "bgs:searches=4", "mbgs:searches=3", "bgs:mpl=1:searches=2"}) {
      for (const bool resyncs : {false, true}) {
        SCOPED_TRACE(testing::Message() << "seed " << seed << ", " << spec << (resyncs ? ", resyncs" : ""));
        SimOptions options;
        if (resyncs) {
          for (std::size_t k = 7; k < 20000; k += 7 + k % 11) options.resync_steps.push_back(k);
        }
        PolicyPtr policy = make_policy(spec);
        const SimResult r = simulate(w, *policy, options);
        ASSERT_EQ(r.jobs.size(), w.jobs.size());
        for (const JobOutcome& o : r.jobs) {
          ASSERT_GE(o.start, o.job.submit) << "job " << o.job.id;
          ASSERT_GT(o.end, o.start) << "job " << o.job.id;
        }
      }
    }
  }
}

// Live, the plugin's cycle may come after a reservation's start: the holder
// gets its row's earliest start from then (usually then, so it starts) and
// the rest of the plan stays. (A holder that missed its start used to stop
// the step with an error: losd answered the plugin with ERROR until a
// resync.)
TEST(GangBudget, AMissedReservationStartIsPlannedAgain) {
  int started_late = 0;
  for (std::uint32_t seed = 1; seed <= 12; ++seed) {
    for (const char* spec : {"bgs:mpl=1", "bgs:mpl=1:searches=5"}) {
      SCOPED_TRACE(testing::Message() << "seed " << seed << ", " << spec);
      PolicyPtr p = make_policy(spec);
      Machine m = random_machine(seed, 64, 150);
      m.s.resync = true;
      step_until_done(gang(p), m, 10);
      Time first = kTimeInfinity;
      std::set<JobId> held;
      for (const PlannedStart& r : gang(p).row_reservations(0)) {
        first = std::min(first, r.start);
        held.insert(r.job);
      }
      ASSERT_GT(held.size(), 20u);
      // The next step comes 5 s after the first reserved start; the jobs
      // whose ends it waited for ended by then, at their estimates.
      const Time now = first + 5;
      std::vector<JobId> ending;
      for (const RunningJob& r : m.s.running) {
        if (r.start + r.job.estimate <= now) ending.push_back(r.job.id);
      }
      for (JobId id : ending) m.end(id);
      StepResult result;
      ASSERT_NO_THROW(result = m.step(*p, now));
      for (const Decision& d : result.decisions) {
        started_late += d.kind == Decision::Kind::Start && held.count(d.job) != 0;
      }
      for (const PlannedStart& r : gang(p).row_reservations(0)) EXPECT_GT(r.start, now) << "job " << r.job;
    }
  }
  EXPECT_GT(started_late, 12);  // most missed starts happen at the late step
}

}  // namespace
}  // namespace los
