// The plan of the tabu policy (spec: ../shared/specs/fairness-tabu.md).
//
// The plan data structure (TabuPlan) is the paper's own (spec 2.2): an
// ordered list of the waiting jobs and the running jobs' expected ends. The
// starts are a function of the list: replaying it, each job takes the units
// that are free first (FreeAt). Compression is that replay, so it keeps the
// order of starts as the paper requires; insertion finds the earliest
// position and start that delay nobody (spec 2.4, exact, in one pass). One
// search move is a replay of the list after the removed job (from a saved
// state), one insertion pass and a sum over the starts that changed, all on
// a copy: a rejected move costs nothing to undo, the copy is dropped. No
// profile is maintained during the search: the availability profile
// (profile()) is derived when asked for.
//
// Compression keeps the order of starts (the paper, after Klusacek's
// thesis; [I] in the spec): a job moves earlier only as far as the jobs
// before it in the list allow. Our `conservative` compresses each
// reservation to its earliest start instead, which may reorder; with exact
// estimates (no early ends) the two plans are the same, `tabu:period=0` =
// conservative.
#pragma once

#include <algorithm>
#include <cstdint>
#include <set>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "planner/free_at.hpp"
#include "planner/planner.hpp"
#include "planner/running_profile.hpp"
#include "planner/start_bound.hpp"
#include "policies/tabu_criteria.hpp"
#include "policy/policy.hpp"
#include "policy/step_budget.hpp"

namespace los {

// The conservative plan with the per-user totals the fairness criterion needs.
class TabuPlan {
 public:
  struct Entry {
    JobId id;
    int user;  // index into the user table
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
  // end_running(id, now) for every running job that `running` does not
  // list: it left while no event said so (a snapshot to rebuild from).
  void end_missing(std::span<const RunningJob> running, Time now);
  // Earliest end expected among running jobs (kTimeInfinity if none).
  Time first_running_end() const;
  // Every running job whose expected end is at or before `now` (it overran
  // its estimate; Slurm has not ended it yet) is expected to end at now + 1,
  // as a plan built from the snapshot expects it (RunningJob::expected_end).
  // Returns whether any did; then the plan must be compressed. Call after
  // advance_to(now).
  bool extend_overruns(Time now);
  // Puts the movable jobs in list order, the order a plan built by append()
  // has them in (the search picks its moves by that order).
  void order_movable_as_listed();

  // Conservative insertion: the earliest start that delays no reservation
  // (the job goes into the list before the first job it must precede).
  // Returns kTimeInfinity (and plans nothing) if the job is larger than the
  // machine. `promise` carries a promise over from a previous plan (a
  // rebuild); otherwise the start found becomes the job's promise.
  Time insert(const Job& job, Time now, Time promise = kTimeInfinity);
  // insert(job, now) for every job of `queue` not yet listed, in queue
  // order, with the same list, starts and promises as those calls. Each job
  // costs one Planner::earliest_start (which still steps over every block of
  // the profile too short for it: 0.55 ms at 100,000 jobs, against 6.5 ms
  // for the scan; docs/benchmarks.md, issue 17) and the list is merged once.
  void insert_all(std::span<const Job> queue, Time now);
  // The same, as far as `budget` goes (a search per job): the jobs it did
  // not reach stay unlisted, and a later call inserts them after the others,
  // as if they had arrived then. When nothing happens in between, the two
  // calls give the list and starts of one (insertions are in queue order;
  // among equal starts a later insertion goes first in both).
  // With fill_when_cut, once the budget is spent each job it did not reach
  // that fits now for its whole planned duration (by the profile) is still
  // inserted, at now, in queue order (fill_now()); the others wait.
  void insert_all(std::span<const Job> queue, Time now, StepBudget& budget, bool fill_when_cut = false);
  // Where insert() puts a job of `size` x `duration` (planned) and when it
  // starts: by the list scan of the spec (2.4), and by the availability
  // profile (insertion_by_profile() requires profile_insertion(): see
  // there). For tests, which hold the two equal.
  std::pair<std::size_t, Time> insertion_by_scan(int size, Time duration) const {
    return earliest_insert(list_, size, duration);
  }
  std::pair<std::size_t, Time> insertion_by_profile(int size, Time duration) const;
  // The list is a fixed point of the replay and the running jobs fit the
  // machine: an insertion can be read off the profile.
  bool profile_insertion() const;
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
  // A job to keep in a rebuild, as the snapshot has it, with its promise.
  struct KeptJob {
    const Job* job;
    Time promise;
  };
  // reset(capacity, now) and then append(*k.job, now, k.promise) for each
  // of `kept`, in order: the same plan. When `kept` is a subsequence of the
  // list (a rebuild keeps the listed jobs still queued, in their order), it
  // is done in place: the id tables lose the jobs that left instead of being
  // emptied and refilled (a resync of 100,000 waiting jobs).
  void reset_keeping(int capacity, Time now, std::span<const KeptJob> kept);
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

