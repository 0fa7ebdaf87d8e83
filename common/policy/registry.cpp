#include "policy/registry.hpp"

#include "policies/backfilling.hpp"
#include "policies/bf_fair.hpp"
#include "policies/fcfs.hpp"
#include "policies/gang.hpp"
#include "policies/los.hpp"
#include "policies/pect.hpp"
#include "policies/pect_search.hpp"
#include "policies/tabu.hpp"

namespace los {
namespace {

const ParamTable& no_parameters() {
  static const ParamTable table;
  return table;
}

}  // namespace

const std::vector<PolicyInfo>& policy_catalog() {
  static const std::vector<PolicyInfo> catalog = {
      {"fcfs", "first come first served, no backfilling", no_parameters, make_fcfs},
      {"easy", "EASY backfilling: the first blocked job holds a reservation", no_parameters, make_easy},
      {"conservative", "conservative backfilling: every waiting job holds a reservation, compressed on early ends",
       conservative_parameters, make_conservative},
      {"aggressive", "backfilling without reservations (may starve large jobs)", no_parameters, make_aggressive},
      {"depth", "backfilling where the first k blocked jobs hold reservations", depth_parameters, make_depth},
      {"los",
       "LOS: start the set of waiting jobs that fills the most free units now without delaying the head's "
       "reservation; on a long queue only EASY's ties are re-decided, by expected slowdown (design=thesis: the "
       "thesis's algorithm)",
       los_parameters, make_los},
      {"los-basic", "LOS, basic 2-D algorithm: only jobs that end by the head's shadow time may start",
       los_basic_parameters, make_los_basic},
      {"los-maxjobs", "LOS, ties between equally packing sets go to the set with the most jobs", los_parameters,
       make_los_maxjobs},
      {"los-maxsd", "LOS, ties between equally packing sets go to the largest total expected slowdown", los_parameters,
       make_los_maxsd},
      {"gang", "gang scheduling (Ousterhout matrix): FCFS into rows, compaction, replication into holes",
       gang_parameters, make_gang},
      {"bgs", "gang scheduling with conservative backfilling inside each row (estimates x MPL)", bgs_parameters,
       make_bgs},
      {"mgs", "gang scheduling with migration (checkpoint/restart) to collapse rows and fill holes", mgs_parameters,
       make_mgs},
      {"mbgs", "gang scheduling with backfilling and migration", mbgs_parameters, make_mbgs},
      {"bf-fair", "backfilling without reservations, users with the highest normalized wait (finished jobs) first",
       no_parameters, make_bf_fair},
      {"tabu",
       "conservative backfilling whose plan is improved by tabu search on slowdown, wait, response and user "
       "fairness (Klusacek & Rudova)",
       tabu_parameters, make_tabu},
      {"pect",
       "SCOJO-PECT: short/medium/long slices by share, suspend to disk at slice ends, smart and EASY backfilling",
       pect_parameters, make_pect},
      {"pect-search",
       "SCOJO-PECT with limited-size job groups per class optimized by a bi-level search with branch-and-bound",
       pect_search_parameters, make_pect_search},
  };
  return catalog;
}

const PolicyInfo& policy_info(const std::string& name) {
  for (const PolicyInfo& info : policy_catalog()) {
    if (name == info.name) return info;
  }
  std::string known;
  for (const PolicyInfo& info : policy_catalog()) known += (known.empty() ? "" : ", ") + std::string(info.name);
  throw SpecError("unknown policy '" + name + "' (known: " + known + ")");
}

PolicyPtr make_policy(const Spec& spec, RunMode mode) {
  const PolicyInfo& info = policy_info(spec.name);
  return info.make(info.parameters().read(spec, kPolicyKind), mode);
}

PolicyPtr make_policy(const std::string& text, RunMode mode) { return make_policy(Spec::parse(text), mode); }

std::string canonical_policy(const std::string& text) {
  const Spec spec = Spec::parse(text);
  return policy_info(spec.name).parameters().read(spec, kPolicyKind).canonical();
}

std::string policy_catalog_text() {
  std::string out;
  for (const PolicyInfo& p : policy_catalog()) {
    // Appended piece by piece: GCC 12 warns (-Wrestrict, a false positive) on chained operator+.
    out.append(p.name).append("\n    ").append(p.summary).append("\n");
    if (!p.parameters().params().empty())
      out.append("    parameters (default):\n").append(p.parameters().help("      "));
  }
  return out;
}

std::string policy_catalog_markdown() {
  std::string out = "| policy | parameter | default | values | meaning |\n|---|---|---|---|---|\n";
  for (const PolicyInfo& p : policy_catalog()) {
    const std::vector<Param>& params = p.parameters().params();
    if (params.empty()) out.append("| `").append(p.name).append("` | — | | | |\n");
    for (const Param& q : params) {
      std::string values;
      switch (q.type) {
        case Param::Type::Integer:
          values = "whole number " + std::to_string(static_cast<long long>(q.min)) + " … " +
                   std::to_string(static_cast<long long>(q.max));
          break;
        case Param::Type::Number:
          values = "number " + number_text(q.min) + " … " + number_text(q.max);
          break;
        case Param::Type::Flag:
          values = "true, false (a bare `" + q.key + "` means true)";
          break;
        case Param::Type::Choice:
          for (const std::string& c : q.choices) values += (values.empty() ? "`" : ", `") + c + "`";
          break;
      }
      out.append("| `").append(p.name).append("` | `").append(q.key).append("` | `").append(q.fallback);
      out.append("` | ").append(values).append(" | ").append(q.help).append(" |\n");
    }
  }
  return out;
}

}  // namespace los
