// LOS speed: one decision at the thesis's scale (512 nodes, C = 50), one at
// production scale (1,000 candidates, 10,000 free units, extra 10,000), the
// thesis's table solver for comparison, and a whole trace.
// Targets (issue 3): p99 of a 512-node decision < 1 ms; production decision
// < 20 ms for los, < 100 ms for the merit variants; SDSC-SP2 at load 0.9 with
// los < 3 s. Commands and figures: docs/benchmarks.md.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <random>
#include <unordered_map>
#include <vector>

#include "policies/los.hpp"
#include "policies/los_dp.hpp"
#include "policy/registry.hpp"
#include "sim/simulator.hpp"
#include "workload/swf.hpp"
#include "workload/transform.hpp"

namespace los {
namespace {

// Sizes as in SP2 logs: mostly small, many powers of two, some large.
int draw_size(std::mt19937_64& rng, int max_size) {
  const double u = std::uniform_real_distribution<double>(0, std::log2(static_cast<double>(max_size)))(rng);
  const int s = static_cast<int>(std::exp2(u));
  const int size = std::bernoulli_distribution(0.5)(rng) ? 1 << static_cast<int>(std::log2(std::max(s, 1))) : s;
  return std::clamp(size, 1, max_size);
}

LosProblem random_problem(std::mt19937_64& rng, int candidates, int free_now, int extra, bool merit) {
  LosProblem p;
  p.free_now = free_now;
  p.extra = extra;
  for (int i = 0; i < candidates; ++i) {
    LosCandidate c;
    c.size = draw_size(rng, free_now);
    c.ssize = std::bernoulli_distribution(0.5)(rng) ? 0 : c.size;
    c.merit = merit ? std::uniform_int_distribution<std::int64_t>(1000000, 100000000)(rng) : 0;
    p.jobs.push_back(c);
  }
  return p;
}

// Per-decision latencies: Google Benchmark reports the mean; the target is a
// tail, so every call is timed and p50 / p99 / max become counters.
template <typename Solve>
void run_timed(benchmark::State& state, const std::vector<LosProblem>& pool, Solve solve) {
  std::vector<double> us;
  us.reserve(state.max_iterations);
  std::size_t next = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    LosSelection s = solve(pool[next]);
    benchmark::DoNotOptimize(s);
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    next = (next + 1) % pool.size();
  }
  std::sort(us.begin(), us.end());
  auto q = [&](double f) {
    return us[std::min(us.size() - 1, static_cast<std::size_t>(f * static_cast<double>(us.size())))];
  };
  state.counters["p50_us"] = q(0.50);
  state.counters["p99_us"] = q(0.99);
  state.counters["max_us"] = us.back();
}

// 512 units, C = 50: n and extra drawn in [1, 512], half the instances at
// the worst case n = extra = 512.
std::vector<LosProblem> pool_512(bool merit) {
  std::mt19937_64 rng(512);
  std::vector<LosProblem> pool;
  for (int i = 0; i < 500; ++i) {
    const bool worst = i % 2 == 0;
    const int n = worst ? 512 : std::uniform_int_distribution<int>(1, 512)(rng);
    const int extra = worst ? 512 : std::uniform_int_distribution<int>(0, 512)(rng);
    pool.push_back(random_problem(rng, 50, n, extra, merit));
  }
  return pool;
}

void BM_Los512_Fast(benchmark::State& state) {
  const auto pool = pool_512(state.range(0) != 0);
  run_timed(state, pool, [](const LosProblem& p) { return los_select(p); });
}
BENCHMARK(BM_Los512_Fast)->Arg(0)->Arg(1)->ArgName("merit")->Iterations(20000);

void BM_Los512_ThesisTable(benchmark::State& state) {
  const auto pool = pool_512(state.range(0) != 0);
  run_timed(state, pool, [](const LosProblem& p) { return los_select_table(p); });
}
BENCHMARK(BM_Los512_ThesisTable)->Arg(0)->Arg(1)->ArgName("merit")->Iterations(200)->Unit(benchmark::kMillisecond);

// A whole policy step on a 512-unit machine with C = 50: random snapshots
// (20-120 running jobs, 60-300 waiting), each step rebuilding the profile
// from the snapshot (resync), so the time covers shadow, extra, WQ' and the
// selection.
std::vector<Snapshot> snapshots_512() {
  std::mt19937_64 rng(5120);
  std::vector<Snapshot> pool;
  for (int n = 0; n < 200; ++n) {
    Snapshot s;
    s.now = 500000;
    s.total_units = 512;
    int used = 0;
    const int running = std::uniform_int_distribution<int>(20, 120)(rng);
    for (int i = 0; i < running && used < 512; ++i) {
      RunningJob r;
      r.job.id = 100000 + i;
      r.job.size = std::min(draw_size(rng, 64), 512 - used);
      r.job.estimate = std::uniform_int_distribution<Time>(600, 86400)(rng);
      r.start = s.now - std::uniform_int_distribution<Time>(0, r.job.estimate - 1)(rng);
      used += r.job.size;
      s.running.push_back(r);
    }
    s.free_units = 512 - used;
    const int waiting = std::uniform_int_distribution<int>(60, 300)(rng);
    for (int i = 0; i < waiting; ++i) {
      Job j;
      j.id = 1 + i;
      j.size = i == 0 ? std::min(512, s.free_units + 1 + draw_size(rng, 256)) : draw_size(rng, 512);
      j.estimate = std::uniform_int_distribution<Time>(60, 172800)(rng);
      j.submit = s.now - std::uniform_int_distribution<Time>(0, 86400)(rng);
      s.queue.push_back(j);
    }
    s.resync = true;
    pool.push_back(std::move(s));
  }
  return pool;
}

void BM_Los512_Step(benchmark::State& state, const char* spec) {
  const std::vector<Snapshot> pool = snapshots_512();
  PolicyPtr p = make_policy(spec);
  std::vector<double> us;
  us.reserve(state.max_iterations);
  std::size_t next = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    StepResult r = p->step(pool[next]);
    benchmark::DoNotOptimize(r);
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    next = (next + 1) % pool.size();
  }
  std::sort(us.begin(), us.end());
  state.counters["p50_us"] = us[us.size() / 2];
  state.counters["p99_us"] = us[std::min(us.size() - 1, us.size() * 99 / 100)];
  state.counters["max_us"] = us.back();
}
BENCHMARK_CAPTURE(BM_Los512_Step, los, "los:design=thesis")->Iterations(20000);
BENCHMARK_CAPTURE(BM_Los512_Step, los_maxsd, "los-maxsd:design=thesis")->Iterations(20000);
// The hybrid design (the default since issue 14).
BENCHMARK_CAPTURE(BM_Los512_Step, hybrid, "los")->Iterations(20000);
BENCHMARK_CAPTURE(BM_Los512_Step, hybrid_maxjobs, "los-maxjobs")->Iterations(20000);

