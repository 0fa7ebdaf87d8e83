// The grouped bi-level search of "optimized SCOJO-PECT" (seed 003; the
// implementer's spec is ../shared/specs/pect-search.md, cited as §x.y), on top
// of the pect policy (policies/pect.hpp).
//
// Groups (§3): in a MEDIUM or LONG slice with no plan for that class, the
// first min(waiting, max) never-started jobs of the class (FIFO) form a group
// when there are at least 5 (LONG) / 10 (MEDIUM) of them, their sizes sum to
// more than 2.0 M / 1.5 M and their work / M exceeds 15 000 s / 1 600 s
// (λ·R̄, the §7.2 reading). At most one group (plan) per class; at most 30
// LONG / 20 MEDIUM jobs.
//
// The search (§5), on a virtual profile of the class's slice (running jobs
// hold their nodes for their remaining estimate, jobs of other classes until
// the slice end; the time shares are absent and response times are stretched
// by the share, §4.4): jobs are placed by earliest fit (conservative plan
// backfilling, §4.3); the objective is the total bounded slowdown of the group
// (bound 600 s).
//   - Level 1: with at least lw_min long-wide jobs (LONG: size >= M/4 and
//     estimate >= 15 000 s; MEDIUM: M/10 and 800 s), at most 6 (largest area),
//     every permutation of them placed alone, branch-and-bound, best of three.
//   - The initial order: Largest Slowdown First by tentative placement with
//     only the next long-wide job (in the level-1 order) eligible (§5.4).
//   - A full group is split into sub-groups of `subgroup` jobs (contiguous in
//     the initial order), searched one after the other with the earlier ones
//     fixed (§5.5).
//   - Level 2: per sub-group, permutations in lexicographic order of the
//     heuristic ranks (the left-most branch is the heuristic), keeping the
//     level-1 relative order of long-wide jobs; a prefix-state stack places
//     only what changed; branch-and-bound prunes a prefix whose partial total
//     is >= the best complete total and skips its subtree; each complete
//     permutation is then force-shifted (§5.8): the first job whose remaining
//     time x fits a hole of length y before its start with y < x <= 1.5 y is
//     moved in front of the jobs that start in or after the hole; the shifted
//     order is evaluated too. Capped at `perms` evaluated orders per
//     sub-group; the whole optimization is capped at `nodes` placements
//     (deterministic); live, also at `wall_ms` of wall-clock time.
//   - Best of three (§5.9): of the three lowest totals (ties: first found)
//     the lowest is kept unless its makespan exceeds 1.1 x, its utilization
//     falls below 0.95 x or its mean response exceeds 1.1 x another's (the
//     tolerance reading, ambiguity #5).
//   - The plan: the best order placed; the group finish time (§4.7, delta
//     0.05, min_util 0.75, stop at the first dip); jobs ending after it go
//     back to the waiting queue (ambiguity #15).
//   - Commit (ours, `commit`, default 1): the plan keeps only the first jobs
//     of the order; the rest return to the queue, and the class's next group
//     is searched as soon as these have started (a rolling horizon; 0: the
//     whole order, the thesis's plan). docs/pect.md says why.
//
// In a slice of a class with a plan, at every pass (§2.2, §4.6): preempted
// jobs of the class resume; the plan's unstarted jobs are re-placed in their
// order over the running jobs, and every one whose start is now starts [our
// reading of "stop at the first that cannot": with earliest-fit placement a
// later plan job placed now was placed without delaying the earlier ones];
// then other jobs of the class, preempted jobs of other classes and waiting
// jobs of other classes start when they fit now without delaying any plan job
// (noConflictWithPlan, §6.2; jobs of other classes count as ending at the
// slice end). Submissions in a plan slice are thus dynamically backfilled
// (§6.3). Jobs of another class's plan are not backfilled into this slice
// [a simplification of §6.5], unless plan_backfill: then they are, like any
// waiting job of their class, and leave their plan. The group ends when all its jobs started, or
// at a completion in its class's slice once its group-finish job has ended.
//
// Resync: pect's rebuild (policies/pect.hpp) and every group dropped (a plan
// holds only never-started jobs, all back in the queue); the active slice's
// class, if MEDIUM or LONG, forms a new group at this step when the queue
// qualifies, the other classes at their next slice. The search counters stay.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "policies/pect.hpp"

