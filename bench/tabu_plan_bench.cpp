// Tabu's plan on long queues (issue 17): a fresh plan, and one insertion by
// the spec's list scan against the same insertion read off the profile.
//
// The partition is losd_bench's kind: `nodes` nodes, about 90% held by
// running jobs of 1-6 nodes, `pending` waiting jobs of 1-64 nodes, limits up
// to a day, 40 users; seeded, so the same arguments give the same plans.
//
//   BM_TabuFreshPlan/pending/nodes    a fresh policy's first step on that
//       partition (losd after a restart: a resync with every job still to
//       plan), search off (period=0): the plan alone.
//   BM_TabuInsertion{Scan,Profile}/pending/nodes    where one more job goes
//       in that plan (random shapes from the same distribution), by
//       TabuPlan::insertion_by_scan and insertion_by_profile; the plan does
//       not change.
#include <benchmark/benchmark.h>

#include <random>

#include "policies/tabu.hpp"

namespace {

using los::Job;
using los::Time;

los::Snapshot make_partition(int pending, int nodes) {
  std::mt19937_64 rng(2026);
  auto uniform = [&rng](long long lo, long long hi) { return std::uniform_int_distribution<long long>(lo, hi)(rng); };
  los::Snapshot s;
  s.now = 100000;
  s.total_units = nodes;
  s.resync = true;
  los::JobId id = 1;
  int node = 0;
  const int busy = nodes * 9 / 10;
  while (node < busy) {
    los::RunningJob r;
    r.job.id = id++;
    r.job.size = static_cast<int>(std::min<long long>(uniform(1, 6), busy - node));
    r.job.estimate = uniform(60, 86400);
    r.job.user = static_cast<int>(uniform(1, 40));
    r.start = s.now - uniform(0, r.job.estimate - 1);
    r.job.submit = r.start - uniform(0, 3600);
    node += r.job.size;
    s.running.push_back(r);
  }
  s.free_units = nodes - node;
  for (int i = 0; i < pending; ++i) {
    Job j;
    j.id = id++;
    j.size = static_cast<int>(uniform(1, 64));
    j.estimate = uniform(60, 86400);
    j.submit = s.now - uniform(0, 86400);
    j.user = static_cast<int>(uniform(1, 40));
    s.queue.push_back(j);
  }
  return s;
}

los::TabuPolicy::Options plan_only() {
  los::TabuPolicy::Options o;
  o.period = 0;
  return o;
}

void BM_TabuFreshPlan(benchmark::State& state) {
  const los::Snapshot s = make_partition(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  std::size_t planned = 0;
  for (auto _ : state) {
    los::TabuPolicy policy(plan_only(), los::RunMode::Live);
    const los::StepResult r = policy.step(s);
    planned = policy.tabu_plan().planned();
    benchmark::DoNotOptimize(r);
  }
  state.counters["planned"] = static_cast<double>(planned);
}

template <bool kScan>
void BM_TabuInsertion(benchmark::State& state) {
  const los::Snapshot s = make_partition(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  los::TabuPolicy policy(plan_only(), los::RunMode::Live);
  policy.step(s);
  const los::TabuPlan& plan = policy.tabu_plan();
  if (!plan.profile_insertion()) state.SkipWithError("the plan is not a fixed point of its replay");
  plan.profile();  // built once, before the clock
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> size(1, 64);
  std::uniform_int_distribution<Time> duration(60, 86400);
  double inside = 0;
  double queries = 0;
  for (auto _ : state) {
    const auto at = kScan ? plan.insertion_by_scan(size(rng), duration(rng))
                          : plan.insertion_by_profile(size(rng), duration(rng));
    inside += at.first < plan.planned();
    ++queries;
    benchmark::DoNotOptimize(at);
  }
  state.counters["inside"] = inside / queries;  // fraction placed before some listed job
}

void sizes(benchmark::internal::Benchmark* b) {
  b->Args({5000, 1000})->Args({100000, 10000})->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_TabuFreshPlan)->Apply(sizes)->Iterations(3);
BENCHMARK_TEMPLATE(BM_TabuInsertion, true)->Name("BM_TabuInsertionScan")->Apply(sizes);
BENCHMARK_TEMPLATE(BM_TabuInsertion, false)->Name("BM_TabuInsertionProfile")->Apply(sizes);

}  // namespace

BENCHMARK_MAIN();
