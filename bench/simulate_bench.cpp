// Whole-trace simulation speed of the baseline policies.
//   SDSC-SP2: the real trace (59,715 jobs, 128 processors), if ../shared is present.
//   CTC-scale: a generated workload of 80,000 jobs on 512 processors (the size
//   of the CTC-SP2 trace), made here by a fixed recipe: Poisson arrivals at an
//   offered load of 0.85, sizes 1..512 with power-of-two emphasis, log-uniform
//   run times 30 s..36 h, estimates 1-5x the run time. Deterministic.
// Each benchmark reports the peak resident memory of the process so far.
#include <benchmark/benchmark.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "policy/registry.hpp"
#include "sim/simulator.hpp"
#include "workload/swf.hpp"
#include "workload/transform.hpp"

namespace {

double peak_rss_mb() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmHWM:") {
      double kb;
      status >> kb;
      return kb / 1024.0;
    }
  }
  return 0;
}

los::Workload ctc_scale_workload() {
  los::Workload w;
  w.source = "generated CTC-scale (80,000 jobs, 512 processors)";
  w.units = 512;
  std::mt19937_64 rng(20031001);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  los::Time t = 0;
  for (int i = 1; i <= 80000; ++i) {
    los::Job j;
    j.id = i;
    j.user = 1 + static_cast<int>(rng() % 300);
    const double r = u(rng);
    if (r < 0.5) {
      j.size = 1 << static_cast<int>(rng() % 10);  // 1..512, powers of two
    } else {
      j.size = 1 + static_cast<int>(std::pow(512.0, u(rng))) % 512;
    }
    j.runtime = static_cast<los::Time>(30.0 * std::pow(36.0 * 3600 / 30.0, u(rng)));
    j.estimate = static_cast<los::Time>(static_cast<double>(j.runtime) * (1.0 + 4.0 * u(rng))) + 1;
    j.submit = t;
    w.jobs.push_back(j);
    t += static_cast<los::Time>(-std::log(1.0 - u(rng)) * 600.0);
  }
  los::scale_to_load(w, 0.85, true);
  return w;
}

void simulate_policy(benchmark::State& state, const los::Workload& w, const std::string& policy) {
  for (auto _ : state) {
    los::PolicyPtr p = los::make_policy(policy);
    const los::SimResult r = los::simulate(w, *p);
    benchmark::DoNotOptimize(r.jobs.data());
  }
  state.counters["jobs"] = static_cast<double>(w.jobs.size());
  state.counters["peak_rss_MB"] = peak_rss_mb();
}

void register_all() {
  const std::filesystem::path sdsc = std::filesystem::path(LOS_SHARED_DIR) / "traces/SDSC-SP2-1998-4.2-cln.swf.gz";
  if (std::filesystem::exists(sdsc)) {
    auto w = std::make_shared<los::Workload>(los::read_swf(sdsc.string()));
    for (const char* p : {"fcfs", "easy", "conservative", "aggressive"}) {
      benchmark::RegisterBenchmark((std::string("SDSC-SP2/") + p).c_str(),
                                   [w, p](benchmark::State& s) { simulate_policy(s, *w, p); })
          ->Unit(benchmark::kMillisecond);
    }
  }
  auto ctc = std::make_shared<los::Workload>(ctc_scale_workload());
  for (const char* p : {"easy", "conservative"}) {
    benchmark::RegisterBenchmark((std::string("CTC-scale/") + p).c_str(),
                                 [ctc, p](benchmark::State& s) { simulate_policy(s, *ctc, p); })
        ->Unit(benchmark::kMillisecond);
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
