// Backfilling with a reservation depth: EASY, conservative, aggressive, depth-k.
//
// One algorithm (Mu'alem & Feitelson; the LOS thesis, appendix A): walking
// the queue in order, a job that fits now without delaying any reservation
// starts now; otherwise, while fewer than `depth` jobs hold a reservation, it
// is given one at the earliest time it fits in the profile.
//   aggressive    depth 0    no reservations at all
//   easy          depth 1    the first blocked job holds the only reservation
//   depth:k=K     depth K
//   conservative  unlimited  every waiting job holds a reservation
//
// Reservations are promises kept across steps. When a job ends earlier than
// its estimate the freed capacity is handed out by compression: holders are
// revisited in order of their reserved start and each moves to its earliest
// start if that is earlier. A holder never moves later, so (while running
// jobs honour their estimates) no job starts after its first reservation.
// With reservation depth 1 this is exactly EASY's shadow time and extra
// units: the profile counts every job that ends at or before the shadow time
// towards the extra units.
//
// Compression visits only holders that could move. After a pass the plan is
// a fixpoint: no holder can start earlier (a move frees units only at or
// after the mover's old start, where no holder visited before it could use
// them). A holder can then move only through a point that gained units since
// (the planner's gain log: early ends, withdrawals, the pass's own moves),
// and only as far as the run of enough free units through that point
// reaches; the holder index skips every holder whose size, start and
// duration rule that out. Same moves as visiting every holder (kept as
// Compression::FullScan, the reference the tests compare with; the pass is
// planner/indexed_compression.hpp, shared with the gang rows), at a cost
// per event of O((moves + 1) x log n) plus the holders that the bound cannot
// rule out, instead of O(holders x log n).
//
// Conservative's pass visits every job, but a job that held a reservation at
// the end of the last pass, and still sits in the same order, is known to
// hold one without a look-up: only the few due now need their reservation.
//
// Beyond the depth, the queue pass visits only the jobs that could start or
// end the pass: the holders due now, and the jobs whose size and estimate
// (kept beside the jobs by JobQueue) pass the refusals by free units and by
// the first reservation (Pass::Skipping; step() has the proof). Under EASY
// at high load that is a few of thousands of waiting jobs per step.
//
// State: the running jobs' profile (RunningProfile), the reservations on top
// of it. Both are rebuilt from the snapshot when the events do not explain it
// (a resync, a start this policy did not decide, a job past its estimate).
#pragma once

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "model/job_id_index.hpp"
#include "planner/compression_sweep.hpp"
#include "planner/holder_index.hpp"
#include "planner/indexed_compression.hpp"
#include "planner/running_profile.hpp"
#include "planner/start_bound.hpp"
#include "policy/policy.hpp"
#include "policy/step_budget.hpp"

namespace los {

// A step's budget (docs/policies.md, "A step's budget"): at most `searches`
// planning searches a step (0: no count) and, live, at most `live_seconds`
// of wall-clock time (0: none). A step that runs out hands out nothing more,
// keeps the rest of its work (holders still to re-plan after a rebuild, a
// compression's sweep) for the next step, and asks to be called again a
// second later. The default is no budget. With `fill_now` (stopped=fill), a
// cut step still starts what fits now (the holders a stopped compression has
// not reached: BackfillingPolicy::start_fitting_holders; the jobs the pass
// has not planned), and a compression carried over from an earlier step
// takes at most half of a step's budget, leaving the pass the rest.
struct BackfillingLimits {
  std::int64_t searches = 0;
  double live_seconds = 0;
  bool fill_now = true;
};

class BackfillingPolicy final : public Policy {
 public:
  static constexpr int kUnlimited = std::numeric_limits<int>::max();

  // How compression finds the holders to revisit: Indexed (the default)
  // skips those that cannot move; FullScan tries every one (the reference).
  enum class Compression { Indexed, FullScan };
  // How the queue pass beyond the depth finds the jobs to test: Skipping
  // (the default) jumps over those it would refuse by size without reading
  // them (JobQueue::first_at_most); Plain reads every job (the reference).
  enum class Pass { Skipping, Plain };

  using Limits = BackfillingLimits;

  // `label` is the canonical spelling returned by name().
  BackfillingPolicy(int depth, std::string label, Compression compression = Compression::Indexed,
                    Pass pass = Pass::Skipping, Limits limits = {}, RunMode mode = RunMode::Simulation);

  std::string name() const override { return label_; }
  Capabilities capabilities() const override {
    return {.wall_clock_budget = mode_ == RunMode::Live && limits_.live_seconds > 0,
            .promises_every_start = depth_ == kUnlimited};
  }
  StepResult step(const Snapshot& snapshot) override;
  std::vector<PlannedStart> reservations() const override;
  const Planner* plan() const override { return &profile_.planner(); }

  int depth() const { return depth_; }

 private:
  struct Reservation {
    int size;
    Time start;
    Time duration;
    std::int64_t order;  // creation order: breaks ties between equal starts
    Planner::SpanId span;
  };

