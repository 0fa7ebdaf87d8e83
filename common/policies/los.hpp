// LOS, the Lookahead Optimizing Scheduler (Shmueli & Feitelson, JSSPP 2003;
// E. Shmueli's thesis, Haifa 2003): backfilling that, instead of walking the
// queue greedily, starts the set of waiting jobs that uses the most free
// units now without delaying the first blocked job. docs/los.md has the
// algorithm, the decisions the thesis leaves open, and the solver's proof.
//
// One step at time t:
//   1. Head jobs: with head=loop (default) start queue heads in order while
//      they fit, as EASY does; with head=once (the thesis read literally)
//      start the head if it fits and run the selection with no reservation.
//   2. The first job that does not fit gets a reservation: its shadow time is
//      the earliest time the profile of running jobs (the Planner) frees
//      enough units, and `extra` counts every unit free at that time beyond
//      its size, i.e. all jobs ending at the shadow time count - the same
//      rule as EASY here.
//   3. WQ': the waiting jobs behind it with size <= the free units, the first
//      `lookahead` of them (C counts after that filter, as in the thesis's
//      example). A job's shadow size is 0 if t + estimate <= shadow, else its
//      size. los_select (los_dp.hpp) picks the set; all of it starts now.
// Variants: los (full: uses the extra units), los-basic (the 2-D algorithm:
// only jobs ending by the shadow time), los-maxjobs and los-maxsd (merit
// tie-breaks: most jobs; largest sum of expected slowdowns
// (t - submit + estimate) / estimate, compared in micro-units).
//   4. rest=easy: the jobs the selection did not start, and those past the
//      window, in queue order, start if they fit in what is left now and end
//      by the shadow time or fit in what is left of `extra` (EASY's rule).
//      With queues far longer than C the thesis's LOS starves the jobs past
//      the window that EASY would start at once; see docs/los.md.
//   The default design=hybrid (issue 14, docs/los.md) is gate=fit,
//   keep=ties, protect=late-inexact, rest=easy and rules=long-inexact, with the
//   expected slowdown as the merit of los and los-maxsd and as the tie-break
//   among sets of as many jobs of los-maxjobs (merit=jobs-slowdown);
//   design=thesis is the thesis's algorithm, literally.
//   The parameters (issue 14, each measured in docs/los.md): gate=fit|
//   queue makes a step EASY's when the window misses jobs; keep=easy starts
//   EASY's set from the window unless the selection fills gain% more;
//   window=admissible counts only jobs the reservation allows;
//   traceback=head-first breaks ties toward queue order; select=queue
//   returns, of the sets filling the most units, the first in queue order
//   (EASY's own set whenever it fills the most); keep=short starts EASY's
//   picks that end by the shadow time before the selection; keep=ties lets
//   the selection re-decide only EASY's ties; protect=first|once|long|extra|
//   late starts EASY's first pick before the selection by that rule.
//
// State: the profile of running jobs, kept from the snapshot's events and
// rebuilt from the snapshot when the events do not explain it. The only
// promise is the blocked head's shadow time (reservations()).
#pragma once

#include <cstdint>
#include <unordered_set>
#include <vector>

#include "planner/running_profile.hpp"
#include "policies/los_dp.hpp"
#include "policy/policy.hpp"

