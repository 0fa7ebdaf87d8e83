// Speed of pect and pect-search (issue 16).
//   decision/N/BUDGET: one pect-search step that forms and optimizes a full
//     LONG group (30 jobs, the worst case: level 1, three sub-groups of 10 at
//     level 2), with N long jobs waiting on an empty 128-unit machine; each
//     iteration draws a new queue (seeded by the iteration), and the counters
//     give the latency percentiles over the iterations. BUDGET is the node
//     budget (placements per optimization).
//   run/POLICY: a whole simulation of the thesis's first workload
//     (Lublin-Feitelson, 10,000 jobs, 128 units, seed 71).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "policies/pect_search.hpp"
#include "policy/registry.hpp"
#include "workload/models.hpp"

namespace {

los::Snapshot long_queue(int waiting, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  los::Snapshot s;
  s.now = 100000;
  s.total_units = 128;
  s.free_units = 128;
  for (int i = 1; i <= waiting; ++i) {
    los::Job j;
    j.id = i;
    j.submit = s.now - static_cast<los::Time>(rng() % 50000);
    j.size = 1 + static_cast<int>(rng() % 64);
    j.runtime = 10801 + static_cast<los::Time>(rng() % 40000);
    j.estimate = j.runtime;
    s.queue.push_back(j);
    s.events.push_back({los::SnapshotEvent::Kind::Arrived, j.id, j.size, 0, j.estimate});
  }
  std::stable_sort(s.queue.begin(), s.queue.end(),
                   [](const los::Job& a, const los::Job& b) { return a.submit < b.submit; });
  return s;
}

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
}

void decision(benchmark::State& state, int waiting, long long budget) {
  std::vector<double> ms;
  std::uint64_t seed = 1;
  double nodes = 0;
  for (auto _ : state) {
    state.PauseTiming();
    const los::Snapshot s = long_queue(waiting, seed++);
    los::PolicyPtr p = los::make_policy("pect-search:nodes=" + std::to_string(budget));
    state.ResumeTiming();
    const auto t0 = std::chrono::steady_clock::now();
    const los::StepResult r = p->step(s);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    benchmark::DoNotOptimize(r.decisions.data());
    state.PauseTiming();
    nodes += static_cast<double>(dynamic_cast<const los::PectSearchPolicy&>(*p).stats().nodes);
    p.reset();
    state.ResumeTiming();
  }
  state.counters["p50_ms"] = percentile(ms, 0.5);
  state.counters["p90_ms"] = percentile(ms, 0.9);
  state.counters["p99_ms"] = percentile(ms, 0.99);
  state.counters["max_ms"] = percentile(ms, 1.0);
  state.counters["nodes"] = ms.empty() ? 0 : nodes / static_cast<double>(ms.size());
}

void register_all() {
  for (int waiting : {100, 1000}) {
    for (long long budget : {20000LL, 200000LL, 2000000LL}) {
      const std::string name = "decision/" + std::to_string(waiting) + "/" + std::to_string(budget);
      benchmark::RegisterBenchmark(name.c_str(),
                                   [waiting, budget](benchmark::State& s) { decision(s, waiting, budget); })
          ->Unit(benchmark::kMillisecond)
          ->Iterations(30);
    }
  }
  auto w = std::make_shared<los::Workload>(
      los::generate_model(los::parse_model_spec("lublin:jobs=10000:nodes=128:seed=71")).workload);
  for (const char* p : {"easy", "pect", "pect-search", "pect-search:commit=0", "pect-search:nodes=200000"}) {
    benchmark::RegisterBenchmark((std::string("run/") + p).c_str(), [w, p](benchmark::State& s) {
      los::bench::simulate_policy(s, *w, p);
    })->Unit(benchmark::kMillisecond);
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