  // Recomputes the criteria and sums the search works from; a search calls
  // it before its first try_move().
  void prepare();
  const TabuCriteria& current() const { return score_.current(); }

  enum class MoveResult { Kept, Rejected, Unsafe };
  // One move of the search, kept or dropped by the criteria: remove `id`,
  // compress, re-insert at the earliest start, all on a copy of the list.
  // Unsafe: `safe` and the job would start after its promise.
  MoveResult try_move(JobId id, Time now, bool safe);
  // For tests: where try_move(id, now, safe) re-inserts listed job `id`
  // (position in the list without it, start), by the spec's scan
  // (earliest_insert) and, when the list is a fixed point (`probed`), by
  // insertion_after_removal(). Past the give-up (a safe move's promise)
  // only "some start after it" is specified. The plan does not change.
  struct MoveInsertions {
    std::pair<std::size_t, Time> by_scan;
    std::pair<std::size_t, Time> by_probe;
    bool probed = false;
    Time give_up = kTimeInfinity;
  };
  MoveInsertions move_insertions(JobId id, Time now, bool safe);

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

  void add_movable(JobId id);
  void drop_movable(JobId id);
  // append()'s entry for `job`, starting at `now` with `promise`, counted in
  // its user's totals; not placed in list_ or the id tables.
  Entry appended_entry(const Job& job, Time now, Time promise);
  // insert_all()'s fill past its budget: stages, at now_, the jobs of `rest`
  // not listed that fit now for their whole planned duration, in order.
  void fill_now(std::span<const Job> rest, std::vector<Entry>& staged);
  // Merges insert_all()'s staged insertions (in insertion order) into the
  // list: by start, a later insertion first among equal starts, before the
  // jobs already listed.
  void merge_staged(std::vector<Entry>& staged);
  // Drops `id` from the id tables (listed, movable position).
  void unlist(JobId id);
  // Takes the listed and running jobs out of the user totals (a rebuild
  // adds back those it keeps); finished jobs stay in them.
  void forget_totals();
  // The free times of the units at `now_` given the running jobs.
  const FreeAt& base() const;
  // Replays `list` from position `from` on, `free` holding the units' free
  // times before that position: sets every start, journals the changes (if
  // `journal`).
  void replay(std::vector<Entry>& list, std::size_t from, FreeAt& free, std::vector<TabuStartChange>* journal) const;
  // A move's replay of candidate_ (scan_, journal_) on from probed_to_ up to
  // position `until`, recording for a job of `size` what
  // insertion_after_removal() reads (probe_start_, probe_fits_); stops after
  // a position where that job's start passes `stop_past`. Reaching the end
  // also records its start after the last position.
  void replay_probing(std::size_t until, int size, Time stop_past);
  // The free times before position `pos` of the current list, into `free`
  // (from the nearest mark: the prefix of a list that did not change is not
  // replayed again). Rebuilding the marks also sets slack_ and fixed_point_.
  void free_before(std::size_t pos, FreeAt& free) const;
  // earliest_insert(candidate_, size, duration, give_up) for a move: candidate_
  // is list_ without position `at`, replayed from `at` by replay_probing()
  // for this size, and list_ is a fixed point (fixed_point_). The same
  // answer without stepping a FreeAt through the list (see there); the
  // replay is taken on as far as the answer needs, to the end unless it
  // gives up.
  std::pair<std::size_t, Time> insertion_after_removal(std::size_t at, int size, Time duration, Time give_up);
  // Its scan; kLazy: the replay may stop short and is taken on as read.
  template <bool kLazy>
  std::pair<std::size_t, Time> scan_after_removal(std::size_t at, int size, Time duration, Time give_up);
  // A move's first half: candidate_ is list_ without `id`, replayed from its
  // position (journal_ holds the changed starts), with the probe for the
  // job's insertion when list_ is a fixed point (`probed`): then a `safe`
  // move's replay stops where the job would start after its promise, and
  // insertion_after_removal() takes it on as far as it reads. Returns the
  // position, list_.size() if `id` is not listed.
  std::size_t remove_for_move(JobId id, bool safe, bool& probed);
  // Where a job of `size` x `duration` goes in `list` and when it starts
  // (spec 2.4, exact). Stops early, with some start after `give_up`, once
  // the start would be later than that.
  std::pair<std::size_t, Time> earliest_insert(const std::vector<Entry>& list, int size, Time duration,
                                               Time give_up = kTimeInfinity) const;
  // The sums of the waiting jobs of the list, counted again.
  TabuWaitingSums waiting_sums() const;
  // The list or the running jobs changed: derived state is stale.
  void changed() {
    profile_dirty_ = true;
    marks_valid_ = false;
  }
  // `size` units over [start, start + duration) are taken (delta < 0) or
  // given back (delta > 0) in the plan: the profile follows if it is
  // current (an insertion keeps it current, so a burst of arrivals does not
  // rebuild it), and the marks are stale.
  void shift_profile(Time start, Time duration, int size, int sign) {
    marks_valid_ = false;
    const Time a = std::max(start, now_);
    const Time b = start + duration;
    if (!profile_dirty_ && a < b) profile_.add(a, b, sign * static_cast<std::int64_t>(size));
  }
  // The profile follows the starts in `changes` (a compression, a kept move).
  void shift_profile(const std::vector<TabuStartChange>& changes);
  // insert() at now_: by the profile (profile_insertion() must hold) or by
  // the scan.
  Time insert_now(const Job& job, Time promise, bool by_profile);
  // insert_all() rebuilds a stale profile for this many arrivals or more.
  static constexpr std::size_t kRebuildForArrivals = 8;
  // A bound voided by gained units is seeded from the profile (one pass
  // over it) for this many arrivals or more.
  static constexpr std::size_t kSeedForArrivals = 64;
  // A new list entry, its user totals and its promise; not placed in list_.
  Entry make_entry(const Job& job, Time start, Time promise);

