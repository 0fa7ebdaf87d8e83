// Whole-trace simulation speed of the baseline policies.
//   SDSC-SP2: the real trace (59,715 jobs, 128 processors), if ../shared is present.
//   CTC-scale: 80,000 jobs on 512 processors (the size of the CTC-SP2 trace)
//   from the Lublin-Feitelson model (seed 1), rescaled to offered load 0.85.
// Each benchmark reports the peak resident memory of the process so far.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>

#include "bench_support.hpp"
#include "policy/registry.hpp"
#include "sim/simulator.hpp"
#include "workload/models.hpp"
#include "workload/swf.hpp"
#include "workload/transform.hpp"

namespace {

los::Workload ctc_scale_workload() {
  // The Lublin-Feitelson model at the CTC-SP2 trace's size, rescaled to a high
  // offered load so the queue is long and the policies work hard.
  los::Workload w = los::model_workload("lublin:jobs=80000:nodes=512:seed=1");
  los::scale_to_load(w, 0.85, true);
  return w;
}

void register_all() {
  const std::filesystem::path sdsc = std::filesystem::path(LOS_SHARED_DIR) / "traces/SDSC-SP2-1998-4.2-cln.swf.gz";
  if (std::filesystem::exists(sdsc)) {
    auto w = std::make_shared<los::Workload>(los::read_swf(sdsc.string()));
    for (const char* p : {"fcfs", "easy", "conservative", "aggressive"}) {
      benchmark::RegisterBenchmark((std::string("SDSC-SP2/") + p).c_str(), [w, p](benchmark::State& s) {
        los::bench::simulate_policy(s, *w, p);
      })->Unit(benchmark::kMillisecond);
    }
  }
  auto ctc = std::make_shared<los::Workload>(ctc_scale_workload());
  for (const char* p : {"easy", "conservative"}) {
    benchmark::RegisterBenchmark((std::string("CTC-scale/") + p).c_str(), [ctc, p](benchmark::State& s) {
      los::bench::simulate_policy(s, *ctc, p);
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
