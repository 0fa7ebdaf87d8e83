// How los-sim prints its results: a side-by-side table, or JSON.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "metrics/paired.hpp"
#include "metrics/summary.hpp"
#include "sim/simulator.hpp"
#include "workload/swf.hpp"

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
  // --cancelled=withdraw: the workload's records withdrawn by their users
  // (among `jobs`); the table and JSON then report what became of them.
  bool withdraw = false;
  std::size_t withdrawn = 0;
};

std::vector<PolicyReport> build_reports(const std::vector<SimResult>& results, double bsld_tau, std::size_t batches);

void print_table(std::ostream& out, const RunInfo& info, const std::vector<PolicyReport>& reports);
void print_json(std::ostream& out, const RunInfo& info, const std::vector<PolicyReport>& reports);

// Writes a schedule as SWF: each job's record with its wait, the run time it
// executed and status 0 when killed at its estimate, else 1. A withdrawn
// record (--cancelled=withdraw) still waiting at its cancel time is written
// as the trace had it: wait = its cancel lag, run time -1, status 5; one cut
// at its cancel time while running has status 5. The header names
// `title`, the policy, the workload and the machine size.
void write_schedule(const std::string& path, const SimResult& r, const Workload& w, const std::string& title);

}  // namespace los
