// What the simulation benchmarks share: one whole simulation of a workload
// under a policy per iteration, reported with the same counters.
#pragma once

#include <benchmark/benchmark.h>

#include <fstream>
#include <string>

#include "policy/registry.hpp"
#include "sim/simulator.hpp"
#include "workload/swf.hpp"

namespace los::bench {

// Peak resident memory of this process so far (VmHWM), in MB.
inline double peak_rss_mb() {
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

// Counters: jobs, scheduling steps of the last run, peak_rss_MB.
inline void simulate_policy(benchmark::State& state, const Workload& w, const std::string& policy) {
  double steps = 0;
  for (auto _ : state) {
    PolicyPtr p = make_policy(policy);
    const SimResult r = simulate(w, *p);
    steps = static_cast<double>(r.steps);
    benchmark::DoNotOptimize(r.jobs.data());
  }
  state.counters["jobs"] = static_cast<double>(w.jobs.size());
  state.counters["steps"] = steps;
  state.counters["peak_rss_MB"] = peak_rss_mb();
}

}  // namespace los::bench