namespace los {

// The selection's last key: None; MaxJobs, the most jobs; MaxSlowdown, the
// largest sum of expected slowdowns; MaxJobsThenSlowdown, the most jobs and,
// among sets with as many, the largest sum of expected slowdowns.
enum class LosMerit { None, MaxJobs, MaxSlowdown, MaxJobsThenSlowdown };
enum class LosHead { Loop, Once };
// Jobs past the lookahead window: the thesis never looks at them (None); Easy
// backfills them after the selection, in queue order, under the same
// protection of the blocked head's shadow time.
enum class LosRest { None, Easy };
// Which set the step starts from the window: Optimal, the selection's (the
// thesis); Easy, the set EASY's queue-order walk starts from the same
// window, unless the selection fills more than `gain` percent of the free
// units beyond it.
// Short: the jobs EASY's walk over the window starts that end by the shadow
// time start first; the selection runs over the rest of the window.
// Ties: the selection's keys choose among the sets that fill as many units
// as EASY's walk over the window, never more: only EASY's ties are decided
// differently (issue 14: the strict gains cost bounded slowdown on large
// machines).
enum class LosKeep { Optimal, Easy, Short, Ties };

// Whether EASY's first pick from the window (the earliest waiting job that
// can start now under the reservation) starts before the selection, which
// then rearranges only the rest: None, never; First, always; Once, when the
// selection passed it over at an earlier step (so it is postponed at most
// once); Long, when more than `lookahead` jobs wait behind the blocked head;
// Extra, when it would run past the shadow time (in the extra units); Late,
// when it has already waited at least its estimate; LateInexact, Late while
// the estimates run long (the jobs that ended lately ran, on average, less
// than kExactEstimates of their estimates). The protection exists because
// the slowdown merit, computed from estimates, ranks a job with a long
// estimate and a short run far too low; with exact estimates the merit is
// right and protecting costs (issue 14, NASA-iPSC: docs/los.md).
enum class LosProtect { None, First, Once, Long, Extra, Late, LateInexact };
// Which waiting jobs count towards the window: Fit, those that fit in the
// free units (the thesis); Admissible, only those that could start under the
// head's reservation (end by the shadow time or fit in extra).
enum class LosWindow { Fit, Admissible };

// When a step is EASY's (queue-order backfill under the head's reservation,
// no selection): None, never (the thesis); Fit, when more than `lookahead`
// waiting jobs behind the blocked head fit now; Queue, when more than
// `lookahead` jobs wait behind it, i.e. the selection runs only when its
// window holds the whole queue.
enum class LosGate { None, Fit, Queue };

// Which set the selection returns: Thesis, the most units, then the least
// shadow utilization, the merit and the trace-back rule (the thesis); Queue,
// of the sets filling the most units the one EASY's queue order prefers
// (los_select_queue_order): EASY's own set whenever that fills the most;
// LongQueue, Thesis while every job waiting behind the blocked head is in
// the window (at most C of them), Queue when more wait (issue 14: the
// thesis's shadow-use key wins on short queues and starves long jobs on
// long ones).
enum class LosSelect { Thesis, Queue, LongQueue };

// How many extra units the blocked head leaves at its shadow time. Profile:
// every unit free then, i.e. every running job that ends by the shadow time
// counts (EASY's rule, Appendix A step 1(d); the default for both). Thesis:
// the thesis's formula (section 3.2.1): running jobs in order of expected
// end, ties by job id, added up only until the head fits, so a job that ends
// at the shadow time after that one does not count.
enum class LosExtra { Profile, Thesis };

// Which steps gate, keep and protect apply to. Every: all of them. Long: only
// the steps where more than `lookahead` jobs wait behind the blocked head; a
// step on a shorter queue (the window holds every waiting job that fits) runs
// the thesis's selection (keep=optimal, protect=none). LongInexact: Long
// while the estimates run long (the average of protect=late-inexact below
// kExactEstimates); with exact estimates every step runs the thesis's
// selection, without the gate (rest still applies). The hybrid design (issue 14,
// docs/los.md): the thesis's selection wins on short queues and, with exact
// estimates, on long ones; with inexact estimates EASY's set with its ties
// re-decided is never worse than EASY on long queues.
enum class LosRules { Every, Long, LongInexact };

struct LosOptions {
  bool use_extra = true;  // false: los-basic
  LosMerit merit = LosMerit::None;
  LosTraceback traceback = LosTraceback::BypassedFirst;
  int lookahead = 50;  // C
  LosHead head = LosHead::Loop;
  LosRest rest = LosRest::None;
  LosKeep keep = LosKeep::Optimal;
  LosProtect protect = LosProtect::None;
  int gain = 0;  // percent of the free units; with keep = Easy
  LosWindow window = LosWindow::Fit;
  LosGate gate = LosGate::None;
  LosSelect select = LosSelect::Thesis;
  LosExtra extra = LosExtra::Profile;
  LosRules rules = LosRules::Every;
};

class LosPolicy final : public Policy {
 public:
  LosPolicy(LosOptions options, std::string label);

