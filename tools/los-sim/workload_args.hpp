// The workload options los-sim and los-sim replay share, and how they turn a
// trace (or a model) into the jobs to run: cleaning, window, estimates,
// scaling. Both commands apply them in one order, so a replay's prediction
// is a los-sim run of the same jobs.
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <cstdint>
#include <string>

#include "workload/swf.hpp"

namespace los::sim_cli {

struct WorkloadArgs {
  std::string workload;  // FILE.swf[.gz] or model:MODEL[:KEY=VALUE]...
  int nodes = 0;         // machine size of the workload (0: from its header)
  double load = 0;       // target offered load (0: as it is)
  double runtime_scale = 1;
  std::size_t skip = 0;
  std::size_t jobs = 0;  // 0: all
  bool kill = true;      // jobs are killed at their estimate
  bool perfect_estimates = false;
  // --cancelled (empty: not given) and its alias --keep-cancelled; read
  // them with cancelled_records().
  std::string cancelled;
  bool keep_cancelled = false;
  long long jitter = 0;  // --jitter: submit times + [0, jitter) s (0: none)
  std::uint64_t jitter_seed = 1;
};

// The reading of records cancelled before they ran: --cancelled, else
// --keep-cancelled (keep), else drop. Throws UsageError when both are given
// and disagree.
CancelledRecords cancelled_records(const WorkloadArgs& args);

// --OPTION taking an integer in [min, max] / a number in [min, max]; errors
// name the option alike in every tool ("--load: expected a number, got 'abc'").
void add_integer_option(CLI::App& app, const std::string& name, long long& target, long long min, long long max);
void add_integer_option(CLI::App& app, const std::string& name, int& target, long long min, long long max);
void add_integer_option(CLI::App& app, const std::string& name, std::size_t& target, long long min, long long max);
void add_number_option(CLI::App& app, const std::string& name, double& target, double min, double max);

// --nodes --load --runtime-scale --skip --jobs --no-kill --perfect-estimates
// --cancelled --keep-cancelled --jitter --jitter-seed (their text is in each
// command's usage).
void add_workload_options(CLI::App& app, WorkloadArgs& args);

// Reads the workload and reshapes it, in this order: cleaning (counts on
// stderr unless `quiet`), the --skip/--jobs window, --perfect-estimates,
// --runtime-scale, sizes moved to `cluster_units` units when it is positive
// (scale_sizes), --load, --jitter. Throws WorkloadError when no job is left.
Workload prepare_workload(const WorkloadArgs& args, const char* tool, bool quiet, int cluster_units = 0);

}  // namespace los::sim_cli