  StepBudget step_budget(const Snapshot& s) const;
  bool update(const Snapshot& snapshot, bool& freed);
  // Releases holder h's span and reserves it again at its earliest start
  // from now (a copy: the index entry goes).
  void reserve_again(HolderIndex::Holder h, Time now);
  // Gives the holders whose reserved starts passed with no step at them the
  // earliest start from now (docs/policies.md, "Missed starts").
  void replace_missed_starts(Time now, bool& freed);
  // Live, after a job past its limit took its units for another second:
  // moves holders due now, the latest promises first, until none is
  // overbooked; false when the running jobs alone overbook (rebuild).
  bool move_overbooked_holders(Time now, bool& freed);
  void rebuild(const Snapshot& snapshot, StepBudget& budget);
  // Re-plans a holder of before a rebuild (a queued job holding nothing now).
  void replan_holder(const Job& job, Time now);
  // Re-plans the holders a rebuild's budget left in replan_backlog_, in
  // their old order, as far as the budget goes.
  void replan_backlog(const Snapshot& snapshot, StepBudget& budget);
  // The compression, stopped where `budget` (and `share`, a part of it, if
  // given) refuses a search.
  void compress(Time now, StepBudget& budget, StepBudget* share = nullptr);
  void compress_full_scan(Time now);
  // After a compression the budget stopped: the holders that fit now, in
  // the sweep's order (reserved start), move to now, each while units are
  // free; the pass then starts them. Each move keeps every other
  // reservation where it is (it takes only units free now), so no promise
  // is broken; the stopped sweep stays sound (the moves' gains are logged,
  // and deferred for the holders before its cursor). Unlike the whole
  // compression, a holder may take units that an earlier holder's move,
  // still to come in the sweep, would have taken.
  void start_fitting_holders(Time now);
  // Moves holder `id` (reserved at r.start) to start s, in the planner and
  // in both orders.
  void move_reservation(JobId id, Reservation& r, Time s);
  // The same in the planner only, during an indexed pass: the holder is
  // remembered in moved_ and reindex_moved() updates the index at its end.
  void move_span(JobId id, Reservation& r, Time s);
  void reindex_moved();
  void add_reservation(JobId id, int size, Time start, Time duration, Planner::SpanId span);
  void drop_reservation(JobId id);
  // The reservation of a holder; throws std::logic_error for a job holding none.
  Reservation& reservation_of(JobId id);
  // Planner::earliest_start(size, duration, now) for a new reservation or a
  // start, searched from the bound of earlier insertions (same answer).
  Time insertion_start(std::int64_t size, Time duration, Time now);
  // out := the ids of the holders reserved at `now`, in key order.
  void collect_due_ids(Time now, std::vector<JobId>& out) const;
  // due_at_ := the queue positions >= from of the holders reserved at `now`
  // (each id's first one there), ascending.
  void find_due_holders(const JobQueue& queue, std::size_t from, Time now);

  int depth_;
  std::string label_;
  Limits limits_;
  RunMode mode_;
  RunningProfile profile_;  // running jobs; the reservations sit on top of it
  JobMap<Reservation> reserved_;
  HolderIndex holders_;                     // the holders in order of reserved start, searchable by shape
  std::vector<HolderIndex::Holder> moved_;  // entries (old keys) a pass has yet to update
  Compression compression_;
  Pass pass_;
  std::vector<std::size_t> due_at_;  // find_due_holders(): kept to reuse its memory
  std::vector<JobId> due_ids_;
  // Conservative's pass (unlimited depth, Pass::Skipping): the queued jobs
  // that held a reservation at the end of the last pass, in queue order.
  // Valid until a reservation is dropped outside a pass or the plan is
  // rebuilt; step() has the proof.
  std::vector<JobId> held_order_;
  std::vector<JobId> next_held_order_;
  bool held_order_valid_ = false;
  std::vector<JobId> due_now_;
  std::int64_t next_order_ = 0;
  StartBound visited_;                      // compress()'s bound, kept to reuse its memory
  StartBound insertions_;                   // valid while the planner's additions() stay
  std::uint64_t insertions_additions_ = 0;  // planner.additions() when it was valid
  // What a step's budget left to do (Limits). Holders of before a rebuild
  // not yet re-planned, in their old order: re-planned first in the next
  // step; while any wait, the budget is spent and the pass hands out no
  // start and no reservation ahead of them.
  std::vector<JobId> replan_backlog_;
  // A compression sweep the budget stopped (planner/compression_sweep.hpp
  // has why resuming it is sound).
  CompressionSweep sweep_;
};

PolicyPtr make_easy(const ParamValues& values, RunMode mode);
const ParamTable& conservative_parameters();
PolicyPtr make_conservative(const ParamValues& values, RunMode mode);
PolicyPtr make_aggressive(const ParamValues& values, RunMode mode);
const ParamTable& depth_parameters();
PolicyPtr make_depth(const ParamValues& values, RunMode mode);

}  // namespace los
