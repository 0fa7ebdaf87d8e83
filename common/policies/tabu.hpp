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
// The parts: the plan (tabu_plan.hpp: the ordered list, its replay and exact
// insertion, one move), the criteria (tabu_criteria.hpp: slowdown, wait,
// response, user fairness and their incremental sums), the search
// (tabu_search.hpp: picks, the tabu list, the budget and time limit), and
// here the policy that keeps the plan in step with the snapshots.
//
// `safe` (not in the paper): a move is rejected if the re-inserted job would
// start later than the start it was first promised, so every reservation is
// a promise. Without `safe` the plan's starts are predictions: the search may
// delay a job past its first reservation, and reservations() is empty.
//
// `abort` (the paper's pre-emption of the optimizer, simulation only): a
// search takes `eval-cost` simulated seconds per iteration, at most
// `time-limit` seconds, and a job arriving or ending before it is done stops
// it. A search begun at t is carried out at the next step t' (nothing
// changed in between: every event is a step) with the iterations that fit in
// t' - t, on the plan as it was at t; its result takes effect at t', and a
// search that ends undisturbed wakes the policy when it ends. Off, a search
// takes no simulated time (spec 4.1 [I]).
#pragma once

#include <algorithm>

#include <cstdint>
#include <random>
#include <vector>

#include "policies/tabu_search.hpp"
#include "policy/policy.hpp"

namespace los {

class TabuPolicy final : public Policy {
 public:
  struct Options {
    bool safe = false;
    Time period = 300;        // seconds between searches; 0: never search
    std::int64_t budget = 2;  // iterations per waiting job
    std::size_t tabu_size = 10;
    std::uint64_t seed = 1;
    double time_limit = 2.0;  // seconds per search (the paper's): wall-clock live, simulated under abort
    // Live, a search also stops live_limit wall-clock seconds after the
    // step began: it runs inside losd's answer to the plugin, which waits
    // los_timeout_ms (1 s by default) and whose worst step should stay near
    // 20 ms at 5,000 pending jobs (docs/benchmarks.md, issue 17).
    double live_limit = 0.01;
    // A step's insertions of newly queued jobs (TabuPlan::insert_all): at
    // most `inserts` of them (0: no cap) and, live, at most plan_limit
    // wall-clock seconds (0: none), the same budget as conservative's
    // live-limit; the rest wait for the next steps, as if they arrived then,
    // and the search waits until every job is planned (and one step more).
    // The first step of a new losd plans the whole queue: 0.6-1.0 s of CPU
    // at 100,000 jobs without the limit, 27-35 ms with it; the plan is then
    // whole after 46 steps, 37 under an early end every step (a voided start
    // bound is seeded from the profile): docs/benchmarks.md, "Tabu's plan
    // under a step's budget by default".
    std::int64_t inserts = 0;
    double plan_limit = 0.015;
    // When that budget cuts a step, the jobs it did not reach that fit now
    // for their whole estimate still start (`stopped=fill`, as conservative's):
    // until then a new losd's catch-up started only the jobs it had planned.
    bool fill_when_cut = true;
    bool abort = false;       // model the search in simulated time, stopped by events
    double eval_cost = 0.01;  // simulated seconds per iteration under `abort`
  };

  // `label` is the canonical spelling name() returns; `mode` Live lets the
  // search stop at time_limit wall-clock seconds, and live_limit seconds
  // after the step began.
  explicit TabuPolicy(Options options, RunMode mode = RunMode::Simulation, std::string label = "tabu");

  std::string name() const override { return label_; }
  // tabu:safe promises every planned start (reservations()).
  Capabilities capabilities() const override {
    return {.wall_clock_budget = true, .promises_every_start = options_.safe};
  }
  StepResult step(const Snapshot& snapshot) override;
  std::vector<PlannedStart> reservations() const override;
  const Planner* plan() const override { return &plan_.profile(); }

  // The plan's start of every waiting job (promises or predictions).
  std::vector<PlannedStart> planned_starts() const { return plan_.starts(); }
  const TabuSearchStats& stats() const { return stats_; }
  const TabuPlan& tabu_plan() const { return plan_; }

 private:
  // Applies the snapshot's events to the plan; false when it must be rebuilt
  // from the snapshot. Sets `replan` when the plan must be compressed.
  bool apply_events(const Snapshot& snapshot, bool& replan, bool searched);
  bool finish_pending_search(Time now);
  // plan_.compress(), timed into move_cost_ while no live move was.
  void compress_plan();
  void rebuild(const Snapshot& snapshot);

  Options options_;
  RunMode mode_;
  bool planning_left_ = false;  // the last step's budget left jobs unplanned
  TabuMoveCost move_cost_;      // a live search's moves, timed (simulations count iterations)
  std::string label_;
  TabuPlan plan_;
  std::mt19937_64 rng_;
  Time next_search_;
  TabuSearchStats stats_;
  // Under `abort`: the search begun at pending_start_ with pending_iterations_
  // still to run (pending_start_ < 0: none).
  Time pending_start_ = -1;
  std::int64_t pending_iterations_ = 0;
};

const ParamTable& tabu_parameters();
PolicyPtr make_tabu(const ParamValues& values, RunMode mode);

}  // namespace los
