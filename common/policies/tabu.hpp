// Conservative backfilling whose plan is improved by tabu search, with a
// user-fairness criterion (Klusacek & Rudova, "Performance and Fairness for
// Users in Parallel Job Scheduling"; spec: ../shared/specs/fairness-tabu.md).
//
// Every waiting job holds a reservation. An arriving job gets the earliest
// start that delays no reservation (conservative backfilling). Every `period` seconds of simulated
// time the plan is optimised by the paper's Algorithm 2: pick a random job
// that is not in the tabu list, remove it, compress the plan, re-insert it at
// its earliest start, and keep the result only when the sum of the relative
// improvements of mean bounded slowdown, wait, response and the fairness
// criterion F is positive. Jobs start when their reservation comes due.
//
// The plan data structure (TabuPlan) is the paper's own (spec 2.2): an
// ordered list of the waiting jobs and the running jobs' expected ends. The
// starts are a function of the list: replaying it, each job takes the units
// that are free first (FreeAt). Compression is that replay, so it keeps the
// order of starts as the paper requires; insertion finds the earliest
// position and start that delay nobody (spec 2.4, exact, in one pass). One
// search iteration is a replay of the list after the removed job (from a
// saved state), one insertion pass and a sum over the starts that changed,
// all on a copy: a rejected move costs nothing to undo, the copy is dropped. No profile is maintained during the
// search: the availability profile (profile()) is derived when asked for.
//
// Design choices the paper leaves open ([I] in the spec) and taken here:
//   - Compression keeps the order of starts (the paper, after Klusacek's
//     thesis): a job moves earlier only as far as the jobs before it in the
//     list allow. Our `conservative` compresses each reservation to its
//     earliest start instead, which may reorder; with exact estimates (no
//     early ends) the two plans are the same, `tabu:period=0` = conservative.
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
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "planner/free_at.hpp"
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
    Time promise;    // the start first reported (until then, the start given at insertion)
    bool starting;   // a start decision was issued; waiting for Started
    bool confirmed;  // the promise was reported (confirm_promises())
  };

  explicit TabuPlan(int capacity = 0, Time origin = 0);

  int capacity() const { return capacity_; }
  Time origin() const { return now_; }
  // The availability profile: running jobs and reservations (derived from
  // the list when asked for; O(n log n) after a change).
  const Planner& profile() const;
  // Time moves on; the plan's starts are unchanged (all are >= now while
  // the plan is current).
  void advance_to(Time now);

  // A job that holds units until `end` (expected). Its wait counts in its
  // user's fixed total and its area in the user's area.
  void add_running(const Job& job, Time start, Time end);
  // The job left the running set at `now`. False if it is unknown. `freed` is
  // set when it ended before its expected end (the plan should be compressed).
  bool end_running(JobId id, Time now, bool& freed);
  bool is_running(JobId id) const { return running_.count(id) != 0; }
  // Earliest end expected among running jobs (kTimeInfinity if none).
  Time first_running_end() const;

  // Conservative insertion: the earliest start that delays no reservation
  // (the job goes into the list before the first job it must precede).
  // Returns kTimeInfinity (and plans nothing) if the job is larger than the
  // machine. `promise` carries a promise over from a previous plan (a
  // rebuild); otherwise the start found becomes the job's promise.
  Time insert(const Job& job, Time now, Time promise = kTimeInfinity);
  // The plan is reported: a job planned since the last call is promised
  // its start as it stands now (a search in the same step may have moved it
  // from where it was inserted).
  void confirm_promises();
  // Puts the job at the end of the list with `promise`; its start is only
  // right after the next compress(). False if it is larger than the machine
  // or already listed.
  bool append(const Job& job, Time now, Time promise);
  // Forgets the reservations and running jobs (a rebuild), keeping what the
  // user totals learned from finished jobs.
  void reset(int capacity, Time now);
  // Deletes a waiting job from the list (no compression). False if unknown.
  bool remove(JobId id);
  // Compression: replays the list, so every job moves as early as the jobs
  // before it allow (never later). Call after units were freed.
  void compress();

  // A waiting job became running by this policy's decision.
  bool start_planned(JobId id, Time start);

  // The entry of a waiting job, or nullptr (O(n)).
  const Entry* find(JobId id) const;
  bool contains(JobId id) const { return listed_.count(id) != 0; }
  std::size_t planned() const { return list_.size(); }
  // The list: waiting jobs in order of start.
  const std::vector<Entry>& entries() const { return list_; }
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
  // One move of the search, kept or dropped by the criteria: remove `id`,
  // compress, re-insert at the earliest start, all on a copy of the list.
  // Unsafe: `safe` and the job would start after its promise. Public for
  // tests and benchmarks.
  MoveResult try_move(JobId id, Time now, bool safe);

  // The jobs the search can move (waiting, not starting), in no fixed order.
  const std::vector<JobId>& movable() const { return movable_; }

  // Sanity check for tests: the list is a fixed point of the replay (its
  // starts are what compression gives), starts do not decrease along it and
  // are not in the past, the profile never overbooks, and the incremental
  // per-user sums match a recount.
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
  struct Move {  // a start that changed in a candidate list
    int user;
    Time submit;
    Time duration;
    Time from;
    Time to;
  };

  int user_index(int user);
  double nuwt(const UserTotals& u, std::int64_t extra_wait) const;
  void add_movable(JobId id);
  void drop_movable(JobId id);
  // The free times of the units at `now_` given the running jobs.
  const FreeAt& base() const;
  // Replays `list` from position `from` on, `free` holding the units' free
  // times before that position: sets every start, journals the changes (if
  // `journal`).
  void replay(std::vector<Entry>& list, std::size_t from, FreeAt& free, std::vector<Move>* journal) const;
  // The free times before position `pos` of the current list, into `free`
  // (from the nearest mark: the prefix of a list that did not change is not
  // replayed again).
  void free_before(std::size_t pos, FreeAt& free) const;
  // Where a job of `size` x `duration` goes in `list` and when it starts
  // (spec 2.4, exact). Stops early, with some start after `give_up`, once
  // the start would be later than that.
  std::pair<std::size_t, Time> earliest_insert(const std::vector<Entry>& list, int size, Time duration,
                                               Time give_up = kTimeInfinity) const;
  // Applies journalled start changes to the user totals.
  void apply_to_users(const std::vector<Move>& moves);
  // What the journalled moves change: the candidate's criteria and sums.
  struct Delta {
    std::int64_t wait = 0;
    double bsd = 0;
    double nuwt_sum = 0;
  };
  Delta evaluate(const std::vector<Move>& moves, TabuCriteria& candidate);
  static double job_bsd(Time submit, Time duration, Time start);
  // The list or the running jobs changed: derived state is stale.
  void changed() {
    profile_dirty_ = true;
    marks_valid_ = false;
  }

  int capacity_;
  Time now_;
  std::vector<Entry> list_;
  std::unordered_set<JobId> listed_;
  std::unordered_map<JobId, Running> running_;
  std::set<std::pair<Time, JobId>> running_by_end_;
  std::unordered_map<int, int> user_of_id_;  // trace user id -> index
  std::vector<UserTotals> users_;
  std::vector<JobId> movable_;
  std::unordered_map<JobId, std::size_t> movable_at_;
  std::size_t unconfirmed_ = 0;

  // Derived state, rebuilt on demand.
  mutable FreeAt base_;
  mutable bool base_dirty_ = true;
  mutable Planner profile_;
  mutable bool profile_dirty_ = true;
  // The free times before every kMarkEvery-th position of the list.
  static constexpr std::size_t kMarkEvery = 32;
  mutable std::vector<FreeAt> marks_;
  mutable bool marks_valid_ = false;

  // The search's view: sums of the current plan, and scratch reused by
  // every move (no allocation per iteration).
  std::int64_t wait_sum_ = 0;  // over waiting jobs: start - submit
  std::int64_t duration_sum_ = 0;
  double bsd_sum_ = 0;
  double nuwt_sum_ = 0;
  TabuCriteria current_;
  std::vector<Entry> candidate_;
  std::vector<Move> journal_;
  mutable FreeAt scan_;
  std::vector<std::int64_t> user_delta_;  // per user
  std::vector<int> touched_;
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

  // `label` is the canonical spelling name() returns; `mode` Live lets the
  // search stop at time_limit wall-clock seconds.
  explicit TabuPolicy(Options options, RunMode mode = RunMode::Simulation, std::string label = "tabu");

  std::string name() const override { return label_; }
  Capabilities capabilities() const override { return {.wall_clock_budget = true}; }
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
  RunMode mode_;
  std::string label_;
  TabuPlan plan_;
  std::mt19937_64 rng_;
  Time next_search_;
  TabuSearchStats stats_;
};

const ParamTable& tabu_parameters();
PolicyPtr make_tabu(const ParamValues& values, RunMode mode);

}  // namespace los
