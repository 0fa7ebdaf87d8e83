#include "replay.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "metrics/summary.hpp"
#include "policy/registry.hpp"
#include "report.hpp"
#include "util/cli.hpp"
#include "util/parse.hpp"
#include "util/process.hpp"
#include "util/slurm_commands.hpp"
#include "workload/transform.hpp"
#include "workload_args.hpp"

namespace los::replay {

SlurmRequest slurm_request(const Job& job, double compress) {
  SlurmRequest r;
  r.nodes = job.size;
  const double minutes = std::ceil(static_cast<double>(job.estimate) / (compress * 60.0));
  r.limit_minutes = std::max(1LL, static_cast<long long>(minutes));
  r.estimate = static_cast<Time>(std::llround(static_cast<double>(r.limit_minutes) * 60.0 * compress));
  r.sleep_seconds = static_cast<double>(std::max<Time>(job.runtime, 0)) / compress;
  return r;
}

void round_to_whole_seconds(std::vector<Job>& jobs, double compress) {
  if (jobs.empty()) return;
  const auto whole = [compress](Time t) {
    return static_cast<Time>(std::llround(std::round(static_cast<double>(t) / compress) * compress));
  };
  const Time first = jobs.front().submit;
  for (Job& j : jobs) {
    j.submit = first + whole(j.submit - first);
    j.runtime = j.runtime < 0 ? j.runtime : whole(j.runtime);
  }
}

SimResult live_result(const std::vector<Job>& jobs, const std::vector<LiveRecord>& records, int units, double compress,
                      const std::string& label) {
  if (jobs.size() != records.size()) throw std::logic_error("live_result: one record per job");
  SimResult r;
  r.policy = label;
  r.units = units;
  if (jobs.empty()) return r;
  Time origin = records.front().submit;
  for (const LiveRecord& rec : records) origin = std::min(origin, rec.submit);
  const auto scaled = [&](Time t) {
    return static_cast<Time>(std::llround(static_cast<double>(t - origin) * compress));
  };
  // Events for the integrals: (time, kind, job); kinds in the order a
  // scheduling step sees one instant: ends, submissions, starts.
  struct Event {
    Time at;
    int kind;  // 0 end, 1 submit, 2 start
    std::size_t job;
  };
  std::vector<Event> events;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const LiveRecord& rec = records[i];
    if (rec.start < 0 || rec.end < 0) {
      throw std::runtime_error("job " + std::to_string(jobs[i].id) + " ended " + rec.state + " without running");
    }
    JobOutcome o;
    o.job = jobs[i];
    o.job.submit = scaled(rec.submit);
    o.start = std::max(o.job.submit, scaled(rec.start));
    o.end = std::max(o.start, scaled(rec.end));
    o.executed = o.end - o.start;
    o.killed = rec.state == "TIMEOUT";
    r.jobs.push_back(o);
    events.push_back({o.job.submit, 1, i});
    events.push_back({o.start, 2, i});
    events.push_back({o.end, 0, i});
  }
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    return a.at != b.at ? a.at < b.at : a.kind != b.kind ? a.kind < b.kind : a.job < b.job;
  });
  long long waiting = 0, busy = 0;
  for (std::size_t e = 0; e < events.size(); ++e) {
    const Event& ev = events[e];
    const int size = r.jobs[ev.job].job.size;
    if (ev.kind == 0) busy -= size;
    if (ev.kind == 1) ++waiting;
    if (ev.kind == 2) {
      --waiting;
      busy += size;
    }
    const bool last_of_instant = e + 1 == events.size() || events[e + 1].at != ev.at;
    if (!last_of_instant) continue;
    ++r.steps;
    r.queue_length_sum += static_cast<double>(waiting);
    if (e + 1 < events.size() && waiting > 0) {
      const double idle = static_cast<double>(std::max<long long>(units - busy, 0));
      r.idle_while_waiting += idle * static_cast<double>(events[e + 1].at - ev.at);
    }
  }
  return r;
}

}  // namespace los::replay

