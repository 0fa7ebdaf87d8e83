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
