// A step's budget (policy/step_budget.hpp) and conservative backfilling
// under it (docs/policies.md, "A step's budget"): a step that runs out of
// searches leaves the rest of its work to the next steps, and when those
// come at the same instant with nothing else happening, they end in the very
// plan and the very starts of one step without a budget: after a first
// plan, after an early end (a compression sweep stopped and resumed) and
// after a resync (old holders re-planned over several steps). Under events
// that keep coming, the plan is a fixpoint again whenever a step reports no
// work left.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "model/snapshot_diff.hpp"
#include "planner/running_profile.hpp"
#include "policy/registry.hpp"
#include "policy/step_budget.hpp"
#include "policies/tabu.hpp"
#include "sim/simulator.hpp"
#include "test_support.hpp"

namespace los {
namespace {

using test::job;

TEST(StepBudget, RefusesFromTheFirstSearchOverItsCountOn) {
  StepBudget budget(3, StepBudget::Clock::duration::zero());
  EXPECT_TRUE(budget.take());
  EXPECT_TRUE(budget.take());
  EXPECT_TRUE(budget.take());
  EXPECT_FALSE(budget.spent());
  EXPECT_FALSE(budget.take());
  EXPECT_TRUE(budget.spent());
  EXPECT_FALSE(budget.take());
}

TEST(StepBudget, WithoutLimitsNeverRefuses) {
  StepBudget budget;
  for (int i = 0; i < 100000; ++i) ASSERT_TRUE(budget.take());
  EXPECT_FALSE(budget.spent());
}

TEST(StepBudget, RefusesOnceItsDeadlineHasPassed) {
  StepBudget budget(0, std::chrono::milliseconds(20));
  EXPECT_TRUE(budget.take());
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_FALSE(budget.take());
  EXPECT_TRUE(budget.spent());
}

// Live, a step's clock starts when losd had read the snapshot, so reading it
// counts too; a step that begins planning late still gets half its budget.
TEST(StepBudget, LiveCountsFromTheSnapshotsReceiptButLeavesHalf) {
  using Clock = StepBudget::Clock;
  const auto ten = std::chrono::seconds(10);
  const Clock::time_point received = Clock::now() - std::chrono::seconds(2);
  EXPECT_EQ(StepBudget::for_step(0, 10.0, true, received).deadline(), received + ten);

  const Clock::time_point before = Clock::now();
  const StepBudget late = StepBudget::for_step(0, 10.0, true, Clock::now() - std::chrono::hours(1));
  const Clock::time_point after = Clock::now();
  EXPECT_GE(late.deadline(), before + ten / 2);
  EXPECT_LE(late.deadline(), after + ten / 2);

  const StepBudget unset = StepBudget::for_step(0, 10.0, true);  // from its own start
  EXPECT_GE(unset.deadline(), after + ten);
  // A simulation has no deadline, received or not.
  EXPECT_EQ(StepBudget::for_step(0, 10.0, false, received).deadline(), Clock::time_point::max());
  EXPECT_EQ(StepBudget::for_step(0, 0.0, true, received).deadline(), Clock::time_point::max());
}

TEST(StepBudget, AShareHasItsFractionOfWhatIsLeft) {
  StepBudget budget(10, StepBudget::Clock::duration::zero());
  EXPECT_TRUE(budget.take());
  EXPECT_TRUE(budget.take());
  StepBudget half = budget.share(0.5);  // 8 left: 4
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(half.take() && budget.take());
  EXPECT_FALSE(half.take());
  EXPECT_FALSE(budget.spent());
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(budget.take());  // the rest of the step's
  EXPECT_FALSE(budget.take());
  StepBudget one(1, StepBudget::Clock::duration::zero());
  StepBudget least = one.share(0.1);  // at least one search
  EXPECT_TRUE(least.take());
  EXPECT_FALSE(least.take());
  StepBudget timed(0, std::chrono::milliseconds(400));
  StepBudget quarter = timed.share(0.25);
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  EXPECT_FALSE(quarter.take());  // its 100 ms passed
  EXPECT_TRUE(timed.take());     // the step's 400 ms did not
}

// One partition as the plugin would show it: running jobs and the queue;
// start decisions move a job from the queue to the running set.
class Partition {
 public:
  Partition(int units, std::vector<RunningJob> running, std::vector<Job> queue)
      : units_(units), running_(std::move(running)), queue_(std::move(queue)) {}

