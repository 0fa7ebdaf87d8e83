// Backfilling's queue pass that skips the jobs it would refuse without
// reading them (BackfillingPolicy::Pass::Skipping, the default) against the
// plain loop over every job (Pass::Plain), on random workloads with long
// queues, blocked heads and reservations reached exactly at their start:
// the same reservations after every step, the same starts.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "model/snapshot_diff.hpp"
#include "policies/backfilling.hpp"
#include "sim/simulator.hpp"
#include "test_support.hpp"

namespace los {
namespace {

// Every step's planned starts and decisions, in order.
class StepRecorder final : public SimObserver {
 public:
  void after_step(const Snapshot& snapshot, const StepResult& result, const Policy& policy) override {
    plans.push_back(policy.reservations());
    std::vector<JobId> started;
    for (const Decision& d : result.decisions) started.push_back(d.job);
    decisions.push_back(std::move(started));
    if (snapshot.queue.shapes_known()) ++known;
  }
  std::vector<std::vector<PlannedStart>> plans;
  std::vector<std::vector<JobId>> decisions;
  std::size_t known = 0;
};

// Bursts of arrivals on few units, so the queue grows long: sizes from 1 to
// the whole machine, estimates from 1 s, runtimes at or well below them
// (holders then move and start exactly at their reserved time).
Workload random_workload(std::uint32_t seed, int units, int jobs) {
  std::mt19937 rng(seed);
  std::vector<Job> out;
  Time t = 0;
  for (int i = 0; i < jobs; ++i) {
    if (rng() % 5 == 0) t += static_cast<Time>(rng() % 300);
    const int size = rng() % 4 == 0 ? 1 + static_cast<int>(rng() % units) : 1 + static_cast<int>(rng() % 3);
    const Time estimate = rng() % 6 == 0 ? 1 : 1 + static_cast<Time>(rng() % 400);
    const Time runtime = rng() % 3 == 0 ? estimate : static_cast<Time>(rng() % (estimate + 1));
    out.push_back(test::job(i + 1, t, size, estimate, runtime));
  }
  return test::workload(units, std::move(out));
}

struct PassRun {
  SimResult result;
  StepRecorder steps;
};

PassRun simulate_with(const Workload& w, int depth, BackfillingPolicy::Pass pass, const SimOptions& options = {}) {
  BackfillingPolicy policy(depth, "backfilling", BackfillingPolicy::Compression::Indexed, pass);
  PassRun r;
  r.result = simulate(w, policy, options, &r.steps);
  return r;
}

void expect_same_runs(const PassRun& fast, const PassRun& reference) {
  ASSERT_EQ(fast.steps.plans.size(), reference.steps.plans.size());
  for (std::size_t i = 0; i < fast.steps.plans.size(); ++i) {
    ASSERT_EQ(fast.steps.decisions[i], reference.steps.decisions[i]) << "step " << i;
    const auto& a = fast.steps.plans[i];
    const auto& b = reference.steps.plans[i];
    ASSERT_EQ(a.size(), b.size()) << "step " << i;
    for (std::size_t k = 0; k < a.size(); ++k) {
      ASSERT_EQ(a[k].job, b[k].job) << "step " << i;
      ASSERT_EQ(a[k].start, b[k].start) << "step " << i;
    }
  }
  ASSERT_EQ(fast.result.jobs.size(), reference.result.jobs.size());
  for (std::size_t j = 0; j < fast.result.jobs.size(); ++j) {
    ASSERT_EQ(fast.result.jobs[j].start, reference.result.jobs[j].start) << "job " << fast.result.jobs[j].job.id;
  }
}

TEST(BackfillingPass, SkippingEqualsThePlainLoopOnRandomWorkloads) {
  std::size_t known_steps = 0;
  for (std::uint32_t seed = 1; seed <= 16; ++seed) {
    const int units = seed % 3 == 0 ? 8 : seed % 3 == 1 ? 32 : 128;
    const Workload w = random_workload(seed, units, 700);
    for (const int depth : {0, 1, 2, 4, 16, BackfillingPolicy::kUnlimited}) {
      SCOPED_TRACE("seed " + std::to_string(seed) + ", units " + std::to_string(units) + ", depth " +
                   std::to_string(depth));
      const PassRun fast = simulate_with(w, depth, BackfillingPolicy::Pass::Skipping);
      const PassRun reference = simulate_with(w, depth, BackfillingPolicy::Pass::Plain);
      ASSERT_NO_FATAL_FAILURE(expect_same_runs(fast, reference));
      known_steps += fast.steps.known;
    }
  }
  // The simulator keeps the queue's shapes known, so the skipping pass ran.
  EXPECT_GT(known_steps, 0u);
}

TEST(BackfillingPass, SkippingEqualsThePlainLoopAcrossResyncs) {
  // A resync rebuilds the plan from the snapshot (holders re-planned, some
  // due now): the pass after it must also agree.
  for (std::uint32_t seed = 21; seed <= 26; ++seed) {
    const Workload w = random_workload(seed, 24, 500);
    SimOptions options;
    for (std::size_t s = 3; s < 2000; s += 7 + seed) options.resync_steps.push_back(s);
    for (const int depth : {1, 4, BackfillingPolicy::kUnlimited}) {
      SCOPED_TRACE("seed " + std::to_string(seed) + ", depth " + std::to_string(depth));
      const PassRun fast = simulate_with(w, depth, BackfillingPolicy::Pass::Skipping, options);
      const PassRun reference = simulate_with(w, depth, BackfillingPolicy::Pass::Plain, options);
      ASSERT_NO_FATAL_FAILURE(expect_same_runs(fast, reference));
    }
  }
}

// A job for the snapshot tests' queues: sometimes the whole partition or
// more, else up to its size or small; estimates from 1 s, runtimes up to them.
Job random_queued_job(std::mt19937& rng, JobId id, Time now, int units) {
  Job j;
  j.id = id;
  j.submit = now;
  const std::uint32_t kind = rng() % 10;
  j.size = kind == 0 ? units : kind == 1 ? units + 1 : kind < 4 ? 1 + static_cast<int>(rng() % units)
                                                                : 1 + static_cast<int>(rng() % 3);
  j.estimate = rng() % 5 == 0 ? 1 : 1 + static_cast<Time>(rng() % 60);
  j.runtime = static_cast<Time>(rng() % (j.estimate + 1));
  return j;
}

// The same policy with each pass, the snapshot both are given, and the jobs
// that arrive in its queue.
struct PassPair {
  PassPair(int depth, int units, BackfillingPolicy::Limits limits = {})
      : skipping(depth, "backfilling", BackfillingPolicy::Compression::Indexed, BackfillingPolicy::Pass::Skipping,
                 limits),
        plain(depth, "backfilling", BackfillingPolicy::Compression::Indexed, BackfillingPolicy::Pass::Plain, limits) {
    snapshot.total_units = units;
  }
  Job new_job(std::mt19937& rng) { return random_queued_job(rng, next_id++, snapshot.now, snapshot.total_units); }
  BackfillingPolicy skipping;
  BackfillingPolicy plain;
  Snapshot snapshot;
  JobId next_id = 1;
};

// Steps both policies on `s`: the same decisions and the same plan after it.
// `plan` gets the plan, `decided` the started jobs.
void expect_same_step(PassPair& pair, const Snapshot& s, int step, std::vector<PlannedStart>& plan,
                      std::vector<JobId>& decided) {
  const StepResult a = pair.skipping.step(s);
  const StepResult b = pair.plain.step(s);
  ASSERT_EQ(a.decisions.size(), b.decisions.size()) << "step " << step;
  for (std::size_t k = 0; k < a.decisions.size(); ++k) ASSERT_EQ(a.decisions[k].job, b.decisions[k].job);
  plan = pair.skipping.reservations();
  const std::vector<PlannedStart> pb = pair.plain.reservations();
  ASSERT_EQ(plan.size(), pb.size()) << "step " << step;
  for (std::size_t k = 0; k < plan.size(); ++k) {
    ASSERT_EQ(plan[k].job, pb[k].job) << "step " << step;
    ASSERT_EQ(plan[k].start, pb[k].start) << "step " << step;
  }
  decided.clear();
  for (const Decision& d : a.decisions) decided.push_back(d.job);
}

// Starts the decided jobs, then moves the clock to the next planned start,
// the next end or a random time, whichever is first, and ends the jobs due.
void start_and_advance(Snapshot& s, const std::vector<JobId>& decided, const std::vector<PlannedStart>& plan,
                       std::mt19937& rng) {
  for (const JobId id : decided) {
    const auto it = std::find_if(s.queue.cbegin(), s.queue.cend(), [&](const Job& j) { return j.id == id; });
    ASSERT_NE(it, s.queue.cend());
    RunningJob r;
    r.job = *it;
    r.start = s.now;
    s.running.push_back(r);
    s.queue.erase(it);
  }
  Time next = s.now + 1 + static_cast<Time>(rng() % 20);
  for (const PlannedStart& p : plan) next = std::min(next, std::max(p.start, s.now + 1));
  for (const RunningJob& r : s.running) next = std::min(next, std::max(r.start + r.job.runtime, s.now + 1));
  s.now = next;
  std::erase_if(s.running, [&](const RunningJob& r) { return r.start + r.job.runtime <= s.now; });
}

// Snapshots as losd sends them: the queue in any (priority) order, so a
// holder may sit behind jobs that hold nothing, some jobs larger than the
// partition, every snapshot a resync (the plan is rebuilt: holders are
// re-planned, often due at once). Both passes get the same snapshots.
TEST(BackfillingPass, SkippingEqualsThePlainLoopOnRandomQueueOrders) {
  std::size_t started = 0;
  for (std::uint32_t seed = 1; seed <= 40; ++seed) {
    std::mt19937 rng(seed);
    const int units = 4 + static_cast<int>(rng() % 29);
    const int depth = static_cast<int>(rng() % 4);
    SCOPED_TRACE("seed " + std::to_string(seed) + ", depth " + std::to_string(depth));
    PassPair pair(depth, units);
    Snapshot& s = pair.snapshot;
    const auto new_job = [&] { return pair.new_job(rng); };
    for (int step = 0; step < 150; ++step) {
      // Arrivals at random places in the queue (priority order).
      for (std::uint32_t a = rng() % 4; a > 0; --a) {
        const std::size_t at = static_cast<std::size_t>(rng() % (s.queue.size() + 1));
        s.queue.insert(s.queue.cbegin() + static_cast<std::ptrdiff_t>(at), new_job());
      }
      ASSERT_TRUE(s.queue.shapes_known());
      int busy = 0;
      for (const RunningJob& r : s.running) busy += r.job.size;
      s.free_units = units - busy;
      s.resync = true;
      std::vector<PlannedStart> plan;
      std::vector<JobId> decided;
      ASSERT_NO_FATAL_FAILURE(expect_same_step(pair, s, step, plan, decided));
      started += decided.size();
      ASSERT_NO_FATAL_FAILURE(start_and_advance(s, decided, plan, rng));
    }
  }
  EXPECT_GT(started, 0u);
}

// Snapshots as losd derives them between resyncs: events from the previous
// snapshot (diff_snapshots), arrivals at random places in the queue,
// cancelled jobs (withdrawals, some of them holders), jobs whose priority
// order changes, jobs larger than the partition that never hold anything.
// Conservative's pass, which knows the last pass's holders by their order,
// must agree with the plain loop that looks every job up.
struct ChangingQueueCounts {
  std::size_t started = 0, withdrawn = 0, reordered = 0, cut = 0;
};

// Steps both passes through `seeds` random runs of 200 steps whose queue
// changes between steps (arrivals anywhere, cancellations, priority swaps).
ChangingQueueCounts run_changing_queues(std::uint32_t seeds, BackfillingPolicy::Limits limits) {
  ChangingQueueCounts counts;
  for (std::uint32_t seed = 1; seed <= seeds; ++seed) {
    std::mt19937 rng(seed);
    const int units = 4 + static_cast<int>(rng() % 29);
    const int depth = seed % 5 == 0 ? 3 : BackfillingPolicy::kUnlimited;
    SCOPED_TRACE("seed " + std::to_string(seed) + ", depth " + std::to_string(depth));
    PassPair pair(depth, units, limits);
    Snapshot& s = pair.snapshot;
    const auto new_job = [&] { return pair.new_job(rng); };
    Snapshot previous;
    std::vector<JobId> started_last;
    for (int step = 0; step < 200; ++step) {
      for (std::uint32_t a = rng() % 4; a > 0; --a) {
        const std::size_t at = rng() % 3 == 0 ? static_cast<std::size_t>(rng() % (s.queue.size() + 1)) : s.queue.size();
        s.queue.insert(s.queue.cbegin() + static_cast<std::ptrdiff_t>(at), new_job());
      }
      if (!s.queue.empty() && rng() % 6 == 0) {  // a cancellation
        s.queue.erase(s.queue.cbegin() + static_cast<std::ptrdiff_t>(rng() % s.queue.size()));
        ++counts.withdrawn;
      }
      if (s.queue.size() > 1 && rng() % 6 == 0) {  // a priority change
        std::vector<Job> jobs(s.queue.begin(), s.queue.end());
        std::swap(jobs[rng() % jobs.size()], jobs[rng() % jobs.size()]);
        s.queue = std::move(jobs);
        ++counts.reordered;
      }
      int busy = 0;
      for (const RunningJob& r : s.running) busy += r.job.size;
      s.free_units = units - busy;
      s.resync = step == 0;
      s.events = step == 0 ? std::vector<SnapshotEvent>{} : diff_snapshots(previous, s, started_last);
      std::vector<PlannedStart> plan;
      expect_same_step(pair, s, step, plan, started_last);
      if (::testing::Test::HasFatalFailure()) return counts;
      counts.cut += plan.size() + started_last.size() < s.queue.size();
      previous = s;
      counts.started += started_last.size();
      start_and_advance(s, started_last, plan, rng);
      if (::testing::Test::HasFatalFailure()) return counts;
    }
  }
  return counts;
}

// Snapshots as losd derives them between resyncs: events from the previous
// snapshot (diff_snapshots), arrivals at random places in the queue,
// cancelled jobs (withdrawals, some of them holders), jobs whose priority
// order changes, jobs larger than the partition that never hold anything.
// Conservative's pass, which knows the last pass's holders by their order,
// must agree with the plain loop that looks every job up.
TEST(BackfillingPass, ConservativeKnowsItsHoldersWhenTheQueueChangesBetweenSteps) {
  const ChangingQueueCounts counts = run_changing_queues(30, {});
  EXPECT_GT(counts.started, 1000u);
  EXPECT_GT(counts.withdrawn, 100u);
  EXPECT_GT(counts.reordered, 100u);
}

// The same with a budget of 3 searches a step (live, a step's budget cuts the
// planning the same way): the plan holds only part of the queue, the pass
// fills what fits now (stopped=fill) and skips the look-ups once every
// holder is behind it, and stops once nothing is free and no holder is left.
TEST(BackfillingPass, ConservativeCutStepsAgreeWithThePlainLoop) {
  const ChangingQueueCounts counts = run_changing_queues(30, {.searches = 3, .live_seconds = 0, .fill_now = true});
  EXPECT_GT(counts.started, 1000u);
  EXPECT_GT(counts.cut, 1000u);  // steps that left jobs without a plan
}

}  // namespace
}  // namespace los
