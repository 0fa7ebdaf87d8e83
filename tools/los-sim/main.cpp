// los-sim: runs LOS's scheduling policies on a workload and reports how they did.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "generate.hpp"
#include "metrics/summary.hpp"
#include "policy/registry.hpp"
#include "replay.hpp"
#include "report.hpp"
#include "sim/invariants.hpp"
#include "sim/simulator.hpp"
#include "util/cli.hpp"
#include "util/parse.hpp"
#include "workload/swf.hpp"
#include "workload/transform.hpp"
#include "workload_args.hpp"

namespace {

constexpr const char* kUsage = R"(NAME
    los-sim - simulate parallel job scheduling policies on a workload

SYNOPSIS
    los-sim [OPTIONS] WORKLOAD.swf[.gz]
    los-sim --list-policies
    los-sim generate MODEL[:KEY=VALUE]... -o FILE
    los-sim replay [OPTIONS] WORKLOAD

DESCRIPTION
    Replays a workload in the Standard Workload Format under one or more
    scheduling policies, with the same policy code losd runs on a live Slurm
    partition, and prints wait, response, slowdown, utilization and fairness
    metrics side by side. With several policies, the first is the baseline:
    each other policy is compared with it job by job (paired differences with
    90% confidence intervals from batch means).

    WORKLOAD may also be model:MODEL[:KEY=VALUE]..., a workload drawn from a
    model without a file; los-sim generate writes one as SWF (see
    los-sim generate --help).

    los-sim replay submits a workload to a live Slurm cluster with time
    compressed and sets the outcome beside los-sim's prediction (see
    los-sim replay --help).

    Sizes count whatever the workload counts (processors in a trace); the
    machine size comes from the header's MaxProcs, else MaxNodes, unless
    --nodes is given. Dirty trace records are cleaned as docs/simulator.md
    describes; the counts are printed.

