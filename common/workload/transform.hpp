// Reshaping a workload before simulation: a window of jobs, the offered load,
// the runtime scale. Each is documented in docs/simulator.md.
#pragma once

#include <cstddef>
#include <cstdint>

#include "workload/swf.hpp"

namespace los {

// The work a job asks of the machine: its run time, cut at the estimate when
// jobs are killed there.
Time effective_runtime(const Job& job, bool kill_at_estimate);

// Offered load: sum(size x effective run time) / (units x (last submit - first submit)).
// 0 for fewer than two distinct submit times.
double offered_load(const Workload& w, bool kill_at_estimate);

// Keeps jobs [skip, skip + count) of the submit-ordered list (count 0: all).
void cut_window(Workload& w, std::size_t skip, std::size_t count);

// Multiplies every inter-arrival time by offered_load / target (the LOS
// thesis's method), so the offered load becomes `target`. Returns the factor.
// Throws WorkloadError if the load is undefined (one submit time).
double scale_to_load(Workload& w, double target, bool kill_at_estimate);

// Multiplies run times and estimates by `factor` (rounded, estimates >= 1 s),
// as the gang-scheduling paper varies its load.
void scale_runtimes(Workload& w, double factor);

// Moves the workload to a machine of `units` units: every size becomes
// size x units / w.units rounded to the nearest integer (halves up), at least
// 1 and at most `units`; w.units becomes `units`. Used to replay a trace on a
// smaller live cluster (los-sim replay). Throws WorkloadError if either
// machine size is not positive.
void scale_sizes(Workload& w, int units);

// Adds to every submit time an integer drawn uniformly from [0, max_seconds)
// (a fixed sampler over std::mt19937_64 seeded with `seed`, in the workload's
// order), then sorts the jobs by submit time, stably. The same workload,
// max_seconds and seed give the same result on every platform. A replicate of
// a workload for comparing policies (docs/simulator.md, "Replicates"): on a
// long queue the schedule is chaotic, so one run tells a policy's systematic
// effect apart from the luck of its trajectory only across such replicates.
// max_seconds <= 0 leaves the workload as it is.
void jitter_submits(Workload& w, Time max_seconds, std::uint64_t seed);

}  // namespace los