  Snapshot snapshot(Time now, bool resync) {
    Snapshot s;
    s.now = now;
    s.total_units = units_;
    int busy = 0;
    for (const RunningJob& r : running_) busy += r.job.size;
    s.free_units = units_ - busy;
    s.running = running_;
    s.queue = queue_;
    s.resync = resync;
    if (previous_ && !resync) s.events = diff_snapshots(*previous_, s);
    previous_ = s;
    return s;
  }

  // Applies a step's starts at `now`; returns their ids.
  std::vector<JobId> apply(const StepResult& result, Time now) {
    std::vector<JobId> started;
    for (const Decision& d : result.decisions) {
      EXPECT_EQ(d.kind, Decision::Kind::Start);
      const auto it = std::find_if(queue_.begin(), queue_.end(), [&](const Job& j) { return j.id == d.job; });
      EXPECT_NE(it, queue_.end()) << "job " << d.job << " is not waiting";
      if (it == queue_.end()) continue;
      RunningJob r;
      r.job = *it;
      r.start = now;
      running_.push_back(r);
      queue_.erase(it);
      started.push_back(d.job);
    }
    return started;
  }

  // A running job ends now (before its estimate).
  void end(JobId id) {
    running_.erase(std::remove_if(running_.begin(), running_.end(), [&](const RunningJob& r) { return r.job.id == id; }),
                   running_.end());
  }

  void arrive(const Job& j) { queue_.push_back(j); }
  // New priorities: the queue in another order.
  void reorder(std::uint32_t seed) { std::shuffle(queue_.begin(), queue_.end(), std::mt19937(seed)); }

  const std::vector<RunningJob>& running() const { return running_; }
  const std::vector<Job>& queue() const { return queue_; }

 private:
  int units_;
  std::vector<RunningJob> running_;
  std::vector<Job> queue_;
  std::optional<Snapshot> previous_;
};

Partition random_partition(std::uint32_t seed, int units, int queued) {
  std::mt19937 rng(seed);
  std::vector<RunningJob> running;
  int busy = 0;
  JobId id = 1;
  while (busy < units * 3 / 4) {
    RunningJob r;
    const int size = 1 + static_cast<int>(rng() % static_cast<unsigned>(units / 4));
    if (busy + size > units) break;
    const Time estimate = 100 + static_cast<Time>(rng() % 2000);
    r.job = job(id++, 0, size, estimate, estimate);
    r.start = 0;
    running.push_back(r);
    busy += size;
  }
  std::vector<Job> queue;
  for (int i = 0; i < queued; ++i) {
    const int size = rng() % 3 == 0 ? 1 + static_cast<int>(rng() % static_cast<unsigned>(units))
                                    : 1 + static_cast<int>(rng() % 4);
    const Time estimate = 1 + static_cast<Time>(rng() % 3000);
    queue.push_back(job(id++, 0, size, estimate, estimate));
  }
  return Partition(units, std::move(running), std::move(queue));
}

struct Converged {
  std::set<JobId> started;
  std::vector<PlannedStart> plan;
  int steps = 0;
};

// Steps `policy` at `now` until it reports no work left (no wakeup).
Converged step_until_done(Policy& policy, Partition& partition, Time now, bool resync) {
  Converged out;
  for (bool first = true;; first = false) {
    const StepResult result = policy.step(partition.snapshot(now, first && resync));
    ++out.steps;
    for (JobId id : partition.apply(result, now)) out.started.insert(id);
    if (result.wakeup == kTimeInfinity) {
      EXPECT_FALSE(result.work_left) << "step " << out.steps;
      break;
    }
    EXPECT_EQ(result.wakeup, now + 1) << "step " << out.steps;
    EXPECT_TRUE(result.work_left) << "step " << out.steps;
    if (out.steps > 100000) {
      ADD_FAILURE() << "no end to the steps: " << policy.name() << " at " << now << ", "
                    << partition.queue().size() << " waiting";
      break;
    }
  }
  out.plan = policy.reservations();
  return out;
}

bool same(const std::vector<PlannedStart>& a, const std::vector<PlannedStart>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const PlannedStart& x, const PlannedStart& y) { return x.job == y.job && x.start == y.start; });
}

