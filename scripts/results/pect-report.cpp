// The measuring program of scripts/results/pect-search.sh (the pect-report
// target of tools/CMakeLists.txt, not installed): simulates policies on one workload with
// exact run times as estimates (the thesis's assumption) and prints JSON with
// the thesis's metrics: bounded slowdown (600 s), response and wait per
// runtime class x size class, utilization, and pect-search's search counters.
//
// Usage: pect-report [--workload-estimates] WORKLOAD POLICY...
//   WORKLOAD: model:MODEL[:KEY=VALUE]... or an SWF file.
//   --workload-estimates: keep the workload's estimates (e.g. a model's
//   estimates=modal) instead of exact run times. Jobs are classed by their
//   run times in the output either way.
#include <algorithm>
#include <array>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "policies/pect.hpp"
#include "policies/pect_search.hpp"
#include "policy/registry.hpp"
#include "sim/invariants.hpp"
#include "sim/simulator.hpp"
#include "workload/models.hpp"
#include "workload/swf.hpp"

namespace {

constexpr double kBound = 600;

constexpr const char* kHelp = R"(NAME
    pect-report - class x size metrics of SCOJO-PECT, pect-search and other
    policies on one workload, as JSON

SYNOPSIS
    pect-report [--workload-estimates] WORKLOAD POLICY...

DESCRIPTION
    Simulates each POLICY on WORKLOAD (model:MODEL[:KEY=VALUE]... as in
    los-sim generate, or an SWF file) with exact run times as estimates (the
    thesis's assumption) and prints JSON: bounded slowdown (600 s bound),
    response and wait per runtime class x size class, utilization, switches
    and pect-search's search counters; when a pect-search policy is among
    them, every run also gets the same table over only the jobs that
    pect-search placed in a group ("grouped"), and their bounded slowdown by
    their position in the searched order ("grouped_by_position": 1, 2, 3-5,
    6-10, 11-20, 21+). Every run passes the invariant checker. The measuring program of scripts/results/pect-search.sh, which
    writes docs/results/pect-search.md; built, not installed.

OPTIONS
    --workload-estimates  Keep the workload's own estimates (e.g. a model's
                          estimates=modal) instead of exact run times. Jobs
                          are classed by their run times either way.
    -h, --help            This text.

EXIT STATUS
    0 success; 1 bad workload or policy; 2 bad usage; 3 a run broke an
    invariant.

EXAMPLES
    pect-report model:lublin:jobs=1000:nodes=128:seed=71 pect pect-search

SEE ALSO
    los-sim(1)
)";

struct Acc {
  long long n = 0;
  double bsld = 0, rt = 0, wt = 0;
  void add(double b, double r, double w) {
    ++n;
    bsld += b;
    rt += r;
    wt += w;
  }
  nlohmann::json json() const {
    const double d = n ? static_cast<double>(n) : 1.0;
    return {{"jobs", n}, {"bsld", bsld / d}, {"response", rt / d}, {"wait", wt / d}};
  }
};

// Bounded slowdown, response and wait per runtime class x size class (and
// "all" of each) of the jobs of r, or of those in only when it is given.
nlohmann::json class_table(const los::SimResult& r, double m, const std::unordered_set<los::JobId>* only) {
  std::array<std::array<Acc, 4>, 4> acc{};  // [runtime class or all][size class or all]
  const los::PectOptions classes;
  for (const los::JobOutcome& o : r.jobs) {
    if (only && !only->contains(o.job.id)) continue;
    const double rt = static_cast<double>(o.end - o.job.submit);
    const double run = static_cast<double>(o.executed);
    const double b = std::max(rt / std::max(run, kBound), 1.0);
    const std::size_t c = static_cast<std::size_t>(classes.classify(std::max<los::Time>(o.executed, 1)));
    const std::size_t s = o.job.size < 0.1 * m ? 0 : (o.job.size > 0.5 * m ? 2 : 1);
    for (std::size_t ci : {c, std::size_t{3}}) {
      for (std::size_t si : {s, std::size_t{3}}) acc[ci][si].add(b, rt, rt - run);
    }
  }
  const char* cn[] = {"short", "medium", "long", "all"};
  const char* sn[] = {"narrow", "medium", "wide", "all"};
  nlohmann::json t;
  for (std::size_t c = 0; c < 4; ++c) {
    for (std::size_t s = 0; s < 4; ++s) t[cn[c]][sn[s]] = acc[c][s].json();
  }
  return t;
}

// The position buckets of the "grouped_by_position" table: where in the
// searched order a grouped job was (first, second, 3-5, 6-10, 11-20, 21+).
constexpr std::array<int, 6> kPositionFrom = {0, 1, 2, 5, 10, 20};
constexpr const char* kPositionName[] = {"1", "2", "3-5", "6-10", "11-20", "21+"};

