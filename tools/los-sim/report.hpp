// How los-sim prints its results: a side-by-side table, or JSON.
#pragma once

#include <ostream>
#include <vector>

#include "metrics/paired.hpp"
#include "metrics/summary.hpp"
#include "sim/simulator.hpp"

namespace los {

// Baseline (first policy) minus another policy, per job: positive means the
// other policy did better.
struct Comparison {
  PairedDifference wait, response, bsld;
};

struct PolicyReport {
  Summary summary;
  Comparison vs_baseline;  // unset for the baseline itself
};

struct RunInfo {
  std::string workload;
  int units = 0;
  std::size_t jobs = 0;
  std::size_t dropped = 0;
  double offered_load = 0;
  double bsld_tau = 10;
  std::size_t batches = 20;
  bool kill_at_estimate = true;
};

std::vector<PolicyReport> build_reports(const std::vector<SimResult>& results, double bsld_tau, std::size_t batches);

void print_table(std::ostream& out, const RunInfo& info, const std::vector<PolicyReport>& reports);
void print_json(std::ostream& out, const RunInfo& info, const std::vector<PolicyReport>& reports);

}  // namespace los