  int capacity_;
  Time now_;
  std::vector<Entry> list_;
  std::unordered_set<JobId> listed_;
  std::unordered_map<JobId, Running> running_;
  std::set<std::pair<Time, JobId>> running_by_end_;
  TabuScore score_;
  std::vector<JobId> movable_;
  std::unordered_map<JobId, std::size_t> movable_at_;
  std::size_t unconfirmed_ = 0;

  // Derived state, rebuilt on demand.
  mutable FreeAt base_;
  mutable bool base_dirty_ = true;
  // The running jobs hold more units than the machine has (base() clamps
  // them; the profile does not): insertions fall back to the scan.
  mutable bool overbooked_ = false;
  // The list is a fixed point of the replay (every start is what
  // compression gives): false after append(), remove(), an early end or a
  // new running job, until compress().
  bool replayed_ = true;
  mutable Planner profile_;
  mutable bool profile_dirty_ = true;
  // insert_all()'s searches start from the latest start found for a smaller
  // shape while the profile only lost units (planner/start_bound.hpp).
  StartBound insertion_bound_;
  // The profile the bound's starts were found in: its rebuild count and its
  // additions() then. While both stay, the profile has only lost units and
  // the bound still holds (a step's budget splits a re-plan of the queue
  // over many insert_all calls; each starting afresh walked the plan from
  // now for its first jobs, 33 us an insertion at 100,000 jobs).
  mutable std::uint64_t profile_builds_ = 0;
  std::uint64_t bound_builds_ = ~std::uint64_t{0};
  std::uint64_t bound_additions_ = 0;
  // The free times before every mark_every_-th position of the list.
  mutable std::vector<FreeAt> marks_;
  mutable bool marks_valid_ = false;
  // The marks' spacing, chosen at each rebuild (mark_spacing()), and what
  // chooses it: the reads (free_before() calls) since the last rebuild and
  // the buckets a mark held on average then.
  mutable std::size_t mark_every_ = 32;
  mutable std::size_t mark_reads_ = 0;
  mutable std::size_t mark_buckets_ = 0;
  // The spacing for a list of `n` positions whose marks hold `buckets` free
  // times each, read `reads` times before the next rebuild.
  static std::size_t mark_spacing(std::size_t n, std::size_t buckets, std::size_t reads);
  // Built with the marks: per position, the units free by the job's start
  // beyond its own size (a job of size k placed before it delays it iff k >
  // slack); and whether every start is the replay's (list_ is a fixed point).
  mutable std::vector<std::int64_t> slack_;
  mutable bool fixed_point_ = false;
  // replay_probing()'s record over the replayed positions of the candidate
  // from the removed job's: the moved job's start before each position (and
  // after the last), and whether it fits before each without delaying that
  // job.
  std::vector<Time> probe_start_;
  std::vector<unsigned char> probe_fits_;
  std::size_t probed_to_ = 0;  // the candidate's positions before this one are replayed
  FreeAt prefix_scan_;

  // Scratch reused by every move (no allocation per iteration).
  std::vector<Entry> candidate_;
  std::vector<TabuStartChange> journal_;
  mutable FreeAt scan_;
};

}  // namespace los
