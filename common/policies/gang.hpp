// Gang scheduling and its combinations with backfilling and migration:
// GS, BGS, MGS, MBGS (Zhang, Franke, Moreira, Sivasubramaniam, "An Analysis
// of Space- and Time-Sharing Techniques for Parallel Job Scheduling"; the
// implementer's spec is ../shared/specs/gang-migration.md, cited as §x.y).
//
// One policy class; the four techniques differ in two flags:
//   gang  Clean, Compact, Schedule (FCFS, stop at the first misfit), Fill
//   bgs   as gang, but Schedule is conservative backfilling inside each row
//         with wall-clock estimates MPL x estimate, and Compact keeps the
//         reservations (§2.4)
//   mgs   gang + CollapseMatrix-2 / Schedule-2 / FillMatrix-2 (migration by
//         checkpoint/restart, options 1 and 2 of §2.5, Q tasks per slice)
//   mbgs  bgs + the same migration phases, which also keep reservations
//
// Slice timing is the spec's model S (§1.3.1): slices of `slice` seconds run
// back to back on the active row and move to the next non-empty row at the
// end (a policy wake-up); arrivals and completions recompute the matrix at
// once, the current slice keeps its row and remaining length, and jobs that
// change state are suspended / resumed at that instant. A job switched into
// execution pays cs% of the slice as a stall (Decision::overhead), also at
// its first start unless charge_start=false. Migration stalls are kept per
// job and charged when it next resumes (a job that keeps executing is
// suspended and resumed at once to take its checkpoint stall).
//
// Choices the paper leaves open, each fixed here (spec §7):
//   - start time = first execution (the simulator's start), §3.1;
//   - the scheduler runs once per timestamp (all completions and arrivals of
//     one instant), then the slice boundary if it falls there;
//   - columns: lowest-numbered free columns; best-fit row ties and row
//     orders break by lowest index; Compact/Collapse move jobs only into rows
//     at least as populated as their source;
//   - BGS reservations (plan=keep, the default) are kept across events and
//     compressed when capacity frees, never moved later, exactly as the
//     `conservative` policy does (so bgs with mpl=1 is conservative); a
//     running job holds its home row from its placement for MPL x estimate
//     (the spec's start-based form); if overheads push it past that, its row
//     is re-planned with one more cycle (MPL x slice) for it; a reserved job
//     may start early in another row. plan=rebuild is the spec's default
//     instead: all reservations dropped and re-planned in FCFS order at every
//     event, running jobs holding MPL x remaining estimate (the policy tracks
//     each job's progress as the simulator does: stall first, then work);
//   - migration moves only jobs that may move: a started job whose
//     Job::migratable is false (live: it did not opt in, docs/gang-live.md)
//     is never relocated (option 1) nor moved to other columns (option 2,
//     FillMatrix-2); a job not started yet is not migrated by a move.
//     Every simulated job is migratable, so simulation is unchanged;
//   - live, a migrated job is requeued by losd and comes back through the
//     queue (Ended, then Arrived or Started again): it keeps its matrix
//     place and is started on its new columns with its row's slice;
//   - migration: odd C splits into floor(C/2) + ceil(C/2); equal costs
//     prefer fewer migrated tasks, then option 2; a job moved in one event is
//     not moved again in it; Q is counted per slice (reset at each boundary);
//     CollapseMatrix-2 / Schedule-2 are skipped when no job waits after
//     Schedule-1 (migrate_idle=true runs them anyway).
//
// Resync (snapshot.resync: a losd restart, `losctl set-policy`, a lost
// message) rebuilds the whole state from the snapshot alone; no event is
// needed and nothing of the previous state is kept:
//   - matrix: row 0 is the active row and holds every executing job on its
//     units (RunningJob::nodes; a job with no valid unit list takes the
//     lowest free columns). Suspended jobs follow, one at a time in order of
//     (first start, id), each in the lowest row 1..MPL-1 where all its
//     columns are free (first fit), row 0 only if none is. Rows are thus
//     renumbered (the active row first) and packed first-fit; placement
//     order, which Fill and Compact follow, is executing jobs then suspended
//     ones, each by (first start, id). Replicas are not rebuilt: Fill makes
//     them again;
//   - a job that fits no row (more jobs overlap on a unit than MPL rows, or
//     two executing jobs share a unit) is never dropped and never started
//     again: it is kept aside, suspended (an executing one is suspended at
//     this step), and at each later recompute it is placed, on its own
//     columns and before any queued job, in the first row where they are
//     free (and, BGS, where the row's plan has room for it); its Resume
//     comes with its row's slice. Its completion or cancellation is
//     accepted as for any matrix job;
//   - the queue is then scheduled (Schedule-1, in queue order: BGS
//     reservations are re-planned from it) and the matrix filled
//     (FillMatrix-1); Compact and the migration phases wait for the next
//     event, so a resync of a consistent state suspends nothing;
//   - the slice clock restarts at the snapshot's time: the first non-empty
//     row (row 0 when anything executes) gets a full slice from `now`;
//   - BGS: a running job holds its row until first start + MPL x estimate,
//     or for one more cycle (MPL x slice) if that is already past; with
//     plan=rebuild its work done restarts at 0: it holds its row for MPL x
//     its whole estimate from now;
//   - migration: pending stalls and the per-slice task count are reset.
// Without resync the state follows the events, as in simulation.
#pragma once