OPTIONS
    --policy LIST        Comma-separated policies, each NAME[:KEY[=VALUE]]...
                         (default: easy). See --list-policies.
    --nodes N            Machine size in allocation units (default: from the header;
                         for model:, the model's nodes= key, and giving both is an error).
    --load L             Rescale inter-arrival times so the offered load is L
                         (arrival times multiplied by original load / L).
    --runtime-scale F    Multiply run times and estimates by F (default: 1).
    --skip N             Drop the first N jobs (default: 0).
    --jobs N             Keep N jobs after --skip (default: all).
    --no-kill            Let jobs run past their estimate (default: killed at it).
    --perfect-estimates  Set every estimate to the job's run time (at least 1 s),
                         as the fairness paper does (default: the trace's).
    --cancelled drop|keep|withdraw
                         What becomes of a record cancelled before it ran (run
                         time -1, status 5; its wait field is the time until
                         its user cancelled it). drop (the default): dropped
                         and counted; it used no processors. keep: a
                         zero-length job that waits until the policy starts
                         it. withdraw: kept with its size and estimate; its
                         user withdraws it at submit + wait: still waiting,
                         it leaves the queue then; started by the policy, it
                         runs until then or until its estimate, whichever
                         comes first. A record whose wait is -1 is dropped and
                         counted. Withdrawn records are in no per-job metric
                         (wait, response, slowdown, fairness, the paired
                         differences) but count in utilization and loss of
                         capacity where they held units; the output says how
                         many were withdrawn waiting and after their start.
    --keep-cancelled     The same as --cancelled keep (kept for old scripts);
                         with another --cancelled value it is a usage error.
    --jitter S           Add to every submit time (after --load) a whole number
                         of seconds drawn uniformly from [0, S), then sort by
                         submit time: a replicate of the workload (default: 0,
                         none). On long queues one run's schedule is chaotic;
                         compare policies across replicates with different
                         --jitter-seed values (docs/simulator.md, Replicates).
    --jitter-seed N      Seed of the --jitter draws (default: 1); the same
                         workload, S and N give the same jobs on any machine.
    --bsld-tau S         Bounded-slowdown threshold in seconds (default: 10).
    --batches B          Batches for the confidence intervals (default: 20).
    --format F           table (default) or json: an array with one object per policy;
                         with --list-policies, markdown prints the parameter
                         reference of docs/policies.md.
    --schedule-out FILE  Write each simulated schedule as SWF (wait filled in);
                         with several policies FILE gets the policy name before
                         its extension.
    --user-stats FILE    Write per-user fairness as CSV: policy,user,jobs,nuwt
                         (NUWT = total wait / max(1, total run time x size)),
                         one row per user and policy (default: none).
    --check              Run the invariant checker; exit 3 on any violation.
    --quiet              No warnings or progress on stderr.
    --list-policies      List policies and their parameters (with their defaults),
                         then exit.
    --version            Print the version and exit.
    -h, --help           This text.

EXIT STATUS
    0 success; 1 bad input (the message names file, line and field);
    2 bad usage (an unknown option, policy, model, parameter or key, or a
    value out of range); 3 an invariant was violated (--check).

EXAMPLES
    los-sim --policy fcfs,easy,conservative ../shared/traces/SDSC-SP2-1998-4.2-cln.swf.gz
    los-sim --policy easy,depth:k=4 --load 0.9 --format json trace.swf

SEE ALSO
    los-sim-generate(1), los-sim-replay(1), losd(8), sa-submit(1)
)";

struct Options {
  los::sim_cli::WorkloadArgs workload;
  std::string policies = "easy";
  std::string user_stats;
  double bsld_tau = 10;
  std::size_t batches = 20;
  std::string format = "table";
  std::string schedule_out;
  bool check = false;
  bool quiet = false;
  bool list = false;
};

// Parses the command line; false after --help or --version.
bool parse_args(int argc, char** argv, Options& o) {
  los::CommandLine cli("los-sim", kUsage);
  CLI::App& app = cli.app();
  app.add_option("--policy", o.policies);
  los::sim_cli::add_workload_options(app, o.workload);
  app.add_option("--user-stats", o.user_stats);
  los::sim_cli::add_number_option(app, "--bsld-tau", o.bsld_tau, 0, 1e9);
  los::sim_cli::add_integer_option(app, "--batches", o.batches, 2, 100000);
  app.add_option_function<std::string>("--format", [&](const std::string& v) {
    if (v != "table" && v != "json" && v != "markdown") {
      throw los::UsageError("--format: expected table, json or markdown, got '" + v + "'");
    }
    o.format = v;
  });
  app.add_option("--schedule-out", o.schedule_out);
  app.add_flag("--check", o.check);
  app.add_flag("--quiet", o.quiet);
  app.add_flag("--list-policies", o.list);
  app.add_option("WORKLOAD", o.workload.workload);
  if (!cli.parse(argc, argv)) return false;
  if (!o.list && o.workload.workload.empty()) throw los::UsageError(cli.usage_hint("no workload given"));
  return true;
}

// A progress bar on stderr for runs longer than a second, when stderr is a terminal.
class ProgressBar {
 public:
  ProgressBar(bool enabled, std::string label)
      : enabled_(enabled && isatty(STDERR_FILENO)), label_(std::move(label)), t0_(std::chrono::steady_clock::now()) {}
  ~ProgressBar() {
    if (shown_) std::fprintf(stderr, "\r%*s\r", 60, "");
  }
  void update(double fraction) {
    if (!enabled_) return;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    if (elapsed < 1.0) return;
    shown_ = true;
    const int width = 30;
    const int filled = static_cast<int>(fraction * width);
    std::fprintf(stderr, "\r%-16.16s [%.*s%*s] %3d%%", label_.c_str(), filled,
                 "==============================", width - filled, "", static_cast<int>(fraction * 100));
    std::fflush(stderr);
  }

 private:
  bool enabled_;
  bool shown_ = false;
  std::string label_;
  std::chrono::steady_clock::time_point t0_;
};

std::string schedule_path(const std::string& base, const std::string& policy, bool several) {
  if (!several) return base;
  std::string safe = policy;
  for (char& c : safe) {
    if (c == ':' || c == '=' || c == '/') c = '_';
  }
  const std::size_t slash = base.find_last_of('/');
  const std::size_t dot = base.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return base + "." + safe;
  return base.substr(0, dot) + "." + safe + base.substr(dot);
}

void write_user_stats(const std::string& path, const std::vector<los::SimResult>& results) {
  std::ofstream out(path);
  if (!out) throw los::WorkloadError(path + ": cannot write the user statistics");
  out << "policy,user,jobs,nuwt\n";
  out.precision(10);
  for (const los::SimResult& r : results) {
    for (const los::UserFairness& u : los::user_fairness(r)) {
      out << r.policy << ',' << u.user << ',' << u.jobs << ',' << u.nuwt << '\n';
    }
  }
  if (!out) throw los::WorkloadError(path + ": write failed");
}

int run(const Options& o) {
  if (o.list) {
    std::cout << (o.format == "markdown" ? los::policy_catalog_markdown() : los::policy_catalog_text());
    return 0;
  }
  if (o.format == "markdown") throw los::UsageError("--format markdown goes with --list-policies");
  const std::vector<los::Spec> specs = los::parse_spec_list(o.policies);
  // Build every policy first, so a typo fails before a long simulation.
  for (const los::Spec& s : specs) los::make_policy(s);

  const los::Workload w = los::sim_cli::prepare_workload(o.workload, "los-sim", o.quiet);

  los::RunInfo info;
  info.workload = o.workload.workload;
  info.units = w.units;
  info.jobs = w.jobs.size();
  info.dropped = w.cleaning.dropped();
  info.offered_load = los::offered_load(w, o.workload.kill);
  info.bsld_tau = o.bsld_tau;
  info.batches = o.batches;
  info.kill_at_estimate = o.workload.kill;
  info.withdraw = los::sim_cli::cancelled_records(o.workload) == los::CancelledRecords::Withdraw;
  info.withdrawn = static_cast<std::size_t>(
      std::count_if(w.jobs.begin(), w.jobs.end(), [](const los::Job& j) { return j.cancel_lag >= 0; }));

  std::vector<los::SimResult> results;
  int status = 0;
  for (const los::Spec& s : specs) {
    los::PolicyPtr policy = los::make_policy(s);
    ProgressBar bar(!o.quiet, policy->name());
    los::SimOptions sim;
    sim.kill_at_estimate = o.workload.kill;
    sim.progress = [&bar](double f) { bar.update(f); };
    los::InvariantChecker checker;
    los::SimResult r = los::simulate(w, *policy, sim, o.check ? &checker : nullptr);
    if (o.check) {
      const std::vector<std::string> v = checker.check(r, o.workload.kill);
      for (const std::string& msg : v) std::cerr << "los-sim: invariant violated (" << r.policy << "): " << msg << "\n";
      if (!v.empty()) status = 3;
    }
    if (!o.schedule_out.empty())
      los::write_schedule(schedule_path(o.schedule_out, r.policy, specs.size() > 1), r, w,
                          "Simulated schedule written by los-sim");
    results.push_back(std::move(r));
  }
  if (!o.user_stats.empty()) write_user_stats(o.user_stats, results);
  const std::vector<los::PolicyReport> reports = los::build_reports(results, o.bsld_tau, o.batches);
  if (o.format == "json") {
    los::print_json(std::cout, info, reports);
  } else {
    los::print_table(std::cout, info, reports);
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "generate") return run_generate(argc, argv);
  if (argc >= 2 && std::string(argv[1]) == "replay") return run_replay(argc, argv);
  return los::run_cli("los-sim", [&] {
    Options o;
    return parse_args(argc, argv, o) ? run(o) : 0;
  });
}
