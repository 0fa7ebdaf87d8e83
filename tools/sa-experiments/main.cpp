// sa-experiments: Cirne's SA experiments (thesis ch. 5 and sec. 6.1) on the
// Cirne rigid + moldable workload models, written as raw TSV records for
// scripts/results/sa.sh to summarise.
//
// Per workload (one seed), with T random target jobs (never cancelled ones):
//   static    every job submits its user request. At each target's
//             submission SA reads the policy's availability list and picks a
//             shape; the target is then simulated once per shape it offers
//             (the user's shape is the all-user run itself), so its
//             turn-around time is known for the user's request, SA's choice
//             and the best shape in hindsight.
//   adaptive  every job submits the shape SA picks for it (the all-SA run);
//             each target is simulated once more submitting its user request
//             while every other job keeps using SA.
// A target's runs differ from the all-user (all-SA) run only from its
// submission on, and under a policy that keeps its reservations (conservative
// backfilling, jobs killed at their requested time) it ends by the
// completion SA computed for that shape at submission. So each extra run
// simulates only the jobs submitted up to that bound: exact, and checked
// (the run fails if the target ends later).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "planner/profile.hpp"
#include "policy/registry.hpp"
#include "sa/shape_selection.hpp"
#include "sim/simulator.hpp"
#include "util/cli.hpp"
#include "util/parse.hpp"
#include "workload/cirne.hpp"

namespace {

constexpr const char* kUsage = R"(NAME
    sa-experiments - SA (Supercomputer AppLeS) against the user's request and
    the best request, on Cirne's moldable workload model

SYNOPSIS
    sa-experiments [OPTIONS] --out FILE.tsv

DESCRIPTION
    Generates --workloads moldable workloads (cirne-moldable, seeds
    --first-seed, --first-seed + 1, ...), simulates them under --policy and
    writes one TSV record per target job and one per workload (columns are
    listed in the file's header lines). docs/results/sa.md explains the
    experiment; scripts/results/sa.sh runs it and summarises the records.

OPTIONS
    --out FILE          Where the records go (required; "-" for stdout).
    --workloads N       Number of workloads (default: 1).
    --first-seed S      Seed of the first workload (default: 1).
    --targets T         Target jobs per workload (default: 10).
    --jobs N            Jobs per workload (default: 10000).
    --nodes P           Machine size (default: 500).
    --load K            The model's load multiplier kappa_L (default: 1).
    --rate-divisor R    Divides the model's arrival polynomials (default: 1,
                        the thesis's rates; 1.9 gives the logs' own rates,
                        docs/workload-models.md).
    --policy SPEC       Scheduling policy (default: conservative). SA reads
                        whatever availability list it keeps (docs/policies.md).
    --no-adaptive       Skip the all-SA runs (default: run them).
    --version           Print the version and exit.
    -h, --help          This text.

EXIT STATUS
    0 success; 1 a run failed; 2 bad usage.

EXAMPLES
    sa-experiments --workloads 2 --targets 5 --jobs 400 --nodes 64 --out -

SEE ALSO
    sa-submit(1), los-sim(1)
)";

struct Options {
  std::string out;
  long long workloads = 1;
  long long first_seed = 1;
  long long targets = 10;
  long long jobs = 10000;
  long long nodes = 500;
  double load = 1.0;
  double rate_divisor = 1.0;
  std::string policy = "conservative";
  bool adaptive = true;
};

// Parses the command line; false after --help or --version.
bool parse_args(int argc, char** argv, Options& o) {
  los::CommandLine cli("sa-experiments", kUsage);
  CLI::App& app = cli.app();
  const auto integer = [&](const std::string& name, long long& target, long long min, long long max) {
    app.add_option_function<std::string>(
        name, [&target, name, min, max](const std::string& v) { target = los::parse_integer(name, v, min, max); });
  };
  const auto number = [&](const std::string& name, double& target, double min, double max) {
    app.add_option_function<std::string>(
        name, [&target, name, min, max](const std::string& v) { target = los::parse_number(name, v, min, max); });
  };
  app.add_option("--out", o.out)->required();
  integer("--workloads", o.workloads, 1, 1000000);
  integer("--first-seed", o.first_seed, 0, 1LL << 62);
  integer("--targets", o.targets, 1, 1000000);
  integer("--jobs", o.jobs, 1, 10000000);
  integer("--nodes", o.nodes, 1, 1000000);
  number("--load", o.load, 0.01, 100);
  number("--rate-divisor", o.rate_divisor, 0.01, 100);
  app.add_option("--policy", o.policy);
  app.add_flag_callback("--no-adaptive", [&] { o.adaptive = false; });
  if (!cli.parse(argc, argv)) return false;
  los::make_policy(o.policy);  // a bad spec is a usage error, before any work
  return true;
}