// Mean bounded slowdown of the grouped jobs of r per bucket of their position
// in the searched order (`position`: a pect-search run's grouped jobs).
nlohmann::json position_table(const los::SimResult& r, const std::unordered_map<los::JobId, int>& position) {
  std::array<Acc, kPositionFrom.size()> acc{};
  for (const los::JobOutcome& o : r.jobs) {
    const auto it = position.find(o.job.id);
    if (it == position.end()) continue;
    const double rt = static_cast<double>(o.end - o.job.submit);
    const double run = static_cast<double>(o.executed);
    std::size_t b = 0;
    while (b + 1 < kPositionFrom.size() && it->second >= kPositionFrom[b + 1]) ++b;
    acc[b].add(std::max(rt / std::max(run, kBound), 1.0), rt, rt - run);
  }
  nlohmann::json t;
  for (std::size_t b = 0; b < acc.size(); ++b) t[kPositionName[b]] = acc[b].json();
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
    std::cout << kHelp;
    return 0;
  }
  int first_arg = 1;
  bool exact = true;
  if (argc > 1 && std::string(argv[1]) == "--workload-estimates") {
    exact = false;
    first_arg = 2;
  }
  if (argc < first_arg + 2) {
    std::cerr << "usage: pect-report [--workload-estimates] WORKLOAD POLICY...\n";
    return 2;
  }
  try {
    const std::string source = argv[first_arg];
    los::Workload w;
    if (source.rfind("model:", 0) == 0) {
      w = los::generate_model(los::parse_model_spec(source.substr(6))).workload;
    } else {
      w = los::read_swf(source);
    }
    if (exact) {
      for (los::Job& j : w.jobs) j.estimate = std::max<los::Time>(j.runtime, 1);
    }
    const double m = w.units;
    nlohmann::json out = {
        {"workload", source}, {"units", w.units}, {"jobs", w.jobs.size()}, {"exact_estimates", exact}};
    nlohmann::json runs = nlohmann::json::array();
    // Every run's per-job outcomes are kept until the end: the "grouped"
    // table of each run covers the jobs a pect-search run of this invocation
    // placed in a group, so pect and pect-search are compared on the same jobs.
    std::vector<los::SimResult> results;
    std::unordered_set<los::JobId> grouped;
    std::unordered_map<los::JobId, int> position;  // in the searched order, of the first pect-search run
    for (int a = first_arg + 1; a < argc; ++a) {
      los::PolicyPtr p = los::make_policy(argv[a], los::RunMode::Simulation);
      los::InvariantChecker checker;
      const auto t0 = std::chrono::steady_clock::now();
      const los::SimResult r = los::simulate(w, *p, {}, &checker);
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const auto violations = checker.check(r, true);
      if (!violations.empty()) {
        std::cerr << "pect-report: " << argv[a] << ": " << violations.front() << "\n";
        return 3;
      }
      double work = 0;
      los::Time first = los::kTimeInfinity, last = 0;
      for (const los::JobOutcome& o : r.jobs) {
        work += static_cast<double>(o.executed) * o.job.size;
        first = std::min(first, o.job.submit);
        last = std::max(last, o.end);
      }
      nlohmann::json run = {{"policy", r.policy},
                            {"utilization", work / (m * static_cast<double>(last - first))},
                            {"suspensions", r.suspensions},
                            {"wall_s", wall},
                            {"classes", class_table(r, m, nullptr)}};
      if (const auto* ps = dynamic_cast<const los::PectSearchPolicy*>(p.get())) {
        const bool first_search = position.empty();
        // the search's own estimate of the grouped jobs' bounded slowdown
        // (when their plan was made), per runtime class, beside what they got
        std::array<Acc, 4> estimate{};
        for (const los::JobOutcome& o : r.jobs) {
          const auto it = ps->grouped().find(o.job.id);
          if (it == ps->grouped().end()) continue;
          grouped.insert(o.job.id);
          if (first_search) position.emplace(o.job.id, it->second.position);
          const std::size_t c =
              static_cast<std::size_t>(los::PectOptions{}.classify(std::max<los::Time>(o.executed, 1)));
          for (std::size_t ci : {c, std::size_t{3}}) estimate[ci].add(it->second.estimate, 0, 0);
        }
        const char* cn[] = {"short", "medium", "long", "all"};
        for (std::size_t c = 0; c < 4; ++c) run["grouped_estimate"][cn[c]] = estimate[c].json();
        const los::SearchStats& st = ps->stats();
        run["search"] = {{"groups_medium", ps->groups(los::PectClass::Medium)},
                         {"groups_long", ps->groups(los::PectClass::Long)},
                         {"grouped_jobs", ps->grouped_jobs()},
                         {"plan_backfills", ps->plan_backfills()},
                         {"nodes", st.nodes},
                         {"pruned", st.pruned},
                         {"order_nodes", st.order_nodes},
                         {"perms", st.perms},
                         {"level1_perms", st.level1_perms},
                         {"shifts", st.shifts},
                         {"budget_hits", st.budget_hits},
                         {"initial_total", st.initial_total},
                         {"final_total", st.final_total}};
      }
      if (const auto* pp = dynamic_cast<const los::PectPolicy*>(p.get())) {
        run["switches"] = pp->switches();
      }
      runs.push_back(std::move(run));
      results.push_back(r);
    }
    if (!grouped.empty()) {
      for (std::size_t k = 0; k < results.size(); ++k) {
        runs[k]["grouped"] = class_table(results[k], m, &grouped);
        runs[k]["grouped_by_position"] = position_table(results[k], position);
      }
    }
    out["runs"] = std::move(runs);
    std::cout << out.dump(1) << "\n";
  } catch (const std::exception& e) {
    std::cerr << "pect-report: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
