#include "workload_args.hpp"

#include <algorithm>
#include <iostream>

#include "util/parse.hpp"
#include "workload/models.hpp"
#include "workload/transform.hpp"

namespace los::sim_cli {
namespace {

template <typename Int>
void add_integer(CLI::App& app, const std::string& name, Int& target, long long min, long long max) {
  app.add_option_function<std::string>(name, [&target, name, min, max](const std::string& v) {
    target = static_cast<Int>(parse_integer(name, v, min, max));
  });
}

// A workload from an SWF file, or drawn from a model when written
// "model:MODEL[:KEY=VALUE]..." (docs/workload-models.md); --nodes is the
// model's machine size, and giving it both ways is an error (as in los-sim
// generate): a model's job sizes follow its machine, so --nodes cannot
// enlarge the machine under them as it does under an SWF file's jobs.
Workload load_workload(const std::string& arg, const SwfReadOptions& read) {
  const std::string prefix = "model:";
  if (arg.compare(0, prefix.size(), prefix) != 0) return read_swf(arg, read);
  const std::string spec = arg.substr(prefix.size());
  if (read.units > 0 && parse_model_spec(spec).params.count("nodes")) {
    throw UsageError("--nodes " + std::to_string(read.units) + " and nodes= in '" + arg +
                     "' both give the machine size: give one (to run a model's jobs on a larger machine, write them "
                     "with los-sim generate and simulate the file with --nodes)");
  }
  return model_workload(spec, read.units);
}

}  // namespace

void add_integer_option(CLI::App& app, const std::string& name, long long& target, long long min, long long max) {
  add_integer(app, name, target, min, max);
}
void add_integer_option(CLI::App& app, const std::string& name, int& target, long long min, long long max) {
  add_integer(app, name, target, min, max);
}
void add_integer_option(CLI::App& app, const std::string& name, std::size_t& target, long long min, long long max) {
  add_integer(app, name, target, min, max);
}
void add_number_option(CLI::App& app, const std::string& name, double& target, double min, double max) {
  app.add_option_function<std::string>(
      name, [&target, name, min, max](const std::string& v) { target = parse_number(name, v, min, max); });
}

void add_workload_options(CLI::App& app, WorkloadArgs& a) {
  add_integer_option(app, "--nodes", a.nodes, 1, 100000000);
  add_number_option(app, "--load", a.load, 1e-6, 100);
  add_number_option(app, "--runtime-scale", a.runtime_scale, 1e-6, 1e6);
  add_integer_option(app, "--skip", a.skip, 0, 1LL << 40);
  add_integer_option(app, "--jobs", a.jobs, 1, 1LL << 40);
  app.add_flag_callback("--no-kill", [&a] { a.kill = false; });
  app.add_flag("--perfect-estimates", a.perfect_estimates);
  app.add_option_function<std::string>("--cancelled", [&a](const std::string& v) {
    if (v != "drop" && v != "keep" && v != "withdraw") {
      throw UsageError("--cancelled: expected drop, keep or withdraw, got '" + v + "'");
    }
    a.cancelled = v;
  });
  app.add_flag("--keep-cancelled", a.keep_cancelled);
  add_integer_option(app, "--jitter", a.jitter, 0, 1LL << 40);
  app.add_option_function<std::string>("--jitter-seed", [&a](const std::string& v) {
    a.jitter_seed = static_cast<std::uint64_t>(parse_integer("--jitter-seed", v, 0, (1LL << 62)));
  });
}

CancelledRecords cancelled_records(const WorkloadArgs& a) {
  if (a.keep_cancelled && !a.cancelled.empty() && a.cancelled != "keep") {
    throw UsageError("--keep-cancelled (an alias of --cancelled=keep) contradicts --cancelled=" + a.cancelled +
                     ": give one of them");
  }
  if (a.cancelled == "withdraw") return CancelledRecords::Withdraw;
  if (a.cancelled == "keep" || a.keep_cancelled) return CancelledRecords::Keep;
  return CancelledRecords::Drop;
}

Workload prepare_workload(const WorkloadArgs& a, const char* tool, bool quiet, int cluster_units) {
  SwfReadOptions read;
  read.units = a.nodes;
  read.cancelled = cancelled_records(a);
  Workload w = load_workload(a.workload, read);
  const CleaningReport& c = w.cleaning;
  if (!quiet) {
    if (c.out_of_order)
      std::cerr << tool << ": warning: " << a.workload << ": " << c.out_of_order
                << " jobs submitted out of order; sorted by submit time\n";
    if (c.dropped()) {
      std::cerr << tool << ": " << a.workload << ": dropped " << c.dropped() << " of " << c.records << " jobs ("
                << c.dropped_oversize << " larger than " << w.units << " units, " << c.dropped_zero_size
                << " of size 0, " << c.dropped_cancelled << " cancelled before they ran, " << c.dropped_unknown_runtime
                << " with unknown run time, " << c.dropped_unknown_submit << " with unknown submit time";
      if (c.dropped_cancel_time_unknown) {
        std::cerr << ", " << c.dropped_cancel_time_unknown << " cancelled before they ran at an unknown time (wait -1)";
      }
      std::cerr << ")\n";
    }
  }
  cut_window(w, a.skip, a.jobs);
  if (w.jobs.empty()) throw WorkloadError(a.workload + ": no jobs left to simulate");
  if (a.perfect_estimates) {
    for (Job& j : w.jobs) {
      if (j.cancel_lag < 0) j.estimate = std::max<Time>(j.runtime, 1);
    }
  }
  if (a.runtime_scale != 1) scale_runtimes(w, a.runtime_scale);
  if (cluster_units > 0) scale_sizes(w, cluster_units);
  if (a.load > 0) scale_to_load(w, a.load, a.kill);
  jitter_submits(w, a.jitter, a.jitter_seed);
  return w;
}

}  // namespace los::sim_cli
