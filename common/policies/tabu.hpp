// Conservative backfilling whose plan is improved by tabu search, with a
// user-fairness criterion (Klusacek & Rudova, "Performance and Fairness for
// Users in Parallel Job Scheduling"; spec: ../shared/specs/fairness-tabu.md).
//
// Every waiting job holds a reservation in one availability profile (the
// Planner). An arriving job gets the earliest start that delays no
// reservation (conservative backfilling). Every `period` seconds of simulated
// time the plan is optimised by the paper's Algorithm 2: pick a random job
// that is not in the tabu list, remove it, compress the plan, re-insert it at
// its earliest start, and keep the result only when the sum of the relative
// improvements of mean bounded slowdown, wait, response and the fairness
// criterion F is positive. Jobs start when their reservation comes due.
//
// The plan data structure (TabuPlan) makes one search iteration cheaper than
// re-planning: the removal and re-insertion are profile operations, the
// compression searches each reservation's earlier starts only where its
// window would meet freed capacity (two O(log P) probes rule most out), the
// criteria of the candidate are computed from the reservations that moved
// (not from the whole plan), and a rejected move is undone by replaying its
// journal backwards instead of rebuilding the plan. What remains is the
// cascade: removing one job can let every later reservation move
// (docs/benchmarks.md, "Tabu search").
//
// Design choices the paper leaves open ([I] in the spec) and taken here:
//   - Compression is the profile compression of conservative backfilling:
//     reservations, in order of start, each move to their earliest start if
//     that is earlier. No reservation ever moves later.
//   - Wait, response and slowdown average over waiting jobs only; F uses all
//     jobs (finished, running, planned) of every user seen so far, with the
//     paper's F = sum (mean NUWT - NUWT_o)^2 and Alea's zero-division guards.
//   - The per-job slowdown of the predictor is (C - r) / max(1, p), the
//     reporting formula with tau = 1 s.
//   - A tabu pick that finds every job tabu empties the list and consumes the
//     iteration, as in Algorithm 2.
// `safe` (not in the paper): a move is rejected if the re-inserted job would
// start later than the start it was first promised, so every reservation is
// a promise. Without `safe` the plan's starts are predictions: the search may
// delay a job past its first reservation, and reservations() is empty.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <random>
#include <set>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "policy/policy.hpp"

namespace los {

// The criteria SELECTBETTER compares: means over the waiting jobs and the
// fairness criterion F. Smaller is better for all four.
struct TabuCriteria {
  double wait = 0;
  double response = 0;
  double bsd = 1;
  double fairness = 0;
};

// Sum of the relative improvements of `candidate` over `current` (paper,
// SELECTBETTER): (a - b) / a per criterion, with the denominators guarded as
// Alea does (max(1, a) for slowdown, max(1e-13, a) for the others) and a
// criterion that did not change contributing exactly 0. The search accepts a
// candidate when the result is above kTabuAcceptEpsilon (> 0 in the paper):
// the criteria of a candidate are sums of doubles, and a move that only
// permutes equal contributions must not be accepted on rounding noise.
double tabu_improvement(const TabuCriteria& current, const TabuCriteria& candidate);
inline constexpr double kTabuAcceptEpsilon = 1e-12;

struct TabuSearchStats {
  std::int64_t searches = 0;
  std::int64_t iterations = 0;
  std::int64_t accepted = 0;
  std::int64_t rejected_unsafe = 0;  // moves `safe` refused
};

// The conservative plan with the per-user totals the fairness criterion needs.
class TabuPlan {
 public:
  struct Entry {
    JobId id;
    int user;      // index into the user table
    int size;
    Time submit;
    Time duration;
    Time start;
    Time promise;  // the start given at insertion
    std::int64_t order;
    bool starting;  // a start decision was issued; waiting for Started
  };

  explicit TabuPlan(int capacity = 0, Time origin = 0);

  int capacity() const { return static_cast<int>(profile_.capacity()); }
  Time origin() const { return profile_.origin(); }
  const Planner& profile() const { return profile_; }
  void advance_to(Time now) { profile_.advance_to(now); }

  // A job that holds units until `end` (expected). Its wait counts in its
  // user's fixed total and its area in the user's area.
  void add_running(const Job& job, Time start, Time end);
  // The job left the running set at `now`. False if it is unknown. `freed` is
  // set when it ended before its expected end (the plan should be compressed).
  bool end_running(JobId id, Time now, bool& freed);
  bool is_running(JobId id) const { return running_.count(id) != 0; }
  // Earliest end the profile expects among running jobs (kTimeInfinity if none).
  Time first_running_end() const;

  // Conservative insertion: the earliest start that delays no reservation.
  // Returns kTimeInfinity (and plans nothing) if the job is larger than the
  // machine.
  // `promise` carries a promise over from a previous plan (a rebuild);
  // otherwise the start found becomes the job's promise.
  Time insert(const Job& job, Time now, Time promise = kTimeInfinity);
  // Forgets the reservations and running jobs (a rebuild), keeping what the
  // user totals learned from finished jobs.
  void reset(int capacity, Time now);
  // Deletes a waiting job's reservation (no compression). False if unknown.
  bool remove(JobId id);
  // Compression after capacity was freed on [from, until): reservations, in
  // order of start, move to their earliest start (>= now) if that is earlier
  // and their new window overlaps freed capacity (what a moved reservation
  // gives back counts as freed for the ones after it). In a plan where no
  // reservation could start earlier, this is the classical compression; it
  // only visits the part of the profile that changed.
  void compress(Time now, Time from = 0, Time until = kTimeInfinity);