// Production scale, solver only.
std::vector<LosProblem> pool_production(bool merit) {
  std::mt19937_64 rng(10000);
  std::vector<LosProblem> pool;
  for (int i = 0; i < 8; ++i) pool.push_back(random_problem(rng, 1000, 10000, 10000, merit));
  return pool;
}

void BM_LosProduction_Solver(benchmark::State& state) {
  const auto pool = pool_production(state.range(0) != 0);
  run_timed(state, pool, [](const LosProblem& p) { return los_select(p); });
}
BENCHMARK(BM_LosProduction_Solver)->Arg(0)->Arg(1)->ArgName("merit")->Iterations(40)->Unit(benchmark::kMillisecond);

// Production scale, a whole policy step: 30,000 units; 50 running jobs of
// 100 units end within 4 hours and one of 15,000 units ends at 4 hours, so
// 10,000 are free now; the head (20,000 units) waits for the big one, and at
// that shadow time 30,000 - 20,000 = 10,000 units are extra. 1,000 more jobs
// are considered (lookahead=1000). The 10,000-waiting-jobs case has the same
// machine with 10,000 jobs behind the head.
Snapshot production_snapshot(int waiting = 1000) {
  std::mt19937_64 rng(20500);
  Snapshot s;
  s.now = 1000000;
  s.total_units = 30000;
  s.free_units = 10000;
  auto running = [&](JobId id, int size, Time remaining) {
    RunningJob r;
    r.job.id = id;
    r.job.size = size;
    r.job.estimate = remaining + 3600;
    r.start = s.now - 3600;
    s.running.push_back(r);
  };
  for (int i = 0; i < 50; ++i) running(1000000 + i, 100, std::uniform_int_distribution<Time>(600, 14000)(rng));
  running(2000000, 15000, 14400);
  Job head;
  head.id = 1;
  head.size = 20000;
  head.estimate = 3600;
  head.submit = s.now - 100;
  s.queue.push_back(head);
  for (int i = 0; i < waiting; ++i) {
    Job j;
    j.id = 2 + i;
    j.size = draw_size(rng, 10000);
    j.estimate = std::uniform_int_distribution<Time>(60, 172800)(rng);
    j.submit = s.now - std::uniform_int_distribution<Time>(0, 86400)(rng);
    s.queue.push_back(j);
  }
  s.resync = true;  // every step rebuilds the profile from the snapshot
  return s;
}