  std::string name() const override { return label_; }
  StepResult step(const Snapshot& snapshot) override;
  std::vector<PlannedStart> reservations() const override;
  const Planner* plan() const override { return &profile_.planner(); }
  // The estimate accuracy and protect=once's passed-over picks.
  void copy_history_to(Policy& fresh) const override;

  const LosOptions& options() const { return options_; }
  // The average run time / estimate of the jobs that ended (below).
  double estimate_accuracy() const { return estimate_accuracy_; }

 private:
  void start_now(const Job& job, Time now, StepResult& result);
  // Starts EASY's first pick from the window if `rule` says so (and takes
  // it out of the window); with protect=once returns the pick the selection
  // may pass over, if any.
  const Job* start_protected_pick(Time now, LosProtect rule, bool long_queue, std::int64_t& free_now,
                                  std::int64_t& extra_left, StepResult& result);
  // EASY's queue-order walk over the window (problem_) into greedy_; returns
  // the units it fills.
  std::int64_t easy_walk_over_window(std::int64_t free_now, std::int64_t extra_left);
  void backfill_rest(const Snapshot& snapshot, std::size_t from, Time shadow, std::int64_t free_now,
                     std::int64_t extra_left, StepResult& result);

  LosOptions options_;
  std::string label_;
  RunningProfile profile_;                 // running jobs (and this step's starts) only
  std::vector<PlannedStart> reservation_;  // the blocked head's shadow time, if any
  // Scratch reused between steps.
  LosProblem problem_;
  std::vector<const Job*> candidates_;
  std::vector<std::size_t> greedy_;
  std::vector<JobId> started_;
  std::unordered_set<JobId> passed_over_;  // protect=once: picks the selection passed over
  // protect=late-inexact, rules=long-inexact: an exponential average of run
  // time / estimate (at most 1) over the jobs that ended, weight
  // kEstimateAccuracyWeight; 0 (run long) until jobs end.
  double estimate_accuracy_ = 0;
  // The average above says the estimates are exact (at least kExactEstimates).
  bool estimates_exact() const;
};

// protect=late-inexact, rules=long-inexact: estimates count as exact while the average above is
// at least this (exact estimates give 1; the shared archive traces' user
// estimates 0.31-0.47), and each ended job weighs this much in it (about the
// last 64 jobs).
inline constexpr double kExactEstimates = 0.9;
inline constexpr double kEstimateAccuracyWeight = 1.0 / 64;

// Expected slowdown if started at `now`, in micro-units (the Max-Slowdown
// merit), capped at a slowdown of 10^6.
std::int64_t los_slowdown_merit(Time now, Time submit, Time estimate);

// merit=jobs-slowdown: turns a window whose merits are expected slowdowns
// into merits that rank sets by their number of jobs first (exactly), then
// by the sum of those slowdowns (halved when they are too large to add up
// inside int64 with the weights, never at the default window).
void weigh_jobs_over_slowdown(std::vector<LosCandidate>& window);

// Every LOS variant takes these parameters; los-basic's table differs only
// in its default design (thesis: without extra units, the hybrid's EASY
// steps lose to EASY).
const ParamTable& los_parameters();
const ParamTable& los_basic_parameters();
PolicyPtr make_los(const ParamValues& values, RunMode mode);
PolicyPtr make_los_basic(const ParamValues& values, RunMode mode);
PolicyPtr make_los_maxjobs(const ParamValues& values, RunMode mode);
PolicyPtr make_los_maxsd(const ParamValues& values, RunMode mode);

}  // namespace los
