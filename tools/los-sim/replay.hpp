// los-sim replay: a workload segment submitted to a live Slurm cluster with
// time compressed, the outcome read back from Slurm, and both set beside
// los-sim's prediction for exactly the jobs as submitted.
#pragma once

#include <string>
#include <vector>

#include "sim/simulator.hpp"
#include "workload/swf.hpp"

namespace los::replay {

// How a job of the (compressed) workload is asked of Slurm. Slurm's time
// limits are whole minutes, so the limit is the estimate compressed and
// rounded up to a minute, at least one; the estimate the prediction uses is
// that limit expanded back to workload seconds.
struct SlurmRequest {
  int nodes = 0;
  long long limit_minutes = 0;
  Time estimate = 0;         // limit_minutes x 60 x compress, in workload seconds
  double sleep_seconds = 0;  // the payload: the run time compressed
};
SlurmRequest slurm_request(const Job& job, double compress);

// Moves submit times (from the first job's) and run times to multiples of
// `compress` workload seconds, i.e. whole real seconds, rounding to the
// nearest (half away from zero). Slurm records times in whole seconds: after
// this, what the replay submits is exactly what Slurm's records can show and
// what the prediction is given, so no rounding stands between the two.
void round_to_whole_seconds(std::vector<Job>& jobs, double compress);

// What Slurm recorded for one job, in epoch seconds.
struct LiveRecord {
  std::string state;  // squeue's %T: COMPLETED, TIMEOUT, ...
  Time submit = -1, start = -1, end = -1;
};

// The live outcome as a schedule: `jobs[i]` (already carrying the request's
// estimate) with records[i]; times become workload seconds from the first
// submission (x compress). A job ended by its time limit counts as killed.
// Fills the loss of capacity and the mean queue length over the instants
// when jobs were submitted, started or ended. Throws std::runtime_error for
// a job that never started.
SimResult live_result(const std::vector<Job>& jobs, const std::vector<LiveRecord>& records, int units, double compress,
                      const std::string& label);

}  // namespace los::replay

int run_replay(int argc, char** argv);