// The three kinds of work a budget cuts, each continued at the same instant
// until done: the same starts and the same reservations as one whole step
// (with stopped=wait; stopped=fill, the default, starts what fits now at
// once instead: the next test).
TEST(ConservativeBudget, StepsCutByTheBudgetEndInThePlanOfOneWholeStep) {
  int cut_first = 0, cut_early_end = 0, cut_resync = 0;
  for (std::uint32_t seed = 1; seed <= 12; ++seed) {
    for (const char* spec : {"conservative:stopped=wait:searches=1", "conservative:stopped=wait:searches=7",
                             "conservative:stopped=wait:searches=40"}) {
      SCOPED_TRACE(testing::Message() << "seed " << seed << ", " << spec);
      PolicyPtr whole = make_policy("conservative");
      PolicyPtr cut = make_policy(spec);
      Partition a = random_partition(seed, 64, 150);
      Partition b = random_partition(seed, 64, 150);

      // The first plan: the queue pass hands out the reservations.
      Converged x = step_until_done(*whole, a, 10, false);
      Converged y = step_until_done(*cut, b, 10, false);
      ASSERT_EQ(x.steps, 1);
      cut_first += y.steps > 1;
      EXPECT_EQ(x.started, y.started);
      ASSERT_TRUE(same(x.plan, y.plan));
      ASSERT_GT(x.plan.size(), 20u);

      // Early ends: compression's sweep, stopped and resumed.
      for (const Time now : {60, 120}) {
        const JobId ending = a.running().front().job.id;
        a.end(ending);
        b.end(ending);
        x = step_until_done(*whole, a, now, false);
        y = step_until_done(*cut, b, now, false);
        cut_early_end += y.steps > 1;
        EXPECT_EQ(x.started, y.started) << "t = " << now;
        ASSERT_TRUE(same(x.plan, y.plan)) << "t = " << now;
      }

      // A resync: the old holders re-planned in their order (not the
      // queue's, which new priorities changed), over steps, before the jobs
      // that arrived meanwhile (the pass's).
      std::mt19937 rng(seed);
      for (JobId id = 1000; id < 1020; ++id) {
        const Job j = job(id, 150, 1 + static_cast<int>(rng() % 8), 1 + static_cast<Time>(rng() % 500));
        a.arrive(j);
        b.arrive(j);
      }
      a.reorder(seed);
      b.reorder(seed);
      x = step_until_done(*whole, a, 200, true);
      y = step_until_done(*cut, b, 200, true);
      cut_resync += y.steps > 1;
      EXPECT_EQ(x.started, y.started);
      ASSERT_TRUE(same(x.plan, y.plan));
    }
  }
  // The budgets did cut each kind of work (else the test shows nothing).
  EXPECT_GT(cut_first, 20);
  EXPECT_GT(cut_early_end, 20);
  EXPECT_GT(cut_resync, 20);
}

