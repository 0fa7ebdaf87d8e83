#include "policy/registry.hpp"

#include "policies/backfilling.hpp"
#include "policies/bf_fair.hpp"
#include "policies/fcfs.hpp"
#include "policies/tabu.hpp"

namespace los {

const std::vector<PolicyInfo>& policy_catalog() {
  static const std::vector<PolicyInfo> catalog = {
      {"fcfs", "first come first served, no backfilling", "", make_fcfs},
      {"easy", "EASY backfilling: the first blocked job holds a reservation", "", make_easy},
      {"conservative", "conservative backfilling: every waiting job holds a reservation, compressed on early ends",
       "", make_conservative},
      {"aggressive", "backfilling without reservations (may starve large jobs)", "", make_aggressive},
      {"depth", "backfilling where the first k blocked jobs hold reservations", "k=4 reservation depth", make_depth},
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
