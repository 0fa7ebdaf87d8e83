#include "policy/registry.hpp"

#include "policies/backfilling.hpp"
#include "policies/bf_fair.hpp"
#include "policies/fcfs.hpp"
#include "policies/gang.hpp"
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
      {"gang", "gang scheduling (Ousterhout matrix): FCFS into rows, compaction, replication into holes",
       "mpl=5 rows; slice=200 seconds; cs=0 context-switch stall, % of the slice; charge_start=true first starts pay it",
       make_gang},
      {"bgs", "gang scheduling with conservative backfilling inside each row (estimates x MPL)",
       "mpl=5; slice=200; cs=0; charge_start=true (as gang); plan=keep reservations kept and compressed as in "
       "conservative, or rebuild: re-planned in FCFS order at every event from remaining estimates",
       make_bgs},
      {"mgs", "gang scheduling with migration (checkpoint/restart) to collapse rows and fill holes",
       "mpl=5; slice=200; cs=0; charge_start=true (as gang); c=10 seconds per migration; q=64 tasks migrated per "
       "slice, -1 unlimited; migrate_idle=false migrate even when no job waits",
       make_mgs},
      {"mbgs", "gang scheduling with backfilling and migration",
       "mpl=5; slice=200; cs=0; charge_start=true; plan=keep (as bgs); c=10; q=64; migrate_idle=false (as mgs)",
       make_mbgs},
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
