// What one SA decision costs: the profile-based choice (availability list
// from the policy's plan, then a first fit per shape) against the generic SA
// (one simulation of a copy of the scheduler per shape), on conservative
// backfilling states of a 500-unit machine with Q waiting jobs, v = 8 shapes.
// The states are random but fixed (seeded), built by stepping the policy once.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "planner/profile.hpp"
#include "policies/backfilling.hpp"
#include "sa/generic_sa.hpp"
#include "sa/shape_selection.hpp"

namespace {

struct State {
  los::Snapshot snapshot;
  los::BackfillingPolicy policy{los::BackfillingPolicy::kUnlimited, "conservative"};
  los::Job candidate;
  std::vector<los::Shape> shapes;
};

// 500 units, 60 running jobs, `queued` waiting jobs (sizes 1..128,
// requested times 10 min..20 h); the policy has stepped once on it.
State make_state(int queued) {
  State s;
  std::mt19937_64 rng(20010601 + queued);
  los::Snapshot& snap = s.snapshot;
  snap.now = 100000;
  snap.total_units = 500;
  int used = 0;
  los::JobId id = 1;
  for (int i = 0; i < 60; ++i) {
    const int size = 1 + static_cast<int>(rng() % 16);
    if (used + size > 500) break;
    los::RunningJob r;
    r.job.id = id++;
    r.job.size = size;
    r.job.estimate = 600 + static_cast<los::Time>(rng() % 72000);
    r.start = snap.now - static_cast<los::Time>(rng() % 600);
    used += size;
    snap.running.push_back(r);
  }
  snap.free_units = 500 - used;
  for (int i = 0; i < queued; ++i) {
    los::Job j;
    j.id = id++;
    j.size = 1 + static_cast<int>(rng() % 128);
    j.estimate = 600 + static_cast<los::Time>(rng() % 72000);
    j.submit = snap.now - 1;
    snap.queue.push_back(j);
  }
  snap.resync = true;
  const los::StepResult first = s.policy.step(snap);
  // Carry out its starts, as the simulator would, and leave the Started events.
  snap.resync = false;
  for (const los::Decision& d : first.decisions) {
    for (auto it = snap.queue.begin(); it != snap.queue.end(); ++it) {
      if (it->id != d.job) continue;
      los::RunningJob r;
      r.job = *it;
      r.start = snap.now;
      snap.free_units -= it->size;
      snap.events.push_back({los::SnapshotEvent::Kind::Started, it->id, it->size, snap.now, it->estimate});
      snap.running.push_back(r);
      snap.queue.erase(it);
      break;
    }
  }
  s.candidate.id = id;
  s.candidate.submit = snap.now;
  for (int k = 0; k < 8; ++k) s.shapes.push_back({1 << k, 3600 * 64 / (1 << k)});
  return s;
}

void BM_ProfileSa(benchmark::State& st) {
  const State s = make_state(static_cast<int>(st.range(0)));
  for (auto _ : st) {
    const auto av = los::availability_list(s.snapshot, s.policy);
    benchmark::DoNotOptimize(los::choose_shape(av, s.shapes, s.snapshot.now));
  }
  st.counters["slots"] = static_cast<double>(los::availability_list(s.snapshot, s.policy).size());
}
BENCHMARK(BM_ProfileSa)->Arg(10)->Arg(100)->Arg(1000)->Unit(benchmark::kMicrosecond);

void BM_GenericSa(benchmark::State& st) {
  const State s = make_state(static_cast<int>(st.range(0)));
  for (auto _ : st) {
    benchmark::DoNotOptimize(los::choose_shape_by_simulation(s.policy, s.snapshot, s.candidate, s.shapes));
  }
}
BENCHMARK(BM_GenericSa)->Arg(10)->Arg(100)->Arg(1000)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
