// Speed of the gang-scheduling family (issue 5 target: a 10,000-job gang
// simulation at MPL 5 in under 10 s).
//   lublin: the results stand-in of docs/results/gang-migration.md — the
//     shared lublin_256 trace (10,000 generated jobs, sizes 1..256) on 320
//     nodes, run times x5, arrivals rescaled to offered load 0.55; each case
//     multiplies run times by 1.0 (light) or 1.8 (saturated, the slowest).
//     Needs ../shared/traces; skipped when absent.
//   generated: 10,000 jobs made here by a fixed recipe, so the figure exists
//     without the shared traces: Poisson arrivals, sizes 1..256 with
//     power-of-two emphasis, log-uniform run times 10 s..40 h, at offered
//     load 0.9 on 320 nodes. Deterministic.
#include <benchmark/benchmark.h>

#include <cmath>
#include <filesystem>
#include <memory>
#include <random>
#include <string>

#include "bench_support.hpp"
#include "policy/registry.hpp"
#include "sim/simulator.hpp"
#include "workload/swf.hpp"
#include "workload/transform.hpp"

namespace {

los::Workload lublin_stand_in(double runtime_factor) {
  los::SwfReadOptions o;
  o.units = 320;
  los::Workload w = los::read_swf((std::filesystem::path(LOS_SHARED_DIR) / "traces/lublin_256.swf.gz").string(), o);
  // As los-sim --runtime-scale 5F --load 0.55F: arrivals independent of F.
  los::scale_runtimes(w, 5 * runtime_factor);
  los::scale_to_load(w, 0.55 * runtime_factor, true);
  return w;
}

los::Workload generated_workload() {
  los::Workload w;
  w.source = "generated (10,000 jobs, 320 nodes)";
  w.units = 320;
  std::mt19937_64 rng(19990401);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  los::Time t = 0;
  for (int i = 1; i <= 10000; ++i) {
    los::Job j;
    j.id = i;
    j.user = 1 + static_cast<int>(rng() % 100);
    j.size = u(rng) < 0.5 ? 1 << static_cast<int>(rng() % 9) : 1 + static_cast<int>(std::pow(256.0, u(rng))) % 256;
    j.runtime = static_cast<los::Time>(10.0 * std::pow(40.0 * 3600 / 10.0, u(rng)));
    j.estimate = j.runtime + 1;
    j.submit = t;
    w.jobs.push_back(j);
    t += static_cast<los::Time>(-std::log(1.0 - u(rng)) * 300.0);
  }
  los::scale_to_load(w, 0.9, true);
  return w;
}

void register_all() {
  const char* policies[] = {"gang:mpl=5", "gang:mpl=5:cs=2", "bgs:mpl=5", "mgs:mpl=5:c=10:q=64", "mbgs:mpl=5:c=0:q=-1"};
  if (std::filesystem::exists(std::filesystem::path(LOS_SHARED_DIR) / "traces/lublin_256.swf.gz")) {
    for (double f : {1.0, 1.8}) {
      auto w = std::make_shared<los::Workload>(lublin_stand_in(f));
      for (const char* p : policies) {
        const std::string name = std::string("lublin-x") + (f == 1.0 ? "1.0/" : "1.8/") + p;
        benchmark::RegisterBenchmark(name.c_str(), [w, p](benchmark::State& s) {
          los::bench::simulate_policy(s, *w, p);
        })->Unit(benchmark::kMillisecond);
      }
    }
  }
  auto g = std::make_shared<los::Workload>(generated_workload());
  for (const char* p : policies) {
    benchmark::RegisterBenchmark((std::string("generated/") + p).c_str(), [g, p](benchmark::State& s) {
      los::bench::simulate_policy(s, *g, p);
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