// stopped=fill: a compression carried over from an earlier step takes at
// most half of a step's budget, so a job that arrives meanwhile gets its
// reservation in the step it arrives in, even while the compression cannot
// finish (stopped=wait spends the budget on the compression first).
TEST(ConservativeBudget, ACarriedOverCompressionLeavesHalfTheBudgetToNewJobs) {
  int reserved_at_once = 0, left_by_wait = 0;
  for (std::uint32_t seed = 1; seed <= 12; ++seed) {
    for (const int searches : {2, 7, 40}) {
      for (const bool fill : {true, false}) {
        const std::string spec =
            std::string("conservative:stopped=") + (fill ? "fill" : "wait") + ":searches=" + std::to_string(searches);
        SCOPED_TRACE(testing::Message() << "seed " << seed << ", " << spec);
        PolicyPtr policy = make_policy(spec);
        Partition p = random_partition(seed, 64, 150);
        step_until_done(*policy, p, 10, false);
        // A second later one running job has ended early: its compression
        // is cut; a second after that, one job arrives.
        const JobId ending = p.running().front().job.id;
        for (const RunningJob& r : std::vector<RunningJob>(p.running())) {
          if (r.job.id == ending || r.start + r.job.estimate <= 11) p.end(r.job.id);
        }
        const StepResult first = policy->step(p.snapshot(11, false));
        p.apply(first, 11);
        if (!first.work_left) continue;
        for (const RunningJob& r : std::vector<RunningJob>(p.running())) {
          if (r.start < 11 && r.start + r.job.estimate <= 12) p.end(r.job.id);
        }
        const JobId wide = 5000;
        p.arrive(job(wide, 12, 64, 100));  // the whole machine: a reservation, never a start now
        const StepResult result = policy->step(p.snapshot(12, false));
        p.apply(result, 12);
        if (!result.work_left) continue;
        const std::vector<PlannedStart> plan = policy->reservations();
        const bool reserved =
            std::any_of(plan.begin(), plan.end(), [&](const PlannedStart& r) { return r.job == wide; });
        if (fill) {
          EXPECT_TRUE(reserved);
          reserved_at_once += reserved;
        } else {
          left_by_wait += !reserved;
        }
      }
    }
  }
  EXPECT_GT(reserved_at_once, 10);
  EXPECT_GT(left_by_wait, 10);
}

// The policy's reservations by job.
std::unordered_map<JobId, Time> reserved_starts(const Policy& policy) {
  std::unordered_map<JobId, Time> out;
  for (const PlannedStart& r : policy.reservations()) out.emplace(r.job, r.start);
  return out;
}

// Checks that every job of `queue` that held a reservation in `before`
// still holds one in `after`; returns the pairs (was, is) to check further.
std::vector<std::pair<Time, Time>> kept_reservations(const std::vector<Job>& queue,
                                                     const std::unordered_map<JobId, Time>& before,
                                                     const std::unordered_map<JobId, Time>& after) {
  std::vector<std::pair<Time, Time>> kept;
  for (const Job& j : queue) {
    const auto was = before.find(j.id);
    if (was == before.end()) continue;
    const auto is = after.find(j.id);
    EXPECT_NE(is, after.end()) << "job " << j.id << " lost its reservation";
    if (is != after.end()) kept.emplace_back(was->second, is->second);
  }
  return kept;
}

// Live, the plugin's cycle may come after a reservation's start: the holder
// gets the earliest start from then (now, where its units are still free)
// and the rest of the plan stays: no re-plan of every holder, which under a
// budget would leave old holders without a reservation for steps.
TEST(ConservativeBudget, AMissedStartCostsNoReplan) {
  int started_late = 0;
  for (std::uint32_t seed = 1; seed <= 12; ++seed) {
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    PolicyPtr policy = make_policy("conservative:searches=5");
    Partition p = random_partition(seed, 64, 150);
    step_until_done(*policy, p, 10, false);
    const std::unordered_map<JobId, Time> before = reserved_starts(*policy);
    Time first = kTimeInfinity;
    for (const auto& [id, start] : before) first = std::min(first, start);
    ASSERT_GT(before.size(), 20u);
    ASSERT_LT(first, kTimeInfinity);
    // The next step comes 5 s after the first reservation's start; the jobs
    // it waited for ended by then (at their estimates).
    const Time now = first + 5;
    for (const RunningJob& r : std::vector<RunningJob>(p.running())) {
      if (r.start + r.job.estimate <= now) p.end(r.job.id);
    }
    const StepResult result = policy->step(p.snapshot(now, false));
    const std::vector<JobId> started = p.apply(result, now);
    for (const auto& [was, is] : kept_reservations(p.queue(), before, reserved_starts(*policy))) {
      if (was >= now) {
        EXPECT_LE(is, was);
      }
    }
    for (JobId id : started) {
      const auto was = before.find(id);
      started_late += was != before.end() && was->second < now;
    }
  }
  EXPECT_GT(started_late, 6);  // most missed starts happen at the late step
}