namespace {

constexpr const char* kUsage = R"(NAME
    los-sim replay - replay a workload on a live Slurm cluster beside los-sim's prediction

SYNOPSIS
    los-sim replay [OPTIONS] WORKLOAD.swf[.gz]
    los-sim replay --dry-run [OPTIONS] WORKLOAD

DESCRIPTION
    Submits the jobs of a workload (a segment of a trace, or a model) to a
    live Slurm partition with time compressed, waits for them, reads what
    Slurm recorded (submit, start and end of every job), and prints the same
    metrics as los-sim for the live run beside los-sim's prediction for
    exactly the jobs as submitted: the same sizes, time limits and run times,
    and the submit times Slurm recorded. The live run is compared with the
    prediction job by job (paired differences with 90% confidence intervals).
    It measures how far the simulator is from the live scheduler, whether that
    is sched/los with losd or Slurm's own sched/backfill.

    The report has three columns: the prediction ("predicted"), the live run
    ("live", compared with the prediction), and the prediction again with the
    run times the jobs had live ("as run": each job's live end minus start,
    which includes launch and completion latency). The live run against "as
    run" is what the scheduler itself made of the jobs; "as run" against the
    prediction is what longer live run times alone change.

    The workload is prepared as los-sim prepares it (cleaning, --skip/--jobs,
    --perfect-estimates, --runtime-scale), then its sizes are moved to the
    partition's node count (each size x nodes / the workload's machine size,
    rounded to the nearest integer, at least 1), then --load rescales its
    arrivals.

    Time compression C: a job submitted t workload seconds after the first is
    submitted t / C real seconds after it, and runs `sleep R / C` for its run
    time R (sbatch --wrap, output to /dev/null). Slurm records times in whole
    seconds, so by default (--time-grain whole) t and R are first rounded to
    the nearest multiple of C (whole real seconds), the first submission is
    made just after a second of the wall clock begins, and the prediction is
    given the rounded jobs: what is submitted is then exactly what Slurm's
    records can show. --time-grain exact submits t / C and R / C unrounded
    (the prediction then has the trace's times and Slurm's records round
    them). Slurm's time limits are whole
    minutes: a job of estimate E gets --time ceil(E / C / 60) minutes (at least
    one), and the prediction uses that limit x 60 x C as its estimate, which is
    what the live scheduler sees. Jobs run past their limit are killed by Slurm
    (TIMEOUT), as los-sim kills them at their estimate. Slurm records times in
    whole seconds, so live times are multiples of C workload seconds; launch
    and completion latency and the scheduler's cycle period show up in the
    live figures multiplied by C. Pick C so that these stay small next to the
    waits that matter (C = 60 turns one real second into a workload minute).

    Progress goes to stderr every 10 s. On SIGINT or SIGTERM every job the
    replay submitted is cancelled (scancel) before it exits; so are the jobs
    still running at --timeout. Jobs are named TAG-PID (see --name) so that
    a replay finds its own jobs and nothing else.