#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "planner/planner.hpp"
#include "policies/gang_matrix.hpp"
#include "policies/gang_row_plan.hpp"
#include "policy/policy.hpp"
#include "policy/step_budget.hpp"

namespace los {

struct GangOptions {
  int mpl = 5;                // rows of the matrix (multiprogramming level)
  Time slice = 200;           // seconds
  double cs_percent = 0;      // context-switch stall, % of the slice
  bool charge_start = true;   // first starts pay the switch-in stall too
  bool backfill = false;      // BGS / MBGS
  bool migrate = false;       // MGS / MBGS
  Time migration_cost = 10;   // C: seconds per migrated job (checkpoint + restart)
  long long max_tasks = 64;   // Q: tasks migrated per slice; -1 unlimited
  bool migrate_idle = false;  // run CollapseMatrix-2 even with no job waiting
  // BGS / MBGS: false keeps reservations across events and compresses them
  // (never later; bgs with mpl=1 is conservative); true is the spec's §2.4
  // default: every event drops all reservations and re-plans the queue in
  // FCFS order, running jobs holding their row for MPL x remaining estimate.
  bool rebuild_plan = false;
  // BGS / MBGS: a job holds its row for plan_factor x its estimate (waiting
  // jobs' reservations, running jobs' holds); 0 is MPL, the spec's bound on
  // the wall time under time sharing (§2.4). Other values are ablations.
  Time plan_factor = 0;
  // BGS / MBGS: print the plan's counters (PlanStats) to stderr at the end.
  bool stats = false;
  // Live (losd), not part of the spec: a job that ends and is back in the
  // snapshot at once (requeued for migration) keeps its place in the matrix.
  bool live = false;
  // BGS / MBGS: how a row's compression finds the holders to revisit
  // (gang_row_plan.hpp); FullScan is the reference the tests compare with.
  GangRowPlan::Compression compression = GangRowPlan::Compression::Indexed;
  // BGS / MBGS with plan=keep: a step's budget (docs/policies.md, "A step's
  // budget"): at most `searches` planning searches a step (0: no count) and,
  // live, at most `live_seconds` of them; the rest goes on in the next steps.
  // plan=rebuild re-plans everything at every event and takes no budget.
  std::int64_t searches = 0;
  double live_seconds = 0.015;
};

class GangPolicy final : public Policy {
 public:
  GangPolicy(GangOptions options, std::string label);
  ~GangPolicy() override;  // prints the plan's counters with stats=true