using los::Job;
using los::Time;

std::vector<los::Shape> shapes_of(const los::MoldableJob& m) {
  std::vector<los::Shape> s;
  for (const los::MoldableRequest& r : m.requests) s.push_back({r.nodes, r.request});
  return s;
}

void reshape(Job& j, const los::MoldableRequest& r) {
  j.size = r.nodes;
  j.estimate = r.request;
  j.runtime = r.runtime;
}

// The thesis's load per processor when SA decides: requested work still
// ahead of every job in the system (queued jobs count their whole request),
// divided by the machine size, in seconds.
double load_per_processor(const los::Snapshot& s) {
  double work = 0;
  for (const los::RunningJob& r : s.running) {
    work += static_cast<double>(r.job.size) * static_cast<double>(std::max<Time>(0, r.start + r.job.estimate - s.now));
  }
  for (const Job& q : s.queue) work += static_cast<double>(q.size) * static_cast<double>(q.estimate);
  return work / static_cast<double>(s.total_units);
}

// What SA saw at one target's submission.
struct Observation {
  bool seen = false;
  double load = 0;
  std::vector<los::ShapeFit> fits;
  std::size_t choice = 0;
};

class Experiment {
 public:
  Experiment(const Options& o, long long seed) : o_(o), seed_(seed) {
    los::CirneOptions c;
    c.jobs = static_cast<std::size_t>(o.jobs);
    c.nodes = static_cast<int>(o.nodes);
    c.seed = static_cast<std::uint64_t>(seed);
    c.load = o.load;
    c.rate_divisor = o.rate_divisor;
    gen_ = los::generate_cirne_moldable(c);
    const auto& jobs = gen_.workload.jobs;
    for (std::size_t i = 0; i < jobs.size(); ++i) index_[jobs[i].id] = i;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      user_shape_.push_back(user_index(i));
    }
    // Targets: distinct, uniformly among the jobs that are never cancelled.
    std::vector<std::size_t> eligible;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      if (gen_.cancel_lag[i] < 0) eligible.push_back(i);
    }
    std::mt19937_64 rng(static_cast<std::uint64_t>(seed) * 0x9e3779b97f4a7c15ULL + 17);
    std::shuffle(eligible.begin(), eligible.end(), rng);
    eligible.resize(std::min<std::size_t>(eligible.size(), static_cast<std::size_t>(o.targets)));
    std::sort(eligible.begin(), eligible.end());
    targets_ = eligible;
  }

  void run(std::ostream& out) {
    const std::size_t n = gen_.workload.jobs.size();
    std::unordered_map<std::size_t, Observation> seen_static, seen_adaptive;
    for (std::size_t t : targets_) {
      seen_static[t];
      seen_adaptive[t];
    }

    // All-user run: SA only looks at the targets.
    const los::SimResult all_user = simulate(gen_.workload, {}, los::kTimeInfinity, seen_static, false);
    los::SimResult all_sa;
    if (o_.adaptive) all_sa = simulate(gen_.workload, {}, los::kTimeInfinity, seen_adaptive, true);

    for (std::size_t t : targets_) {
      const los::MoldableJob& m = gen_.moldable[t];
      const std::size_t v = m.requests.size();
      const std::size_t u = user_shape_[t];
      const Observation& st = seen_static.at(t);
      if (!st.seen) throw std::logic_error("target job was never submitted");
      std::vector<Time> tt(v, -1);
      tt[u] = response_checked(all_user, t, st.fits[u].completion);
      for (std::size_t k = 0; k < v; ++k) {
        if (k == u) continue;
        const los::SimResult r = simulate(gen_.workload, {{t, k}}, st.fits[k].completion, seen_static, false);
        tt[k] = response_checked(r, t, st.fits[k].completion);
      }
      Time tt_sa_adaptive = -1, tt_user_adaptive = -1;
      double load_adaptive = -1;
      if (o_.adaptive) {
        const Observation& ad = seen_adaptive.at(t);
        load_adaptive = ad.load;
        tt_sa_adaptive = response_checked(all_sa, t, ad.fits[ad.choice].completion);
        if (ad.choice == u) {
          tt_user_adaptive = tt_sa_adaptive;
        } else {
          const los::SimResult r = simulate(gen_.workload, {{t, u}}, ad.fits[u].completion, seen_adaptive, true);
          tt_user_adaptive = response_checked(r, t, ad.fits[u].completion);
        }
      }
      const Job& j = gen_.workload.jobs[t];
      out << "target\t" << seed_ << '\t' << los::to_string(gen_.site) << '\t' << j.id << '\t' << j.submit << '\t' << v
          << '\t' << u << '\t' << st.choice << '\t' << st.load << '\t' << m.sequential_time << '\t' << m.c_min << '\t'
          << m.c_max << '\t' << gen_.accuracy[t] << '\t' << join(tt) << '\t' << join_fits(st.fits) << '\t'
          << join_shapes(m) << '\t' << tt_sa_adaptive << '\t' << tt_user_adaptive << '\t' << load_adaptive << '\n';
    }
    out << "workload\t" << seed_ << '\t' << los::to_string(gen_.site) << '\t' << n << '\t' << geomean_response(all_user)
        << '\t' << (o_.adaptive ? geomean_response(all_sa) : -1.0) << '\t' << utilization(all_user) << '\t'
        << (o_.adaptive ? utilization(all_sa) : -1.0) << '\n';
    out.flush();
  }

 private:
  std::size_t user_index(std::size_t i) const {
    const Job& j = gen_.workload.jobs[i];
    const auto& req = gen_.moldable[i].requests;
    for (std::size_t k = 0; k < req.size(); ++k) {
      if (req[k].nodes == j.size && req[k].request == j.estimate) return k;
    }
    throw std::logic_error("job " + std::to_string(j.id) + ": the user's request is not among its shapes");
  }

  // One simulation of the jobs submitted up to `horizon`. `forced` fixes
  // some jobs' shapes (index -> shape); with `sa_everywhere` every other job
  // takes SA's shape, else its user request. Targets not forced are
  // observed (what SA saw) into `seen`.
  los::SimResult simulate(const los::Workload& base, const std::unordered_map<std::size_t, std::size_t>& forced,
                          Time horizon, std::unordered_map<std::size_t, Observation>& seen, bool sa_everywhere) {
    los::Workload w;
    w.source = base.source;
    w.units = base.units;
    for (const Job& j : base.jobs) {
      if (j.submit > horizon) break;
      w.jobs.push_back(j);
    }
    los::PolicyPtr policy = los::make_policy(o_.policy);
    los::SimOptions so;
    so.on_submit = [&](Job& j, const los::Snapshot& s, const los::Policy& p) {
      const std::size_t i = index_.at(j.id);
      const los::MoldableJob& m = gen_.moldable[i];
      if (const auto f = forced.find(i); f != forced.end()) {
        reshape(j, m.requests[f->second]);
        return;
      }
      const auto obs = seen.find(i);
      if (!sa_everywhere && obs == seen.end()) return;
      const std::vector<los::Shape> shapes = shapes_of(m);
      const std::vector<los::AvailabilitySlot> av = los::availability_list(s, p);
      const std::vector<los::ShapeFit> fits = los::fit_shapes(av, shapes, s.now);
      const auto choice = los::choose_among(shapes, fits);
      if (!choice) throw std::logic_error("job " + std::to_string(j.id) + ": no shape fits the machine");
      if (obs != seen.end() && forced.empty()) {
        obs->second = Observation{true, load_per_processor(s), fits, choice->index};
      }
      if (sa_everywhere) reshape(j, m.requests[choice->index]);
    };
    return los::simulate(w, *policy, so);
  }

  Time response_checked(const los::SimResult& r, std::size_t t, Time bound) const {
    const los::JobOutcome& o = r.jobs.at(t);
    if (o.end < 0) throw std::logic_error("target job " + std::to_string(o.job.id) + " never ended");
    if (o.end > bound) {
      throw std::logic_error("target job " + std::to_string(o.job.id) + " ended at " + std::to_string(o.end) +
                             ", after the completion " + std::to_string(bound) +
                             " its reservation promised: the policy does not keep reservations, so the "
                             "shortened runs are not exact; use conservative backfilling");
    }
    return o.response();
  }

  static double geomean_response(const los::SimResult& r) {
    double s = 0;
    for (const los::JobOutcome& o : r.jobs) s += std::log(static_cast<double>(std::max<Time>(1, o.response())));
    return std::exp(s / static_cast<double>(r.jobs.size()));
  }

  static double utilization(const los::SimResult& r) {
    double work = 0;
    Time first = los::kTimeInfinity, last = 0;
    for (const los::JobOutcome& o : r.jobs) {
      work += static_cast<double>(o.job.size) * static_cast<double>(o.executed);
      first = std::min(first, o.job.submit);
      last = std::max(last, o.end);
    }
    return work / (static_cast<double>(r.units) * static_cast<double>(std::max<Time>(1, last - first)));
  }

  static std::string join(const std::vector<Time>& v) {
    std::string s;
    for (Time x : v) {
      if (!s.empty()) s += ',';
      s += std::to_string(x);
    }
    return s;
  }
  static std::string join_fits(const std::vector<los::ShapeFit>& f) {
    std::string s;
    for (const los::ShapeFit& x : f) {
      if (!s.empty()) s += ',';
      s += std::to_string(x.completion);
    }
    return s;
  }
  static std::string join_shapes(const los::MoldableJob& m) {
    std::string s;
    for (const los::MoldableRequest& r : m.requests) {
      if (!s.empty()) s += ',';
      s += std::to_string(r.nodes);
      s += ':';
      s += std::to_string(r.request);
      s += ':';
      s += std::to_string(r.runtime);
    }
    return s;
  }

  const Options& o_;
  long long seed_;
  los::CirneWorkload gen_;
  std::unordered_map<los::JobId, std::size_t> index_;
  std::vector<std::size_t> user_shape_;
  std::vector<std::size_t> targets_;
};

}  // namespace

