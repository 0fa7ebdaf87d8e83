// Workload generators: jobs drawn per second, and writing the SWF text.
#include <benchmark/benchmark.h>

#include <sstream>

#include "workload/cirne.hpp"
#include "workload/lublin.hpp"
#include "workload/models.hpp"

namespace {

void BM_Lublin(benchmark::State& state) {
  los::LublinOptions o;
  o.jobs = static_cast<std::size_t>(state.range(0));
  for (auto _ : state) {
    ++o.seed;
    benchmark::DoNotOptimize(los::generate_lublin(o));
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Lublin)->Arg(10000)->Unit(benchmark::kMillisecond);

void BM_Cirne(benchmark::State& state) {
  los::CirneOptions o;
  o.jobs = static_cast<std::size_t>(state.range(0));
  for (auto _ : state) {
    ++o.seed;
    benchmark::DoNotOptimize(los::generate_cirne(o));
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Cirne)->Arg(10000)->Unit(benchmark::kMillisecond);

void BM_CirneMoldable(benchmark::State& state) {
  los::CirneOptions o;
  o.jobs = static_cast<std::size_t>(state.range(0));
  for (auto _ : state) {
    ++o.seed;
    benchmark::DoNotOptimize(los::generate_cirne_moldable(o));
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_CirneMoldable)->Arg(10000)->Unit(benchmark::kMillisecond);

// Generation plus the SWF text, as los-sim generate does it.
void BM_GenerateSwf(benchmark::State& state) {
  const los::ModelSpec spec = los::ModelSpec::parse("cirne-moldable:jobs=10000");
  for (auto _ : state) {
    std::ostringstream out;
    los::write_generated_swf(out, los::generate_model(spec));
    benchmark::DoNotOptimize(out.str().size());
  }
  state.SetItemsProcessed(state.iterations() * 10000);
}
BENCHMARK(BM_GenerateSwf)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