// Live, a job past its limit still holds its nodes until Slurm has cleaned
// them: its units are taken for another second, holders due now that no
// longer fit move (the latest promises first), and the rest of the plan
// stays, without a re-plan of every holder (a simulation rebuilds there, as
// the results were made).
TEST(ConservativeBudget, LiveAJobPastItsLimitCostsNoReplan) {
  int due_moved = 0;
  for (std::uint32_t seed = 1; seed <= 12; ++seed) {
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    PolicyPtr policy = make_policy("conservative:searches=5", RunMode::Live);
    Partition p = random_partition(seed, 64, 150);
    step_until_done(*policy, p, 10, false);
    const std::unordered_map<JobId, Time> before = reserved_starts(*policy);
    ASSERT_GT(before.size(), 20u);
    // The running job that ends first is still reported running at its
    // limit (the holders waiting for its units are due then), or 2 s after;
    // the others due by then ended.
    const RunningJob* first = &p.running().front();
    for (const RunningJob& r : p.running()) {
      if (r.start + r.job.estimate < first->start + first->job.estimate) first = &r;
    }
    const JobId overrun = first->job.id;
    const int overrun_size = first->job.size;
    const Time now = first->start + first->job.estimate + (seed % 2 == 0 ? 2 : 0);
    for (const RunningJob& r : std::vector<RunningJob>(p.running())) {
      if (r.job.id != overrun && r.start + r.job.estimate <= now) p.end(r.job.id);
    }
    const StepResult result = policy->step(p.snapshot(now, false));
    p.apply(result, now);
    for (const auto& [was, is] : kept_reservations(p.queue(), before, reserved_starts(*policy))) {
      EXPECT_GT(is, now);  // not due now: it would have started
      if (was > now) {
        EXPECT_LE(is, was);
      }
      due_moved += was <= now;
    }
    // What started fits beside the job that overran.
    int busy = 0;
    for (const RunningJob& r : p.running()) busy += r.job.size;
    EXPECT_LE(busy, 64);
    EXPECT_TRUE(std::any_of(p.running().begin(), p.running().end(),
                            [&](const RunningJob& r) { return r.job.id == overrun && r.job.size == overrun_size; }));
  }
  EXPECT_GT(due_moved, 5);  // holders due by then that did not fit beside it
}

// Tabu's wakeup may also be a reservation due a second later: step until a
// step changes nothing (no start, the same plan) and count the others (a
// step after starts changes the plan: their Started events remove them).
Converged tabu_steps_until_stable(Policy& policy, Partition& partition, Time now) {
  const auto& tabu = dynamic_cast<const TabuPolicy&>(policy);
  Converged out;
  out.plan = tabu.planned_starts();
  for (;;) {
    const StepResult result = policy.step(partition.snapshot(now, false));
    const std::vector<JobId> started = partition.apply(result, now);
    std::vector<PlannedStart> plan = tabu.planned_starts();
    if (started.empty() && same(plan, out.plan)) break;
    ++out.steps;
    out.started.insert(started.begin(), started.end());
    out.plan = std::move(plan);
    if (out.steps > 100000) {
      ADD_FAILURE() << "no end to the steps: " << policy.name() << " at " << now;
      break;
    }
  }
  return out;
}

