#include "policy/registry.hpp"

#include "policies/backfilling.hpp"
#include "policies/bf_fair.hpp"
#include "policies/fcfs.hpp"
#include "policies/los.hpp"
#include "policies/tabu.hpp"

namespace los {
namespace {

constexpr const char* kLosParameters =
    "lookahead=50 waiting jobs considered (C); traceback=bypassed-first (or selected-first) which of equally good "
    "sets; head=loop start heads while they fit, then reserve (or once: the thesis's literal single head start)";

}  // namespace

const std::vector<PolicyInfo>& policy_catalog() {
  static const std::vector<PolicyInfo> catalog = {
      {"fcfs", "first come first served, no backfilling", "", make_fcfs},
      {"easy", "EASY backfilling: the first blocked job holds a reservation", "", make_easy},
      {"conservative", "conservative backfilling: every waiting job holds a reservation, compressed on early ends",
       "", make_conservative},
      {"aggressive", "backfilling without reservations (may starve large jobs)", "", make_aggressive},
      {"depth", "backfilling where the first k blocked jobs hold reservations", "k=4 reservation depth", make_depth},
      {"los", "LOS: start the set of waiting jobs that fills the most free units now without delaying the head's reservation",
       kLosParameters, make_los},
      {"los-basic", "LOS, basic 2-D algorithm: only jobs that end by the head's shadow time may start",
       kLosParameters, make_los_basic},
      {"los-maxjobs", "LOS, ties between equally packing sets go to the set with the most jobs", kLosParameters,
       make_los_maxjobs},
      {"los-maxsd", "LOS, ties between equally packing sets go to the largest total expected slowdown",
       kLosParameters, make_los_maxsd},
      {"bf-fair", "backfilling without reservations, users with the highest normalized wait (finished jobs) first",
       "", make_bf_fair},
      {"tabu", "conservative backfilling whose plan is improved by tabu search on slowdown, wait, response and user "
       "fairness (Klusacek & Rudova)",
       "safe=false never move a job past its first reservation; period=300 seconds between searches (0: never); "
       "budget=2 iterations per waiting job; tabu=10 tabu list length; seed=1 random seed; time-limit=2 wall-clock "
       "seconds per search, live partitions only (0: none)",
       make_tabu},
  };
  return catalog;
}

PolicyPtr make_policy(const PolicySpec& spec) {
  for (const PolicyInfo& info : policy_catalog()) {
    if (spec.name == info.name) return info.make(spec);
  }
  std::string known;
  for (const PolicyInfo& info : policy_catalog()) known += (known.empty() ? "" : ", ") + std::string(info.name);
  throw PolicySpecError("unknown policy '" + spec.name + "' (known: " + known + ")");
}

PolicyPtr make_policy(const std::string& text) { return make_policy(PolicySpec::parse(text)); }

}  // namespace los