  std::string name() const override { return label_; }
  // The matrix follows the events and is rebuilt from a resync snapshot.
  Capabilities capabilities() const override {
    return {.resync = true,
            .time_sharing = true,
            .wall_clock_budget = budgeted() && options_.live && options_.live_seconds > 0,
            // with one row BGS is conservative: reservations() are start times
            .promises_every_start = budgeted() && options_.mpl == 1,
            .jobs_per_node = options_.mpl};
  }
  StepResult step(const Snapshot& snapshot) override;
  // With mpl=1 a reservation is a start time; with more rows it only
  // promises a place in a row (execution waits for the row's slice), so
  // none are reported.
  std::vector<PlannedStart> reservations() const override;

  const GangOptions& options() const { return options_; }
  const GangMatrix* matrix() const { return matrix_ ? &*matrix_ : nullptr; }
  int active_row() const { return active_; }
  // BGS / MBGS: the reservations of one row, by (start, creation order).
  std::vector<PlannedStart> row_reservations(int row) const;
  // The last step's budget left planning for the next one.
  bool planning_left() const { return planning_left_; }
  // BGS / MBGS: what the plan did so far (the stats parameter prints it).
  struct PlanStats {
    long long reservations = 0;        // reservations made by Schedule
    long long compress_moves = 0;      // reservations moved earlier by a compression
    Time compress_seconds = 0;         // by how much in all
    long long ended = 0;               // matrix jobs that ended
    long long ended_early = 0;         // ... before their hold on the row ran out
    Time early_slack_seconds = 0;      // hold left at those ends, in all
    long long overrun_jobs = 0;        // jobs still running when their hold ran out
    long long overrun_extensions = 0;  // holds extended by a cycle (MPL x slice)
    long long replan_delays = 0;       // reservations moved later by those re-plans
    Time replan_delay_seconds = 0;     // by how much in all
  };
  const PlanStats& plan_stats() const { return plan_stats_; }
  std::string stats_line() const;

 private:
  // BGS: a running job's hold on its home row, [placed, end).
  struct Occupation {
    int row;
    int size;
    Time end;
    Time estimate;         // dedicated estimate, >= 1
    bool overran = false;  // its hold was extended (counted once in PlanStats)
  };
  // Dedicated work done, as the simulator counts it: while executing a job
  // first pays its stall budget, then progresses (plan=rebuild only).
  struct Progress {
    Time since = -1;  // executing since (or -1)
    Time budget = 0;  // stall not yet paid
    Time done = 0;    // work done up to `since`
  };
  struct Reservation {
    int row;
    int size;
    Time start;
    Time duration;
    std::int64_t order;
    Planner::SpanId span;  // in plans_[row].planner()
  };
  using RowPlan = GangRowPlan;  // profile, reservations by start, search bound

  // Whether a step's budget applies (BGS / MBGS with plan=keep), and the
  // budget of one step.
  bool budgeted() const { return options_.backfill && !options_.rebuild_plan; }
  StepBudget step_budget(const Snapshot& s) const;

  void init(const Snapshot& s);
  void resync(const Snapshot& s, StepBudget& budget);
  std::vector<int> units_of(const RunningJob& r, int columns) const;
  Time hold_end(Time start, Time estimate, Time now) const;
  void place_running(JobId id, Time start, Time estimate, int row, std::vector<int> cols, Time now);
  void place_orphans(Time now);
  void apply_events(const Snapshot& s);
  // A job leaves the matrix (it ended, or was withdrawn after admission):
  // its cell, stall and progress go, and with backfilling its row gets back
  // the rest of its planned hold; `ended` counts it in the plan's stats.
  void leave_matrix(JobId id, Time now, bool ended);
  void replan_overruns(Time now, StepBudget& budget);
  void rebuild_row(int row, Time now, StepBudget& budget);
  // Re-plans a holder of the row it names at its earliest start from now.
  void replan_reservation(JobId id, Reservation& r, Time now);
  // Re-plans the holders replan_backlog_ keeps, in order, as far as the
  // budget goes.
  void replan_backlog(Time now, StepBudget& budget);
  void compress(int row, Time now, StepBudget& budget);
  // The rows that gained units, and those whose compression the budget
  // stopped.
  void compress_freed(Time now, StepBudget& budget);