int main(int argc, char** argv) {
  Options o;
  try {
    if (!parse_args(argc, argv, o)) return 0;
  } catch (const std::exception& e) {
    std::cerr << "sa-experiments: " << e.what() << '\n';
    return 2;
  }
  try {
    std::ofstream file;
    if (o.out != "-") {
      file.open(o.out);
      if (!file) throw std::runtime_error(o.out + ": cannot open for writing");
    }
    std::ostream& out = o.out == "-" ? std::cout : file;
    out << "# sa-experiments --workloads " << o.workloads << " --first-seed " << o.first_seed << " --targets "
        << o.targets << " --jobs " << o.jobs << " --nodes " << o.nodes << " --load " << o.load << " --rate-divisor "
        << o.rate_divisor << " --policy " << o.policy << (o.adaptive ? "" : " --no-adaptive") << '\n'
        << "# target\tseed\tsite\tjob\tsubmit\tv\tuser_shape\tsa_shape\tD\tL\tc_min\tc_max\taccuracy"
           "\ttt_per_shape\tsa_completion_per_shape\tshapes(nodes:request:runtime)\ttt_sa_adaptive"
           "\ttt_user_adaptive\tD_adaptive\n"
        << "# workload\tseed\tsite\tjobs\tgeomean_tt_all_user\tgeomean_tt_all_sa\tutil_all_user\tutil_all_sa\n";
    for (long long w = 0; w < o.workloads; ++w) {
      Experiment e(o, o.first_seed + w);
      e.run(out);
    }
  } catch (const std::exception& e) {
    std::cerr << "sa-experiments: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