// exact_estimates: before the timed steps the policy sees 200 jobs end exactly
// at their estimates, so the hybrid's rules=long-inexact counts the estimates
// as exact and its long-queue step is the thesis's selection with rest=easy.
void BM_LosProduction_Step(benchmark::State& state, const char* spec, int waiting = 1000,
                           bool exact_estimates = false) {
  const Snapshot s = production_snapshot(waiting);
  PolicyPtr p = make_policy(spec);
  if (exact_estimates) {
    Snapshot ended = s;
    for (JobId i = 0; i < 200; ++i) {
      ended.events.push_back({SnapshotEvent::Kind::Ended, 3000000 + i, 1, s.now - 100, 100});
    }
    p->step(ended);
  }
  std::size_t started = 0;
  for (auto _ : state) {
    StepResult r = p->step(s);
    started = r.decisions.size();
    benchmark::DoNotOptimize(r);
  }
  std::unordered_map<JobId, int> size_of;
  for (const Job& j : s.queue) size_of[j.id] = j.size;
  std::int64_t used = 0;
  for (const Decision& d : p->step(s).decisions) used += size_of[d.job];
  const std::vector<PlannedStart> res = p->reservations();
  state.counters["started"] = static_cast<double>(started);
  state.counters["units_started"] = static_cast<double>(used);
  state.counters["shadow_in_s"] = res.empty() ? -1.0 : static_cast<double>(res[0].start - s.now);
}
BENCHMARK_CAPTURE(BM_LosProduction_Step, los, "los:design=thesis:lookahead=1000")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LosProduction_Step, los_maxjobs, "los-maxjobs:design=thesis:lookahead=1000")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LosProduction_Step, los_maxsd, "los-maxsd:design=thesis:lookahead=1000")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LosProduction_Step, los_selected_first,
                  "los:design=thesis:lookahead=1000:traceback=selected-first")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LosProduction_Step, hybrid, "los:lookahead=1000")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LosProduction_Step, hybrid_maxjobs, "los-maxjobs:lookahead=1000")->Unit(benchmark::kMillisecond);
// 10,000 waiting jobs: the window (C = 50 or 1,000), then the rest of the
// queue walked in EASY's order; EASY itself for comparison.
BENCHMARK_CAPTURE(BM_LosProduction_Step, q10k_easy, "easy", 10000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LosProduction_Step, q10k_los, "los:design=thesis", 10000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LosProduction_Step, q10k_los_rest_easy, "los:design=thesis:rest=easy", 10000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LosProduction_Step, q10k_los_gate_fit, "los:design=thesis:gate=fit:rest=easy", 10000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LosProduction_Step, q10k_los_maxsd_rest_easy, "los-maxsd:design=thesis:rest=easy", 10000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LosProduction_Step, q10k_los_c1000, "los:design=thesis:lookahead=1000:rest=easy", 10000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LosProduction_Step, q10k_los_maxsd_c1000, "los-maxsd:design=thesis:lookahead=1000:rest=easy",
                  10000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LosProduction_Step, q10k_los_gate_fit_select_queue,
                  "los:design=thesis:gate=fit:rest=easy:select=queue", 10000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LosProduction_Step, q10k_los_gate_fit_select_long_queue,
                  "los:design=thesis:gate=fit:rest=easy:select=long-queue", 10000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LosProduction_Step, q10k_los_maxsd_ties_late,
                  "los-maxsd:design=thesis:gate=fit:keep=ties:protect=late:rest=easy", 10000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LosProduction_Step, q10k_los_ties_c1000, "los:design=thesis:keep=ties:lookahead=1000:rest=easy",
                  10000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LosProduction_Step, q10k_los_maxsd_ties_late_c1000,
                  "los-maxsd:design=thesis:keep=ties:lookahead=1000:protect=late:rest=easy", 10000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LosProduction_Step, q10k_los_select_queue_c1000,
                  "los:design=thesis:lookahead=1000:rest=easy:select=queue", 10000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LosProduction_Step, q10k_hybrid, "los", 10000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LosProduction_Step, q10k_hybrid_c1000, "los:lookahead=1000", 10000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LosProduction_Step, q10k_hybrid_maxjobs_c1000, "los-maxjobs:lookahead=1000", 10000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LosProduction_Step, q10k_hybrid_exact, "los", 10000, true)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LosProduction_Step, q10k_hybrid_maxjobs_exact, "los-maxjobs", 10000, true)
    ->Unit(benchmark::kMillisecond);

// The whole SDSC-SP2 trace at offered load 0.9 (skipped without the trace).
void BM_SdscSp2Load09(benchmark::State& state, const char* spec) {
  const std::filesystem::path path = std::filesystem::path(LOS_SHARED_DIR) / "traces" / "SDSC-SP2-1998-4.2-cln.swf.gz";
  if (!std::filesystem::exists(path)) {
    state.SkipWithError("SDSC-SP2 trace absent");
    return;
  }
  Workload w = read_swf(path.string());
  scale_to_load(w, 0.9, true);
  for (auto _ : state) {
    PolicyPtr p = make_policy(spec);
    SimResult r = simulate(w, *p);
    benchmark::DoNotOptimize(r);
    state.counters["jobs"] = static_cast<double>(r.jobs.size());
    state.counters["steps"] = static_cast<double>(r.steps);
  }
}
BENCHMARK_CAPTURE(BM_SdscSp2Load09, easy, "easy")->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_CAPTURE(BM_SdscSp2Load09, los, "los:design=thesis")->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_CAPTURE(BM_SdscSp2Load09, los_maxsd, "los-maxsd:design=thesis")->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_CAPTURE(BM_SdscSp2Load09, hybrid, "los")->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
}  // namespace los

BENCHMARK_MAIN();