// Tabu's plan of newly queued jobs, cut by `inserts` and continued at the
// same instant, without searches: the same starts and plan as one whole
// step (an insertion never moves the jobs inserted before it, so a job due
// now in the partial plan is due now in the whole one).
TEST(TabuBudget, StepsCutByTheBudgetEndInThePlanOfOneWholeStep) {
  int cut = 0;
  for (std::uint32_t seed = 1; seed <= 8; ++seed) {
    for (const auto& [whole_spec, cut_spec] :
         {std::pair{"tabu:period=0", "tabu:period=0:inserts=1:stopped=wait"},
          std::pair{"tabu:period=0", "tabu:period=0:inserts=13:stopped=wait"},
          std::pair{"tabu:safe:period=0", "tabu:safe:period=0:inserts=6:stopped=wait"}}) {
      SCOPED_TRACE(testing::Message() << "seed " << seed << ", " << cut_spec);
      PolicyPtr whole = make_policy(whole_spec);
      PolicyPtr cut_policy = make_policy(cut_spec);
      Partition a = random_partition(seed, 64, 120);
      Partition b = random_partition(seed, 64, 120);
      for (const Time now : {300, 360, 420}) {
        if (now > 300) {
          const JobId ending = a.running().front().job.id;
          a.end(ending);
          b.end(ending);
          std::mt19937 rng(seed + static_cast<std::uint32_t>(now));
          for (int i = 0; i < 15; ++i) {
            const Job j = job(static_cast<JobId>(10 * now + i), now - 5, 1 + static_cast<int>(rng() % 16),
                              1 + static_cast<Time>(rng() % 900));
            a.arrive(j);
            b.arrive(j);
          }
        }
        const Converged x = tabu_steps_until_stable(*whole, a, now);
        const Converged y = tabu_steps_until_stable(*cut_policy, b, now);
        cut += y.steps > x.steps;
        EXPECT_EQ(x.started, y.started) << "t = " << now;
        ASSERT_TRUE(same(x.plan, y.plan)) << "t = " << now;
        ASSERT_GT(x.plan.size(), 20u);
      }
    }
  }
  EXPECT_GT(cut, 40);
}

// A search due while jobs are still to plan waits for them: it runs once,
// in the step after the one that plans the last of them (every step before
// it planned more jobs and searched not).
TEST(TabuBudget, ASearchWaitsUntilEveryJobIsPlanned) {
  PolicyPtr policy = make_policy("tabu:inserts=10");
  const auto& tabu = dynamic_cast<const TabuPolicy&>(*policy);
  Partition p = random_partition(3, 64, 95);
  int steps = 0;
  int cut = 0;  // steps that report work left (losd's los_steps_cut_total)
  for (;;) {
    const std::size_t listed_before = tabu.planned_starts().size();
    const StepResult r = policy->step(p.snapshot(300, false));
    p.apply(r, 300);
    ++steps;
    cut += r.work_left;
    if (r.wakeup == 301 && tabu.stats().searches == 0) {
      EXPECT_GT(tabu.planned_starts().size(), listed_before);
      continue;
    }
    break;
  }
  // 95 jobs, 10 a step: the 10th step plans the last 5, and the search due
  // waits for the step after it (the wakeup a second later brings it).
  EXPECT_EQ(steps, 11);
  EXPECT_EQ(cut, 9);  // the 10th planned the rest: no work left, only the search's wakeup
  EXPECT_EQ(tabu.stats().searches, 1);
  EXPECT_GT(tabu.stats().iterations, 0);
}

