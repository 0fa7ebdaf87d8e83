// Predicted start times of waiting jobs under a policy ("squeue --start", but
// from the policy that actually schedules the partition).
//
// A fresh instance of the policy (with the live policy's history, when losd
// forecasts: Policy::copy_history_to) is stepped forward from the snapshot,
// in a small event loop of its own: running jobs end at their limit, every started
// job runs for its whole limit, nothing new arrives. The start time each
// waiting job gets in that replay is its prediction. Like Slurm's own
// estimate it is exact only if everything runs to its limit and nothing
// arrives; for a policy with reservations it never predicts a job later than
// its reservation.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "model/snapshot.hpp"
#include "policy/policy.hpp"

namespace los {

struct ForecastOptions {
  // Stop predicting this far past snapshot.now (seconds); later starts are
  // reported as kTimeInfinity.
  Time horizon = 366 * 24 * 3600;
  // Stop after this many policy steps (a bound on the work of one forecast).
  std::size_t max_steps = 100000;
  // Stop after this much computing time (seconds); jobs not started by then
  // are reported as kTimeInfinity.
  double max_seconds = 10;
  // How the forecast's policy instance bounds its own work: losd forecasts
  // live partitions (RunMode::Live: wall-clock caps such as tabu's
  // time-limit apply); tests and tools keep the default, reproducible.
  RunMode mode = RunMode::Simulation;
};

// The predicted start of each job of snapshot.queue, in queue order;
// kTimeInfinity where none was found. Throws SpecError for a bad spec
// and std::logic_error if the policy starts more than fits.
std::vector<Time> forecast_starts(const Snapshot& snapshot, const std::string& policy_spec,
                                  const ForecastOptions& options = {});

// The same with a policy instance that has not stepped yet, made with
// options.mode (losd hands it the live policy's history first:
// Policy::copy_history_to). It is stepped forward and left in the replay's
// last state.
std::vector<Time> forecast_starts(const Snapshot& snapshot, Policy& policy, const ForecastOptions& options = {});

}  // namespace los