  std::vector<int> rows_by_population(bool ascending) const;
  bool fits_reservations(int row, JobId id, Time now) const;
  void move_home(JobId id, int to_row, std::vector<int> cols, Time now);
  void compact(Time now);
  void collapse_with_migration(Time now);
  bool schedule_gang(const Snapshot& s);
  // Past the budget only due reservations start: no job is started or
  // reserved ahead of the ones not planned yet.
  bool schedule_backfill(const Snapshot& s, StepBudget& budget);
  void fill();
  void fill_with_migration();
  bool migration_fits(long long tasks) const;
  void pin(const Snapshot& s);
  bool pinned(JobId id) const { return pinned_.count(id) != 0; }
  // Live: the jobs that ended in `s`'s events and are in its queue or
  // running set again (requeued for a migration). Empty in simulation.
  std::unordered_set<JobId> requeued(const Snapshot& s) const;
  void relocate_out_of(JobId job, int row, const std::vector<int>& avoid);

  void place(JobId id, int size, int row, Time now, Time duration);
  void drop_reservation(JobId id);
  // A holder whose reserved start passed with no step at it (live, the
  // next cycle came later): its row's earliest start from now, usually now;
  // the rest of the plan stays. Returns the new reservation.
  Reservation reserve_missed_again(JobId id, Time now);
  Time plan_factor() const;  // options_.plan_factor, 0 resolved to MPL
  Time planned_duration(const Job& j) const;

  Time next_reserved_start() const;
  Time done_now(JobId id, Time now) const;
  void track_switches(const std::vector<Decision>& decisions, Time now);
  void rebuild_plans(Time now, bool with_reservations);
  void advance_slice(Time now, bool idle_before);
  std::vector<Decision> switch_to_active_row(const Snapshot& s);
  StepResult finish_step(const Snapshot& s, const StepBudget& budget);

  GangOptions options_;
  std::string label_;
  Time cs_stall_;
  std::optional<GangMatrix> matrix_;
  int active_ = 0;
  Time slice_end_ = kTimeInfinity;
  long long tasks_migrated_in_slice_ = 0;
  std::unordered_map<JobId, Time> pending_stall_;  // migration stalls not yet charged
  std::unordered_set<JobId> moved_in_event_;
  // Started jobs that may not migrate (Job::migratable false), this step.
  std::unordered_set<JobId> pinned_;
  // Started jobs a resync could not fit in the matrix, in order of (first
  // start, id): suspended until a row has their columns free.
  struct Orphan {
    JobId id;
    int size;
    std::vector<int> cols;  // empty: unknown units, any free columns
    Time start;
    Time estimate;
  };
  std::vector<Orphan> orphans_;

  std::vector<RowPlan> plans_;
  std::vector<bool> freed_;
  std::unordered_map<JobId, Occupation> occupied_;
  std::unordered_map<JobId, Reservation> reserved_;
  std::int64_t next_order_ = 0;
  std::unordered_map<JobId, Progress> progress_;
  PlanStats plan_stats_;
  // The last step's budget left planning undone (jobs not planned, a row's
  // compression stopped): the next step goes on with it, event or not.
  bool planning_left_ = false;
  // Holders of rows re-planned by rebuild_row() that the budget did not
  // reach, in the re-plan's order, out of reserved_ until re-planned: first
  // in the next steps; while any wait, the budget is spent, so nothing is
  // started or reserved ahead of them.
  std::vector<std::pair<JobId, Reservation>> replan_backlog_;
  // Compact has yet to run: an event or a due reservation asked for it, and
  // the budget ran out before it (in re-plans) or it has not run since.
  bool compact_due_ = false;
};

// gang's parameters; bgs adds plan, mgs adds c, q and migrate_idle, mbgs all.
const ParamTable& gang_parameters();
const ParamTable& bgs_parameters();
const ParamTable& mgs_parameters();
const ParamTable& mbgs_parameters();
PolicyPtr make_gang(const ParamValues& values, RunMode mode);
PolicyPtr make_bgs(const ParamValues& values, RunMode mode);
PolicyPtr make_mgs(const ParamValues& values, RunMode mode);
PolicyPtr make_mbgs(const ParamValues& values, RunMode mode);

}  // namespace los