OPTIONS
    --compress C         Workload seconds per real second (default: 60).
    --time-grain G       whole (default): submit times and run times rounded
                         to whole real seconds, in the replay and in the
                         prediction alike; exact: unrounded (see DESCRIPTION).
    -p, --partition P    Partition to submit to (default: Slurm's default partition).
    --cluster-nodes N    Nodes to scale sizes to (default: the partition's
                         TotalNodes, asked of scontrol).
    --policy SPEC        The policy of the prediction, one NAME[:KEY=VALUE]...
                         of los-sim --list-policies (default: easy). Give the
                         policy losd runs on the partition (losctl status shows
                         it); for Slurm's sched/backfill, easy is the nearest.
    --out FILE           Write the live schedule as SWF (waits and run times
                         from Slurm's records, in workload seconds).
    --prediction-out FILE
                         Write the predicted schedule as SWF.
    --as-run-out FILE    Write the "as run" prediction's schedule as SWF.
    --name TAG           Job name prefix (default: los-replay).
    --poll S             Seconds between reads of Slurm's job records
                         (default: 2). Slurm must keep a finished job's record
                         longer than this (MinJobAge, default 300 s).
    --timeout S          Real seconds to wait for the jobs after the last
                         submission before cancelling them (default: twice the
                         predicted time from the last submission to the last
                         end, compressed, plus 120 s).
    --dry-run            Print the sbatch commands and the prediction; submit
                         nothing.
    --nodes N            The workload's machine size (default: from its header).
    --load L             Rescale inter-arrival times so the offered load on the
                         partition's nodes is L.
    --runtime-scale F    Multiply run times and estimates by F (default: 1).
    --skip N             Drop the first N jobs (default: 0).
    --jobs N             Keep N jobs after --skip (default: all).
    --perfect-estimates  Set every estimate to the job's run time (at least 1 s).
    --cancelled drop|keep
                         Records cancelled before they ran (as los-sim;
                         default: drop). withdraw is refused: the replay has
                         no cancel events.
    --keep-cancelled     Keep records cancelled before they ran (as los-sim).
    --jitter S           Add [0, S) seconds to every submit time (as los-sim;
                         default: 0, none).
    --jitter-seed N      Seed of the --jitter draws (as los-sim; default: 1).
    --bsld-tau S         Bounded-slowdown threshold in seconds (default: 10).
    --batches B          Batches for the confidence intervals (default: 20).
    --format F           table (default) or json.
    --quiet              No progress or warnings on stderr.
    --version            Print the version and exit.
    -h, --help           This text.

EXIT STATUS
    0 every job ran and the report was printed; 1 bad input, a failed
    submission, a job that ended without running, or the timeout (jobs are
    cancelled); 2 bad usage; 130 interrupted (jobs are cancelled).

EXAMPLES
    los-sim replay --jobs 300 --skip 20000 --load 0.9 --compress 120 \
        --policy easy ../shared/traces/SDSC-SP2-1998-4.2-cln.swf.gz
    los-sim replay --dry-run --jobs 20 model:lublin:jobs=20:nodes=32:seed=1

SEE ALSO
    los-sim(1), losd(8), losctl(1), docs/simulator.md
)";

struct Options {
  los::sim_cli::WorkloadArgs workload;
  double compress = 60;
  bool whole_seconds = true;  // --time-grain whole
  std::string partition;
  int cluster_nodes = 0;
  std::string policy = "easy";
  std::string out;
  std::string prediction_out;
  std::string as_run_out;
  std::string name = "los-replay";
  double poll = 2;
  double timeout = 0;
  bool dry_run = false;
  double bsld_tau = 10;
  std::size_t batches = 20;
  std::string format = "table";
  bool quiet = false;
};

bool parse_args(int argc, char** argv, Options& o) {
  los::CommandLine cli("los-sim replay", kUsage);
  CLI::App& app = cli.app();
  using los::sim_cli::add_integer_option;
  using los::sim_cli::add_number_option;
  add_number_option(app, "--compress", o.compress, 1e-3, 1e6);
  app.add_option_function<std::string>("--time-grain", [&](const std::string& v) {
    if (v != "whole" && v != "exact") throw los::UsageError("--time-grain: expected whole or exact, got '" + v + "'");
    o.whole_seconds = v == "whole";
  });
  app.add_option("-p,--partition", o.partition);
  add_integer_option(app, "--cluster-nodes", o.cluster_nodes, 1, 10000000);
  app.add_option("--policy", o.policy);
  app.add_option("--out", o.out);
  app.add_option("--prediction-out", o.prediction_out);
  app.add_option("--as-run-out", o.as_run_out);
  app.add_option_function<std::string>("--name", [&](const std::string& v) {
    if (v.empty() || v.find_first_of(" \t\n,") != std::string::npos) {
      throw los::UsageError("--name: expected a word without spaces or commas, got '" + v + "'");
    }
    o.name = v;
  });
  add_number_option(app, "--poll", o.poll, 0.1, 60);
  add_number_option(app, "--timeout", o.timeout, 1, 1e8);
  app.add_flag("--dry-run", o.dry_run);
  los::sim_cli::add_workload_options(app, o.workload);
  add_number_option(app, "--bsld-tau", o.bsld_tau, 0, 1e9);
  add_integer_option(app, "--batches", o.batches, 2, 100000);
  app.add_option_function<std::string>("--format", [&](const std::string& v) {
    if (v != "table" && v != "json") throw los::UsageError("--format: expected table or json, got '" + v + "'");
    o.format = v;
  });
  app.add_flag("--quiet", o.quiet);
  app.add_option("WORKLOAD", o.workload.workload);
  // argv[1] is "replay".
  if (!cli.parse(argc - 1, argv + 1)) return false;
  if (o.workload.workload.empty()) throw los::UsageError(cli.usage_hint("no workload given"));
  if (!o.workload.kill) {
    throw los::UsageError(cli.usage_hint("--no-kill cannot be replayed: Slurm ends a job at its time limit"));
  }
  if (los::sim_cli::cancelled_records(o.workload) == los::CancelledRecords::Withdraw) {
    throw los::UsageError(cli.usage_hint("--cancelled=withdraw cannot be replayed: the replay has no cancel events"));
  }
  return true;
}

using Clock = std::chrono::steady_clock;

// SIGINT and SIGTERM are blocked for the replay and taken with sigtimedwait,
// so an interruption is noticed in the replay's own waits (and its jobs
// cancelled) without a handler or global state.
class Interruption {
 public:
  Interruption() {
    sigemptyset(&set_);
    sigaddset(&set_, SIGINT);
    sigaddset(&set_, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set_, &old_);
  }
  ~Interruption() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  Interruption(const Interruption&) = delete;
  Interruption& operator=(const Interruption&) = delete;

  // Waits until `until` or a signal; true when interrupted (also before).
  bool wait_until(Clock::time_point until) {
    while (!signal_) {
      const auto left = until - Clock::now();
      if (left <= Clock::duration::zero()) return false;
      const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
      timespec ts{static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
      const int got = sigtimedwait(&set_, nullptr, &ts);
      if (got > 0) signal_ = got;
    }
    return true;
  }
  int signal() const { return signal_; }

 private:
  sigset_t set_{}, old_{};
  int signal_ = 0;
};

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", s);
  return buf;
}

std::vector<std::string> sbatch_command(const Options& o, const std::string& job_name,
                                        const los::replay::SlurmRequest& r) {
  std::vector<std::string> args = {
      "sbatch", "--parsable", "-J", job_name, "-N", std::to_string(r.nodes), "-t", std::to_string(r.limit_minutes),
      "-o",     "/dev/null"};
  if (!o.partition.empty()) {
    args.push_back("-p");
    args.push_back(o.partition);
  }
  args.push_back("--wrap");
  args.push_back("sleep " + seconds_text(r.sleep_seconds));
  return args;
}

bool final_state(const std::string& s) {
  return s == "COMPLETED" || s == "TIMEOUT" || s == "FAILED" || s == "CANCELLED" || s == "NODE_FAIL" ||
         s == "PREEMPTED" || s == "OUT_OF_MEMORY" || s == "BOOT_FAIL" || s == "DEADLINE";
}

// An epoch time as squeue prints it under SLURM_TIME_FORMAT=%s; -1 for
// "Unknown", "N/A" and anything else that is not a plain number.
los::Time epoch_field(const std::string& text) {
  if (text.empty() || text.size() > 18 || text.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stoll(text);
}

// Everything the replay knows about the jobs it submitted.
class Tracker {
 public:
  explicit Tracker(std::string name) : name_(std::move(name)) {}

  void add(long long slurm_id, std::size_t index) { index_of_[slurm_id] = index; }
  std::size_t submitted() const { return index_of_.size(); }
  std::size_t finished() const { return finished_; }
  std::size_t running() const { return running_; }
  std::size_t pending() const { return pending_; }
  const std::map<std::size_t, los::replay::LiveRecord>& records() const { return records_; }

  // Reads the records of the replay's jobs from squeue (also finished ones,
  // while slurmctld keeps them). False when squeue failed.
  bool poll() {
    const los::Captured c =
        los::run_capturing({"squeue", "-h", "-t", "all", "-n", name_, "-o", "%i|%T|%V|%S|%e"}, true);
    if (c.status != 0) return false;
    running_ = pending_ = 0;
    std::istringstream in(c.output);
    for (std::string line; std::getline(in, line);) {
      std::vector<std::string> f;
      std::size_t at = 0;
      for (std::size_t bar; (bar = line.find('|', at)) != std::string::npos; at = bar + 1)
        f.push_back(line.substr(at, bar - at));
      f.push_back(line.substr(at));
      if (f.size() != 5 || f[0].find_first_not_of("0123456789") != std::string::npos || f[0].empty()) continue;
      const auto it = index_of_.find(std::stoll(f[0]));
      if (it == index_of_.end()) continue;
      los::replay::LiveRecord& rec = records_[it->second];
      if (final_state(rec.state)) continue;
      rec.state = f[1];
      rec.submit = epoch_field(f[2]);
      if (final_state(f[1])) {
        rec.start = epoch_field(f[3]);
        rec.end = epoch_field(f[4]);
        ++finished_;
      } else if (f[1] == "PENDING") {
        ++pending_;
      } else {
        ++running_;
      }
    }
    return true;
  }

  void cancel_all() const { los::run_capturing({"scancel", "-n", name_}, true); }

 private:
  std::string name_;
  std::map<long long, std::size_t> index_of_;
  std::map<std::size_t, los::replay::LiveRecord> records_;
  std::size_t finished_ = 0, running_ = 0, pending_ = 0;
};

los::SimResult predict(const los::Workload& w, const std::string& policy_spec, const std::string& label) {
  los::PolicyPtr policy = los::make_policy(policy_spec);
  los::SimResult r = los::simulate(w, *policy, {});
  r.policy = label;
  return r;
}

los::Time last_end(const los::SimResult& r) {
  los::Time t = 0;
  for (const los::JobOutcome& o : r.jobs) t = std::max(t, o.end);
  return t;
}

int run(const Options& o) {
  const std::string policy_name = los::make_policy(o.policy)->name();
  std::string partition = o.partition;
  int nodes = o.cluster_nodes;
  if (nodes == 0) {
    if (partition.empty()) partition = los::slurm_default_partition();
    const std::optional<int> n = partition.empty() ? std::nullopt : los::slurm_partition_nodes(partition);
    if (!n) {
      throw std::runtime_error("cannot ask Slurm (scontrol show partition) for the node count of " +
                               (partition.empty() ? std::string("the default partition") : "partition " + partition) +
                               ": give --cluster-nodes and -p");
    }
    nodes = *n;
  }
  los::Workload w = los::sim_cli::prepare_workload(o.workload, "los-sim replay", o.quiet, nodes);
  if (o.whole_seconds) los::replay::round_to_whole_seconds(w.jobs, o.compress);
  std::vector<los::replay::SlurmRequest> requests;
  for (los::Job& j : w.jobs) {
    requests.push_back(los::replay::slurm_request(j, o.compress));
    j.estimate = requests.back().estimate;
  }
  const los::SimResult planned = predict(w, o.policy, "predicted: " + policy_name);
  // The header of los-sim's table for the jobs as asked of Slurm.
  const auto run_info = [&](const los::Workload& jobs) {
    los::RunInfo info;
    info.workload = o.workload.workload;
    info.units = nodes;
    info.jobs = jobs.jobs.size();
    info.dropped = jobs.cleaning.dropped();
    info.offered_load = los::offered_load(jobs, true);
    info.bsld_tau = o.bsld_tau;
    info.batches = o.batches;
    return info;
  };
  const std::string job_name = o.name + "-" + std::to_string(getpid());
  const los::Time first_submit = w.jobs.front().submit;
  const double span_real = static_cast<double>(w.jobs.back().submit - first_submit) / o.compress;
  const double timeout = o.timeout > 0
                             ? o.timeout
                             : 2.0 * static_cast<double>(last_end(planned) - w.jobs.back().submit) / o.compress + 120.0;
  if (!o.quiet) {
    std::cerr << "los-sim replay: " << w.jobs.size() << " jobs on " << nodes << " nodes"
              << (partition.empty() ? "" : " of partition " + partition) << ", " << o.compress
              << " workload seconds per second: arrivals over " << std::llround(span_real) << " s, predicted end after "
              << std::llround(static_cast<double>(last_end(planned) - first_submit) / o.compress) << " s\n";
  }
  if (o.dry_run) {
    for (std::size_t i = 0; i < w.jobs.size(); ++i) {
      std::string line =
          "at +" + seconds_text(static_cast<double>(w.jobs[i].submit - first_submit) / o.compress) + " s:";
      for (const std::string& a : sbatch_command(o, job_name, requests[i])) line += " " + los::shell_quote(a);
      std::cout << line << "\n";
    }
    std::cout << "\n";
    los::print_table(std::cout, run_info(w), los::build_reports({planned}, o.bsld_tau, o.batches));
    return 0;
  }

  setenv("SLURM_TIME_FORMAT", "%s", 1);  // squeue prints epoch seconds
  Interruption interruption;
  Tracker tracker(job_name);
  // With whole seconds, the first submission is made 50 ms into a second of
  // the wall clock, so that every submission's recorded second is the one it
  // was made in (sbatch returns well within the second).
  const auto t0 = [&] {
    const auto now = Clock::now();
    if (!o.whole_seconds) return now;
    const auto since_epoch = std::chrono::system_clock::now().time_since_epoch();
    const auto into_second = since_epoch - std::chrono::duration_cast<std::chrono::seconds>(since_epoch);
    return now + (std::chrono::seconds(1) - into_second) + std::chrono::milliseconds(50);
  }();
  auto next_poll = t0;
  auto next_report = t0 + std::chrono::seconds(10);
  const auto report = [&] {
    if (o.quiet) return;
    std::fprintf(stderr, "[%5lld s] submitted %zu/%zu  pending %zu  running %zu  finished %zu\n",
                 static_cast<long long>(std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - t0).count()),
                 tracker.submitted(), w.jobs.size(), tracker.pending(), tracker.running(), tracker.finished());
  };
  const auto poll_if_due = [&] {
    const auto now = Clock::now();
    if (now >= next_poll) {
      tracker.poll();
      next_poll = now + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.poll));
    }
    if (now >= next_report) {
      report();
      next_report = now + std::chrono::seconds(10);
    }
  };
  const auto interrupted = [&] {
    tracker.cancel_all();
    std::cerr << "los-sim replay: interrupted (signal " << interruption.signal() << "): cancelled the "
              << tracker.submitted() << " jobs submitted\n";
    return 130;
  };

  for (std::size_t i = 0; i < w.jobs.size(); ++i) {
    const auto due = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(
                              static_cast<double>(w.jobs[i].submit - first_submit) / o.compress));
    while (Clock::now() < due) {
      poll_if_due();
      if (interruption.wait_until(std::min(due, std::min(next_poll, next_report)))) return interrupted();
    }
    const los::Captured c = los::run_capturing(sbatch_command(o, job_name, requests[i]));
    const std::string id = c.output.substr(0, c.output.find_first_of(";\n"));
    if (c.status != 0 || id.empty() || id.find_first_not_of("0123456789") != std::string::npos) {
      tracker.cancel_all();
      throw std::runtime_error("job " + std::to_string(w.jobs[i].id) + ": sbatch failed (exit status " +
                               std::to_string(c.status) + "); cancelled the " + std::to_string(tracker.submitted()) +
                               " jobs submitted before it");
    }
    tracker.add(std::stoll(id), i);
    poll_if_due();
  }
  const auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout));
  while (tracker.finished() < w.jobs.size()) {
    if (Clock::now() >= deadline) {
      tracker.cancel_all();
      throw std::runtime_error(std::to_string(w.jobs.size() - tracker.finished()) + " jobs not finished " +
                               std::to_string(std::llround(timeout)) +
                               " s after the last submission (--timeout): " + "cancelled them");
    }
    if (interruption.wait_until(std::min(deadline, std::min(next_poll, next_report)))) return interrupted();
    poll_if_due();
  }
  report();

  std::vector<los::replay::LiveRecord> records;
  for (std::size_t i = 0; i < w.jobs.size(); ++i) records.push_back(tracker.records().at(i));
  const std::string scheduler = los::slurm_config_value("SchedulerType");
  const los::SimResult live = los::replay::live_result(w.jobs, records, nodes, o.compress,
                                                       "live: " + (scheduler.empty() ? "slurm" : scheduler));
  // The prediction for exactly the jobs as submitted: Slurm's submit times.
  los::Workload submitted = w;
  for (std::size_t i = 0; i < submitted.jobs.size(); ++i) submitted.jobs[i].submit = live.jobs[i].job.submit;
  const los::SimResult predicted = predict(submitted, o.policy, "predicted: " + policy_name);
  // The same prediction with the run times the jobs had live (launch and
  // completion latency included): what is left between it and the live run
  // is the scheduler's doing (its cycle, its decisions), not the run times'.
  los::Workload as_run = submitted;
  for (std::size_t i = 0; i < as_run.jobs.size(); ++i) {
    if (!live.jobs[i].killed) as_run.jobs[i].runtime = live.jobs[i].executed;
  }
  const los::SimResult predicted_as_run = predict(as_run, o.policy, "as run: " + policy_name);
  if (!o.out.empty()) los::write_schedule(o.out, live, submitted, "Live schedule recorded by los-sim replay");
  if (!o.prediction_out.empty()) {
    los::write_schedule(o.prediction_out, predicted, submitted, "Predicted schedule written by los-sim replay");
  }
  if (!o.as_run_out.empty()) {
    los::write_schedule(o.as_run_out, predicted_as_run, as_run,
                        "Predicted schedule with the live run times, written by los-sim replay");
  }

  const los::RunInfo info = run_info(submitted);
  const std::vector<los::PolicyReport> reports =
      los::build_reports({predicted, live, predicted_as_run}, o.bsld_tau, o.batches);
  const los::Summary& p = reports[0].summary;
  const los::Summary& l = reports[1].summary;
  const los::Summary& a = reports[2].summary;
  const auto error = [](double live_value, double predicted_value) {
    return predicted_value != 0 ? 100.0 * (live_value - predicted_value) / predicted_value : 0.0;
  };
  if (o.format == "json") {
    std::ostringstream results;
    los::print_json(results, info, reports);
    nlohmann::json doc;
    doc["replay"] = {{"compress", o.compress},
                     {"time_grain", o.whole_seconds ? "whole" : "exact"},
                     {"nodes", nodes},
                     {"partition", partition},
                     {"scheduler", scheduler},
                     {"prediction_policy", policy_name},
                     {"killed_at_limit", l.killed},
                     {"error_percent",
                      {{"mean_wait", error(l.mean_wait, p.mean_wait)},
                       {"mean_bounded_slowdown", error(l.mean_bsld, p.mean_bsld)},
                       {"utilization", error(l.utilization, p.utilization)}}},
                     {"error_percent_vs_as_run",
                      {{"mean_wait", error(l.mean_wait, a.mean_wait)},
                       {"mean_bounded_slowdown", error(l.mean_bsld, a.mean_bsld)},
                       {"utilization", error(l.utilization, a.utilization)}}}};
    doc["results"] = nlohmann::json::parse(results.str());
    std::cout << doc.dump(2) << "\n";
  } else {
    los::print_table(std::cout, info, reports);
    std::printf("\nlive vs predicted: mean wait %+.1f %%, mean bounded slowdown %+.1f %%, utilization %+.1f %%\n",
                error(l.mean_wait, p.mean_wait), error(l.mean_bsld, p.mean_bsld), error(l.utilization, p.utilization));
    std::printf("live vs as run:    mean wait %+.1f %%, mean bounded slowdown %+.1f %%, utilization %+.1f %%\n",
                error(l.mean_wait, a.mean_wait), error(l.mean_bsld, a.mean_bsld), error(l.utilization, a.utilization));
    std::printf("(compression %g: live times are whole seconds, i.e. multiples of %g workload seconds)\n", o.compress,
                o.compress);
  }
  return 0;
}

}  // namespace

int run_replay(int argc, char** argv) {
  return los::run_cli("los-sim replay", [&] {
    Options o;
    return parse_args(argc, argv, o) ? run(o) : 0;
  });
}
