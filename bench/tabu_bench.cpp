// Tabu search speed: iterations per second of the search on plans of 100 and
// 1,000 waiting jobs, against the cost of rebuilding the plan (what an
// iteration would cost without the list plan: re-plan every waiting job by
// conservative insertion on the treap profile and recount the criteria).
//
// The plans are synthetic and fixed by a seed: a 128-unit machine, 32 running
// jobs, waiting jobs with sizes 1-128 (half of them powers of two) and run
// times log-uniform in [60 s, 36 h], all submitted by 40 users.
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>

#include "planner/planner.hpp"
#include "policies/tabu.hpp"

namespace {

using los::Job;
using los::Time;

constexpr int kUnits = 128;

struct Workload {
  std::vector<Job> running;
  std::vector<Time> running_end;
  std::vector<Job> waiting;
};

Workload make_workload(int waiting) {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> log_runtime(std::log(60.0), std::log(36 * 3600.0));
  std::uniform_int_distribution<int> any_size(1, kUnits), power(0, 7), user(1, 40);
  std::bernoulli_distribution pow2(0.5);
  Workload w;
  int used = 0;
  for (int i = 0; i < 32 && used < kUnits; ++i) {
    Job j;
    j.id = 1000000 + i;
    j.size = std::min(kUnits - used, 1 << power(rng) / 2);
    j.estimate = static_cast<Time>(std::exp(log_runtime(rng)));
    j.runtime = j.estimate;
    j.user = user(rng);
    used += j.size;
    w.running.push_back(j);
    w.running_end.push_back(std::uniform_int_distribution<Time>(1, j.estimate)(rng));
  }
  for (int i = 0; i < waiting; ++i) {
    Job j;
    j.id = i + 1;
    j.submit = -std::uniform_int_distribution<Time>(0, 86400)(rng);
    j.size = pow2(rng) ? 1 << power(rng) : any_size(rng);
    j.estimate = static_cast<Time>(std::exp(log_runtime(rng)));
    j.runtime = j.estimate;
    j.user = user(rng);
    w.waiting.push_back(j);
  }
  return w;
}

los::TabuPlan build(const Workload& w) {
  los::TabuPlan plan(kUnits, 0);
  for (std::size_t i = 0; i < w.running.size(); ++i) plan.add_running(w.running[i], 0, w.running_end[i]);
  for (const Job& j : w.waiting) plan.insert(j, 0);
  return plan;
}

// One search iteration (remove, compress, re-insert, evaluate, keep or undo)
// on a plan that the kept moves keep improving, as within a search.
void BM_TabuIteration(benchmark::State& state) {
  const Workload w = make_workload(static_cast<int>(state.range(0)));
  los::TabuPlan plan = build(w);
  plan.prepare();
  std::mt19937_64 rng(1);
  std::int64_t kept = 0, moves = 0;
  for (auto _ : state) {
    const std::vector<los::JobId>& movable = plan.movable();
    const los::JobId id = movable[std::uniform_int_distribution<std::size_t>(0, movable.size() - 1)(rng)];
    kept += plan.try_move(id, 0, false) == los::TabuPlan::MoveResult::Kept;
    ++moves;
  }
  state.counters["iterations/s"] = benchmark::Counter(static_cast<double>(moves), benchmark::Counter::kIsRate);
  state.counters["kept"] = static_cast<double>(kept) / static_cast<double>(std::max<std::int64_t>(1, moves));
}
BENCHMARK(BM_TabuIteration)->Arg(100)->Arg(1000)->Unit(benchmark::kMicrosecond);

// One whole search, as the policy runs it every 5 minutes: 2 x n iterations
// with a tabu list of 10, from the conservative plan (copied each time).
void BM_TabuSearch(benchmark::State& state) {
  const Workload w = make_workload(static_cast<int>(state.range(0)));
  const los::TabuPlan base = build(w);
  std::int64_t iterations = 0, accepted = 0;
  for (auto _ : state) {
    state.PauseTiming();
    los::TabuPlan plan = base;
    std::mt19937_64 rng(1);
    los::TabuSearchStats stats;
    state.ResumeTiming();
    los::tabu_search(plan, 0, 2 * state.range(0), 10, false, rng, std::chrono::steady_clock::time_point::max(), stats);
    iterations += stats.iterations;
    accepted += stats.accepted;
  }
  state.counters["iterations/s"] = benchmark::Counter(static_cast<double>(iterations), benchmark::Counter::kIsRate);
  state.counters["accepted/search"] =
      static_cast<double>(accepted) / static_cast<double>(std::max<std::int64_t>(1, state.iterations()));
}
BENCHMARK(BM_TabuSearch)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);

// The alternative an iteration is compared with: rebuild the conservative
// plan of n waiting jobs from scratch with the fastest plan structure we
// have (the treap profile: earliest_start + reserve per job, O(log P) jumps)
// and count the criteria again (waits, slowdowns, every user's NUWT and F).
void BM_TabuRebuild(benchmark::State& state) {
  const Workload w = make_workload(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    los::Planner profile(kUnits, 0);
    for (std::size_t i = 0; i < w.running.size(); ++i) profile.add(0, w.running_end[i], -w.running[i].size);
    std::int64_t wait = 0;
    double bsd = 0;
    std::vector<double> user_wait(41, 0), user_area(41, 0);
    for (const Job& j : w.running) user_area[j.user] += static_cast<double>(j.estimate) * j.size;
    for (const Job& j : w.waiting) {
      const Time s = profile.earliest_start(j.size, j.estimate, 0);
      profile.reserve(s, j.estimate, j.size);
      wait += s - j.submit;
      bsd += std::max(1.0, static_cast<double>(s + j.estimate - j.submit)) / static_cast<double>(j.estimate);
      user_wait[j.user] += static_cast<double>(s - j.submit);
      user_area[j.user] += static_cast<double>(j.estimate) * j.size;
    }
    double mean = 0, f = 0;
    for (int u = 1; u <= 40; ++u) mean += user_wait[u] / std::max(1.0, user_area[u]);
    mean /= 40;
    for (int u = 1; u <= 40; ++u) f += std::pow(mean - user_wait[u] / std::max(1.0, user_area[u]), 2);
    benchmark::DoNotOptimize(wait);
    benchmark::DoNotOptimize(bsd);
    benchmark::DoNotOptimize(f);
  }
  state.counters["rebuilds/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_TabuRebuild)->Arg(100)->Arg(1000)->Unit(benchmark::kMicrosecond);

// Building the list plan by n conservative insertions (each a pass over the
// list): what a new plan costs the policy after a rebuild from a snapshot.
void BM_TabuListBuild(benchmark::State& state) {
  const Workload w = make_workload(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(build(w).planned());
}
BENCHMARK(BM_TabuListBuild)->Arg(100)->Arg(1000)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