// After every step that reports no work left, no reservation can start
// earlier: the plan is conservative's fixpoint. Checked on simulations whose
// early ends keep coming while sweeps are stopped (the gains that come
// during a sweep get a sweep of their own after it).
class FixpointCheck final : public SimObserver {
 public:
  void after_step(const Snapshot& snapshot, const StepResult& result, const Policy& policy) override {
    if (result.wakeup != kTimeInfinity) {
      ++unfinished;
      return;
    }
    const Planner& planner = *policy.plan();
    for (const PlannedStart& r : policy.reservations()) {
      if (r.start <= snapshot.now) continue;
      const auto it = std::find_if(snapshot.queue.begin(), snapshot.queue.end(),
                                   [&](const Job& j) { return j.id == r.job; });
      ASSERT_NE(it, snapshot.queue.end());
      const Time s = planner.earliest_start(it->size, planned_duration(it->estimate), snapshot.now, r.start);
      ASSERT_GE(s, r.start) << "job " << r.job << " reserved at " << r.start << " fits at " << s << " (t = "
                            << snapshot.now << ")";
      ++checked;
    }
  }
  long unfinished = 0;
  long checked = 0;
};

// A workload whose jobs mostly end before their estimates, so that
// compressions keep coming while a small budget cuts the steps.
Workload early_ending_workload(std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<Job> jobs;
  Time t = 0;
  for (int i = 0; i < 400; ++i) {
    if (rng() % 3 == 0) t += static_cast<Time>(rng() % 150);
    const int size = rng() % 3 == 0 ? 1 + static_cast<int>(rng() % 32) : 1 + static_cast<int>(rng() % 4);
    const Time estimate = 1 + static_cast<Time>(rng() % 600);
    const Time runtime = rng() % 5 == 0 ? estimate : 1 + static_cast<Time>(rng() % estimate);
    jobs.push_back(job(i + 1, t, size, estimate, runtime));
  }
  return test::workload(32, std::move(jobs));
}

TEST(ConservativeBudget, AStepWithNoWorkLeftLeavesAFixpoint) {
  for (std::uint32_t seed = 1; seed <= 6; ++seed) {
    const Workload w = early_ending_workload(seed);
    for (const char* spec : {"conservative:searches=2", "conservative:searches=15"}) {
      SCOPED_TRACE(testing::Message() << "seed " << seed << ", " << spec);
      PolicyPtr policy = make_policy(spec);
      FixpointCheck check;
      const SimResult r = simulate(w, *policy, {}, &check);
      EXPECT_EQ(r.jobs.size(), w.jobs.size());
      EXPECT_GT(check.unfinished, 0);
      EXPECT_GT(check.checked, 100);
    }
  }
}

// After each step the budget cut: how many waiting jobs could start now (a
// holder whose reservation could move to now, a job without one that fits
// now for its whole estimate, in the plan the step left); and whether any
// reservation moved later than the last step left it.
// `planned` gives the starts the policy holds (conservative's reservations,
// tabu's list); with holders_fill, a holder that could start now counts as
// left fitting too (conservative; tabu's cut steps fill only unplanned jobs).
class CutStepCheck final : public SimObserver {
 public:
  using Planned = std::function<std::vector<PlannedStart>(const Policy&)>;
  CutStepCheck() : CutStepCheck([](const Policy& p) { return p.reservations(); }, true) {}
  CutStepCheck(Planned planned, bool holders_fill) : planned_(std::move(planned)), holders_fill_(holders_fill) {}