namespace los {

// A virtual availability profile: free units by time from `origin` on,
// piecewise constant; the last piece extends to infinity. Small and
// copyable (the search keeps one per depth).
class VProfile {
 public:
  VProfile(int units, Time origin) : units_(units), pts_{{origin, units}} {}
  int units() const { return units_; }
  Time origin() const { return pts_.front().first; }
  // Earliest t >= from with >= size units free over [t, t + duration).
  Time earliest(int size, Time duration, Time from) const;
  void reserve(Time start, Time duration, int size);
  int min_free(Time from, Time to) const;
  // Free unit-seconds over [from, to).
  double idle_area(Time from, Time to) const;
  const std::vector<std::pair<Time, int>>& points() const { return pts_; }

 private:
  std::size_t split(Time t);
  int units_;
  std::vector<std::pair<Time, int>> pts_;
};

struct VJob {
  JobId id = 0;
  Time submit = 0;
  int size = 1;
  Time runtime = 1;  // the estimate, also the remaining time (never started)
};

struct SearchOptions {
  double share = 0.73;  // the class's machine share (time expansion, §4.4)
  Time bound = 600;     // bounded-slowdown threshold
  bool bnb = true;
  bool level1 = true;
  bool level2 = true;
  bool force_shift = true;
  double shift_ratio = 1.5;
  long long perms = 10000;    // evaluated orders per sub-group (and level 1)
  long long nodes = 2000000;  // placements per optimization
  int lw_min = 3;
  int lw_max = 6;
  int lw_size = 32;         // long-wide: size >= this ...
  Time lw_runtime = 15000;  // ... and estimate >= this
  int max_group = 30;       // a group this size is split into sub-groups
  int subgroup = 10;
  double alpha = 1.1, beta = 0.95, gamma = 1.1;
  std::function<bool()> out_of_time;  // live wall-clock cap; empty in simulation
};

struct SearchStats {
  long long nodes = 0;   // job placements (tree nodes created)
  long long pruned = 0;  // prefixes cut by branch-and-bound
  // Placements had every evaluated order been placed in full (its length per
  // order): the thesis's pseudo-code creates a node for every job of a
  // permutation, so its "total nodes" may count these.
  long long order_nodes = 0;
  long long perms = 0;   // orders evaluated (level 2, shifted ones included)
  long long level1_perms = 0;
  long long shifts = 0;
  long long budget_hits = 0;
  double initial_total = 0;  // total bounded slowdown of the initial (LSF) order
  double final_total = 0;    // ... of the chosen order

