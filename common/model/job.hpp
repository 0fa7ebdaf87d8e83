// The scheduling model: jobs as the policies see them.
//
// Time is integral seconds (SWF and Slurm both count whole seconds), so every
// comparison in the planner and the policies is exact and a replay is
// bit-for-bit reproducible.
#pragma once

#include <cstdint>
#include <limits>

namespace los {

using Time = std::int64_t;
using JobId = std::int64_t;

// "Never": the end of a profile, the start of a job that cannot fit.
inline constexpr Time kTimeInfinity = std::numeric_limits<Time>::max() / 4;

// The largest time or duration accepted from outside (SWF traces, snapshots
// on the wire): 2^50 s, about 35.7 million years. Input beyond it is refused
// at the edge, so a time plus a duration, or a sum of up to 2^10 of them,
// stays below kTimeInfinity (2^61) and never overflows. The plugin's C
// decoder has the same bound as LOS_TIME_MAX (protocol/los_protocol.h).
inline constexpr Time kTimeMax = Time{1} << 50;

// A job as submitted. `size` counts allocation units: processors when a trace
// is simulated, whole nodes on a live Slurm partition.
struct Job {
  JobId id = 0;
  int user = -1;
  int group = -1;
  int partition = -1;
  Time submit = 0;
  int size = 0;
  Time estimate = 0;    // the user's runtime estimate (the wall-clock limit), > 0
  Time runtime = 0;     // actual run time where known (simulation); >= 0
  double priority = 0;  // live systems: the resource manager's priority
  // May be checkpointed and restarted on other units (gang migration). Every
  // simulated job is; on a live partition only a job that opted in
  // (docs/gang-live.md): the migration policies never move another started job.
  bool migratable = true;
  // Seconds after submission at which the user withdraws the job (a trace
  // record cancelled before it ran, read with los-sim --cancelled=withdraw):
  // it leaves the queue then, or ends then if it was started. -1: never.
  // Simulation only: no policy may read it (the cancel is exogenous).
  Time cancel_lag = -1;
};

}  // namespace los