  void after_step(const Snapshot& snapshot, const StepResult& result, const Policy& policy) override {
    const Time now = snapshot.now;
    std::unordered_map<JobId, Time> reserved;
    for (const PlannedStart& r : planned_(policy)) {
      reserved.emplace(r.job, r.start);
      const auto it = promised_.find(r.job);
      if (it != promised_.end() && r.start > it->second) ++delayed;
    }
    std::unordered_set<JobId> started;
    for (const Decision& d : result.decisions) {
      started.insert(d.job);
      const auto it = promised_.find(d.job);
      moved_to_now += result.work_left && it != promised_.end() && it->second > now;
    }
    promised_ = std::move(reserved);
    if (!result.work_left) return;
    ++cut;
    const Planner& planner = *policy.plan();
    int fit = 0;
    for (const Job& j : snapshot.queue) {
      if (started.count(j.id) != 0) continue;
      const Time d = planned_duration(j.estimate);
      const auto it = promised_.find(j.id);
      if (it != promised_.end()) {
        fit += holders_fill_ && it->second > now && planner.earliest_start(j.size, d, now, it->second, now + 1) == now;
      } else {
        fit += planner.min_free(now, now + d) >= j.size;
      }
    }
    left_fitting += fit > 0;
  }
  long cut = 0;           // steps the budget cut
  long left_fitting = 0;  // of those, steps that left a job waiting that fits now
  long moved_to_now = 0;  // holders a cut step started before their reservations
  long delayed = 0;       // reservations moved later

 private:
  Planned planned_;
  bool holders_fill_;
  std::unordered_map<JobId, Time> promised_;
};

// stopped=fill (the default): a step the budget cut still starts every job
// that fits now (holders whose reservations move to now, in the sweep's
// order, then the jobs the pass did not reach) and moves no reservation
// later; stopped=wait leaves them for the steps that finish the work.
TEST(ConservativeBudget, ACutStepStartsWhatFitsNowAndDelaysNoPromise) {
  long moved_to_now = 0;
  for (std::uint32_t seed = 1; seed <= 6; ++seed) {
    const Workload w = early_ending_workload(seed);
    for (const int searches : {2, 15}) {
      for (const bool fill : {true, false}) {
        const std::string spec =
            std::string("conservative:stopped=") + (fill ? "fill" : "wait") + ":searches=" + std::to_string(searches);
        SCOPED_TRACE(testing::Message() << "seed " << seed << ", " << spec);
        PolicyPtr policy = make_policy(spec);
        CutStepCheck check;
        const SimResult r = simulate(w, *policy, {}, &check);
        EXPECT_EQ(r.jobs.size(), w.jobs.size());
        EXPECT_GT(check.cut, 50);
        EXPECT_EQ(check.delayed, 0);
        if (fill) {
          EXPECT_EQ(check.left_fitting, 0);
          moved_to_now += check.moved_to_now;
        } else {
          EXPECT_GT(check.left_fitting, 0);  // waiting left jobs idle: the fill has work
        }
      }
    }
  }
  EXPECT_GT(moved_to_now, 10);  // the holders' fill ran
}

// tabu:stopped=fill (the default): a step whose insertions the budget cut
// still starts every job it did not plan that fits now for its whole
// estimate; without a search (period=0) no planned start moves later.
// stopped=wait leaves such jobs for the steps that plan them.
TEST(TabuBudget, ACutStepStartsWhatFitsNowAndDelaysNoStart) {
  const CutStepCheck::Planned planned = [](const Policy& p) {
    return dynamic_cast<const TabuPolicy&>(p).planned_starts();
  };
  for (std::uint32_t seed = 1; seed <= 6; ++seed) {
    const Workload w = early_ending_workload(seed);
    for (const int inserts : {1, 4}) {
      for (const bool fill : {true, false}) {
        const std::string spec =
            std::string("tabu:period=0:stopped=") + (fill ? "fill" : "wait") + ":inserts=" + std::to_string(inserts);
        SCOPED_TRACE(testing::Message() << "seed " << seed << ", " << spec);
        PolicyPtr policy = make_policy(spec);
        CutStepCheck check(planned, false);
        const SimResult r = simulate(w, *policy, {}, &check);
        EXPECT_EQ(r.jobs.size(), w.jobs.size());
        EXPECT_GT(check.cut, 20);
        EXPECT_EQ(check.delayed, 0);
        if (fill) {
          EXPECT_EQ(check.left_fitting, 0);
        } else {
          EXPECT_GT(check.left_fitting, 0);  // waiting jobs left idle: the fill has work
        }
      }
    }
  }
}

}  // namespace
}  // namespace los