  SearchStats& operator+=(const SearchStats& o);
};

struct SearchOutcome {
  std::vector<int> order;   // indices into the group's jobs
  std::vector<Time> start;  // virtual start per position of `order`
  double total = 0;
  SearchStats stats;
};

double estimated_bsld(const VJob& j, Time vstart, Time now, const SearchOptions& o);

// Places `order` (indices into jobs) on `base` by earliest fit; returns the
// total bounded slowdown and fills the starts.
double place_order(const VProfile& base, const std::vector<VJob>& jobs, const std::vector<int>& order,
                   const SearchOptions& o, std::vector<Time>* starts = nullptr, VProfile* after = nullptr);

// Permutation search over `heuristic` (indices into jobs) on `base`, with
// `before` a fixed total already spent: every order keeping the relative
// order of the jobs with lw_rank >= 0. Returns the lowest-total order found
// (ties: first in lexicographic order of the heuristic ranks) and the
// candidates' best of three in `selected` when given.
struct PermutationResult {
  std::vector<int> best;
  double best_total = 0;
  std::vector<int> selected;
};
PermutationResult search_permutations(const VProfile& base, const std::vector<VJob>& jobs,
                                      const std::vector<int>& heuristic, const std::vector<int>& lw_rank,
                                      const SearchOptions& o, bool shift, long long cap, SearchStats& stats);

// The whole bi-level optimization of one group.
SearchOutcome optimize_group(const VProfile& base, const std::vector<VJob>& jobs, const SearchOptions& o);

struct PectSearchOptions {
  PectOptions pect;
  int max_long = 30, max_medium = 20;
  int min_long = 5, min_medium = 10;
  double sizef_long = 2.0, sizef_medium = 1.5;
  double work_long = 15000, work_medium = 1600;  // λ·R̄
  SearchOptions search;                          // share, lw_* and max_group set per class
  double delta = 0.05, min_util = 0.75;
  bool stop_on_dip = true;
  // §6.5 read without its "additional check": a job of another class's plan
  // is smart-backfilled into the slice like any waiting job of its class and
  // leaves its plan. Off: plan jobs start only in their own class's slices.
  bool plan_backfill = false;
  // A plan's order executed with EASY: its jobs start in order while they
  // fit, later ones backfill without delaying the first that cannot start,
  // which alone keeps a reservation. Off: every plan job keeps its
  // earliest-fit place in plan order (the thesis's recalculation, §4.6).
  bool plan_easy = false;
  // A rolling horizon: a plan keeps only the first `commit` jobs of the
  // searched order (those ending by the group finish time); the others go
  // back to the queue and the class's next group, formed as soon as these
  // started, is searched again with the state of then. 0: the whole order
  // (the thesis's plan).
  int commit = 1;
  long long wall_ms = 0;  // live only
  bool stats = false;     // print the search statistics to stderr at the end
};

class PectSearchPolicy final : public PectPolicy {
 public:
  PectSearchPolicy(PectSearchOptions options, std::string label, RunMode mode);
  ~PectSearchPolicy() override;
  PectSearchPolicy(const PectSearchPolicy&) = delete;
  PectSearchPolicy& operator=(const PectSearchPolicy&) = delete;

  Capabilities capabilities() const override {
    return {.resync = true, .time_sharing = true, .wall_clock_budget = true, .jobs_per_node = 3};
  }
  StepResult step(const Snapshot& snapshot) override;

  const SearchStats& stats() const { return stats_; }
  long long groups(PectClass c) const { return groups_[static_cast<std::size_t>(c)]; }
  long long grouped_jobs() const { return grouped_jobs_; }
  // The jobs ever placed in a group, each with the bounded slowdown the
  // search estimated for it when its plan was made and its position in the
  // searched order (simulation only: live, the map would grow for the
  // daemon's lifetime), for measuring the search on the jobs it actually
  // reorders.
  struct GroupedJob {
    double estimate = 0;
    int position = 0;
  };
  const std::unordered_map<JobId, GroupedJob>& grouped() const { return grouped_; }
  // Plan jobs started in another class's slice (plan_backfill), each leaving its plan.
  long long plan_backfills() const { return plan_backfills_; }
  std::string stats_line() const;

 private:
  struct Plan {
    std::vector<VJob> jobs;  // unstarted, in plan order
    JobId gft_job = 0;       // the group-finish job (0: a running job)
    bool gft_ended = false;
  };
  VProfile slice_profile(Time now) const;
  void try_group(PectClass c, const Waiting& waiting, Time now);
  void group_pass(const Waiting& waiting, Time now, std::vector<Decision>& out);
  // Jobs started by this step's decisions leave every plan (plan_backfill),
  // counted in plan_backfills_.
  void leave_plans(const std::vector<Decision>& decisions);

  PectSearchOptions so_;
  RunMode mode_;
  std::array<std::optional<Plan>, 3> plans_;
  std::array<long long, 3> groups_{};
  long long grouped_jobs_ = 0;
  std::unordered_map<JobId, GroupedJob> grouped_;
  long long plan_backfills_ = 0;
  SearchStats stats_;
  bool stepped_ = false;  // instances made only for their name print nothing
};

const ParamTable& pect_search_parameters();
PolicyPtr make_pect_search(const ParamValues& values, RunMode mode);

}  // namespace los