  // A waiting job became running by this policy's decision.
  bool start_planned(JobId id, Time start);

  const Entry* find(JobId id) const;
  std::size_t planned() const { return planned_.size(); }
  // Reservations in order of start (ties: order of insertion).
  std::vector<PlannedStart> starts() const;
  // Waiting jobs whose reservation is due at `now` and not yet starting;
  // marks them starting.
  std::vector<JobId> take_due(Time now);
  // Earliest reservation start (kTimeInfinity if none).
  Time first_start() const;

  // The criteria of the plan as it stands, computed from scratch.
  TabuCriteria criteria() const;

  // Algorithm 2 on the plan: `iterations` moves, stopping early at
  // `deadline` (if it is not the max time point). Returns the moves accepted.
  std::int64_t search(Time now, std::int64_t iterations, std::size_t tabu_size, bool safe, std::mt19937_64& rng,
                      std::chrono::steady_clock::time_point deadline, TabuSearchStats& stats);

  // Recomputes the criteria and sums the search works from; search() calls
  // it, a caller of try_move() must call it first.
  void prepare();
  const TabuCriteria& current() const { return current_; }

  enum class MoveResult { Kept, Rejected, Unsafe };
  // One move of the search, kept or undone by the criteria: remove `id`,
  // compress, re-insert at the earliest start. Unsafe: `safe` and the job
  // would start after its promise (undone). Public for tests and benchmarks.
  MoveResult try_move(JobId id, Time now, bool safe);

  // The jobs the search can move (waiting, not starting), in no fixed order.
  const std::vector<JobId>& movable() const { return movable_; }

  // Sanity check for tests: the profile equals running jobs plus
  // reservations and the incremental per-user sums match a recount.
  bool consistent() const;

 private:
  struct Running {
    int user;
    int size;
    Time start;
    Time end;
    Time duration;  // the area counted for the user while it runs
    Time wait;
  };
  struct UserTotals {
    std::int64_t fixed_wait = 0;    // finished and running jobs
    std::int64_t planned_wait = 0;  // waiting jobs, at their planned start
    double area = 0;                // run time x size over all jobs
  };
  struct Move {
    JobId id;
    Time from;
    Time to;
  };
  using ByStart = std::set<std::tuple<Time, std::int64_t, JobId>>;

  int user_index(int user);
  double nuwt(const UserTotals& u, std::int64_t extra_wait) const;
  void place(Entry& e, Time start);  // moves a reservation, journals it
  void add_movable(JobId id);
  void drop_movable(JobId id);
  // What the journalled moves change: the candidate's criteria and sums.
  struct Delta {
    std::int64_t wait = 0;
    double bsd = 0;
    double nuwt_sum = 0;
  };
  Delta evaluate(TabuCriteria& candidate);
  static double job_bsd(const Entry& e, Time start);

  Planner profile_;
  std::unordered_map<JobId, Entry> planned_;
  ByStart by_start_;
  std::unordered_map<JobId, Running> running_;
  std::set<std::pair<Time, JobId>> running_by_end_;
  std::unordered_map<int, int> user_of_id_;  // trace user id -> index
  std::vector<UserTotals> users_;
  std::vector<JobId> movable_;
  std::unordered_map<JobId, std::size_t> movable_at_;
  std::int64_t next_order_ = 0;

  // The search's view: sums of the current plan and the journal of a move.
  bool journaling_ = false;
  std::vector<Move> journal_;
  std::int64_t wait_sum_ = 0;     // over waiting jobs: start - submit
  std::int64_t duration_sum_ = 0;
  double bsd_sum_ = 0;
  std::vector<std::int64_t> user_delta_;  // scratch, per user
  std::vector<int> touched_;
  double nuwt_sum_ = 0;
  TabuCriteria current_;
};

class TabuPolicy final : public Policy {
 public:
  struct Options {
    bool safe = false;
    Time period = 300;           // seconds between searches; 0: never search
    std::int64_t budget = 2;     // iterations per waiting job
    std::size_t tabu_size = 10;
    std::uint64_t seed = 1;
    double time_limit = 2.0;     // wall-clock seconds per search, live only
  };

  explicit TabuPolicy(Options options);

  std::string name() const override;
  StepResult step(const Snapshot& snapshot) override;
  std::vector<PlannedStart> reservations() const override;
  const Planner* plan() const override { return &plan_.profile(); }

  // The plan's start of every waiting job (promises or predictions).
  std::vector<PlannedStart> planned_starts() const { return plan_.starts(); }
  const TabuSearchStats& stats() const { return stats_; }
  const TabuPlan& tabu_plan() const { return plan_; }

 private:
  bool apply_events(const Snapshot& snapshot, bool& freed);
  void rebuild(const Snapshot& snapshot);

  Options options_;
  TabuPlan plan_;
  std::mt19937_64 rng_;
  Time next_search_;
  TabuSearchStats stats_;
};

PolicyPtr make_tabu(const PolicySpec& spec);

}  // namespace los
