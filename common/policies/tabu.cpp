#include "policies/tabu.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "planner/replan.hpp"

namespace los {

TabuPolicy::TabuPolicy(Options options, RunMode mode, std::string label)
    : options_(options),
      mode_(mode),
      label_(std::move(label)),
      rng_(options.seed),
      next_search_(options.period > 0 ? options.period : kTimeInfinity) {}

// Under `abort`, the search begun at pending_start_ runs now, before the
// events of `now` touch the plan: the plan is still as it was then. It gets
// the iterations that fit in the simulated time since; fewer than it was
// given means an event stopped it.
bool TabuPolicy::finish_pending_search(Time now) {
  if (pending_start_ < 0) return false;
  const Time start = pending_start_;
  const double fit = std::floor(static_cast<double>(now - start) / options_.eval_cost + 1e-9);
  const std::int64_t iterations =
      fit >= static_cast<double>(pending_iterations_) ? pending_iterations_ : static_cast<std::int64_t>(fit);
  if (iterations < pending_iterations_) {
    ++stats_.aborted;
    stats_.iterations_lost += pending_iterations_ - iterations;
  }
  pending_start_ = -1;
  tabu_search(plan_, start, iterations, options_.tabu_size, options_.safe, rng_,
              std::chrono::steady_clock::time_point::max(), stats_);
  return true;
}

bool TabuPolicy::apply_events(const Snapshot& snapshot, bool& replan, bool searched) {
  const Time now = snapshot.now;
  for (const SnapshotEvent& ev : snapshot.events) {
    switch (ev.kind) {
      case SnapshotEvent::Kind::Arrived:
        break;
      case SnapshotEvent::Kind::Started:
        if (!plan_.start_planned(ev.job, ev.start)) return false;
        break;
      case SnapshotEvent::Kind::Ended:
        if (!plan_.end_running(ev.job, now, replan)) return false;
        break;
      case SnapshotEvent::Kind::Withdrawn:
        if (plan_.remove(ev.job)) replan = true;
        break;
      case SnapshotEvent::Kind::Suspended:
      case SnapshotEvent::Kind::Resumed:
        return false;  // not a space-sharing event: rebuild from the snapshot
    }
  }
  // The plan still holds for what the cluster did, but it may be out of
  // date: a reservation came due between two steps (no step at its start:
  // the job can start now, on the units the plan kept for it), or a running
  // job is past its expected end (an overrun: Slurm ends it at its limit, up
  // to a minute or so later; it holds its units a second longer, as a plan
  // rebuilt from the snapshot would expect). The compression in step()
  // replays the list over that: the plan a rebuild makes, without
  // rebuilding the list and its indexes (a live site sees one of these
  // every few steps). After a search run as of an earlier time, a start
  // before now is the search's, compressed anyway. A decided start that was
  // not carried out (still waiting for its Started event) is a plan that
  // no longer matches the cluster: rebuild, which drops the decision.
  const bool due_between = !searched && plan_.first_start() < now;
  const bool overrun = plan_.first_running_end() <= now;
  if (due_between || overrun) {
    if (plan_.movable().size() != plan_.planned()) return false;
    if (overrun) plan_.extend_overruns(now);
    plan_.order_movable_as_listed();  // the order a rebuild gives the search
    replan = true;
  }
  return true;
}

void TabuPolicy::rebuild(const Snapshot& snapshot) {
  const Time now = snapshot.now;
  // A job the plan has running that the snapshot does not ended since the
  // last step (a resync carries no Ended event): it ends as the event would
  // end it, its wait and run time staying in its user's fairness totals,
  // which the reset below keeps only for finished jobs.
  plan_.end_missing(snapshot.running, now);
  // Re-plan the old reservations in their old order, keeping their promises
  // (one replay: O(n), where n insertions would be O(n^2)); the queue pass
  // in step() plans the rest.
  std::vector<JobId> holders;
  std::vector<Time> promises;
  holders.reserve(plan_.planned());
  promises.reserve(plan_.planned());
  for (const TabuPlan::Entry& e : plan_.entries()) {
    holders.push_back(e.id);
    promises.push_back(e.promise);
  }
  std::vector<TabuPlan::KeptJob> kept;
  const std::vector<QueuedHolder> queued = queued_holders(holders, snapshot.queue);
  kept.reserve(queued.size());
  for (const QueuedHolder& held : queued) kept.push_back({held.job, promises[held.holder]});
  plan_.reset_keeping(snapshot.total_units, now, kept);
  for (const RunningJob& r : snapshot.running) {
    if (!r.suspended) plan_.add_running(r.job, r.start, r.expected_end(now));
  }
  compress_plan();
}

void TabuPolicy::compress_plan() {
  // Until a live search has timed a move, a compression (a replay of the
  // whole list, as a move replays its tail) tells what one costs: the first
  // move of a search at 100,000 jobs (13-19 ms) would otherwise begin
  // whatever time the step has left.
  const bool learn = mode_ == RunMode::Live && move_cost_.seconds_per_job <= 0 && plan_.planned() > 0;
  const auto began = std::chrono::steady_clock::now();
  plan_.compress();
  if (learn) {
    move_cost_.record(std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count(), plan_.planned());
  }
}

StepResult TabuPolicy::step(const Snapshot& snapshot) {
  const Time now = snapshot.now;
  const auto step_began = std::chrono::steady_clock::now();
  StepResult result;

  // A search that ran as of an earlier time may have planned starts before
  // now: compression moves them to now.
  const bool searched = finish_pending_search(now);
  bool freed = searched;
  if (snapshot.resync || plan_.capacity() != snapshot.total_units || now < plan_.origin()) {
    rebuild(snapshot);
  } else {
    plan_.advance_to(now);
    if (!apply_events(snapshot, freed, searched)) {
      rebuild(snapshot);
    } else if (freed) {
      compress_plan();
    }
  }

  // The budget applies live only unless `inserts` caps it by count. It
  // bounds the insertions only: the profile they search is brought up to
  // date first (after a compression that moved many jobs, a rebuild of it).
  // Live, its clock counts from losd's receipt of the snapshot, so reading
  // it and this upkeep shorten it, but never below half (StepBudget::for_step):
  // a step always gets as far as some insertions.
  const bool catching_up = planning_left_;
  if (catching_up) plan_.profile();
  StepBudget budget =
      StepBudget::for_step(options_.inserts, options_.plan_limit, mode_ == RunMode::Live, snapshot.received);
  plan_.insert_all(snapshot.queue, now, budget, options_.fill_when_cut);
  // Jobs left for the next step: no search over a plan that lacks them.
  const bool all_planned = !budget.spent();
  planning_left_ = !all_planned;
  const bool search_due = options_.period > 0 && now >= next_search_;

  // Nor in the step that completes such a plan: it has spent its budget's
  // worth on insertions, and the first move after them costs a replay of
  // the whole list (13-19 ms at 100,000 jobs, past any live-limit): the
  // search due waits for the next step.
  if (all_planned && !catching_up && search_due) {
    if (plan_.movable().size() >= 2) {
      ++stats_.searches;
      // The wall-clock caps apply live only: a simulation counts
      // iterations, so every run is reproducible. live-limit counts from the
      // step's start: the plan's upkeep and insertions before the search
      // (a rebuild, the first plan of a queue) leave it less time, so the
      // step's answer keeps to about live-limit whatever came first.
      const bool live = mode_ == RunMode::Live;
      TabuSearchLimits limits = tabu_search_limits(options_.budget, plan_.movable().size(), live, options_.time_limit);
      if (live && options_.live_limit > 0) {
        limits.deadline =
            std::min(limits.deadline, step_began + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                       std::chrono::duration<double>(options_.live_limit)));
      }
      if (options_.abort) {
        // Runs at the next step, with what fits before it; the time limit
        // is simulated seconds here.
        pending_start_ = now;
        pending_iterations_ = limits.iterations;
        if (options_.time_limit > 0) {
          const double cap = std::floor(options_.time_limit / options_.eval_cost + 1e-9);
          if (cap < static_cast<double>(pending_iterations_)) pending_iterations_ = static_cast<std::int64_t>(cap);
        }
      } else {
        tabu_search(plan_, now, limits.iterations, options_.tabu_size, options_.safe, rng_, limits.deadline, stats_,
                    &move_cost_);
      }
    }
    next_search_ = (now / options_.period + 1) * options_.period;
  }

  for (const JobId id : plan_.take_due(now)) result.decisions.push_back(Decision::start(id));
  plan_.confirm_promises();

  // Reservations come due at job ends, which are events anyway; the wake-up
  // is a safeguard. The next search needs one when jobs wait.
  const Time first = plan_.first_start();
  if (first > now && first < kTimeInfinity) result.wakeup = first;
  if (options_.period > 0 && plan_.movable().size() >= 2) result.wakeup = std::min(result.wakeup, next_search_);
  if (pending_start_ >= 0) {
    // An undisturbed search ends here (whole seconds, at least one).
    const Time length = std::max<Time>(
        1, static_cast<Time>(std::ceil(static_cast<double>(pending_iterations_) * options_.eval_cost - 1e-9)));
    result.wakeup = std::min(result.wakeup, now + length);
  }
  // Jobs still to plan (and the search that waits for them): a second from
  // now, the earliest a step can come (a search due now is not a wakeup).
  if (!all_planned || (catching_up && search_due)) result.wakeup = now + 1;
  result.work_left = !all_planned;
  return result;
}

std::vector<PlannedStart> TabuPolicy::reservations() const {
  if (!options_.safe) return {};  // predictions, not promises: the search may delay a job
  std::vector<PlannedStart> out;
  for (const TabuPlan::Entry& e : plan_.entries()) {
    if (!e.starting) out.push_back({e.id, e.start});
  }
  return out;
}

const ParamTable& tabu_parameters() {
  static const TabuPolicy::Options d;
  static const ParamTable table = {
      Param::flag("safe", d.safe, "never move a job past its first reservation"),
      Param::integer("period", d.period, 0, 1000000000, "seconds between searches (0: never)"),
      Param::integer("budget", d.budget, 0, 1000000, "iterations per waiting job"),
      Param::integer("tabu", static_cast<long long>(d.tabu_size), 0, 1000000, "tabu list length"),
      Param::integer("seed", static_cast<long long>(d.seed), 0, 1LL << 62, "random seed"),
      Param::number("time-limit", d.time_limit, 0, 3600,
                    "seconds per search: wall-clock live; simulated under abort (0: none)"),
      Param::number("live-limit", d.live_limit, 0, 3600,
                    "live: a search stops this many wall-clock seconds after the step began, whatever time-limit "
                    "says (the search runs inside losd's answer to the plugin; 0: none)"),
      Param::integer("inserts", d.inserts, 0, 1000000000,
                     "newly queued jobs planned a step at most, the rest in the next steps (0: no cap; for studies)"),
      Param::number("plan-limit", d.plan_limit, 0, 3600,
                    "live: a step plans newly queued jobs until this many wall-clock seconds after losd received the "
                    "snapshot (at least half of it), the rest in the next steps (0: none)"),
      Param::choice("stopped", {"fill", "wait"},
                    "when inserts or plan-limit cuts a step: fill (the jobs not planned yet that fit now for their "
                    "whole estimate still start) or wait (they wait for the steps that plan them)"),
      Param::flag("abort", d.abort,
                  "simulation: a search takes eval-cost s per iteration and an arrival or end stops it"),
      Param::number("eval-cost", d.eval_cost, 1e-6, 3600, "simulated seconds per search iteration under abort"),
  };
  return table;
}

PolicyPtr make_tabu(const ParamValues& values, RunMode mode) {
  TabuPolicy::Options o;
  o.safe = values.flag("safe");
  o.period = values.integer("period");
  o.budget = values.integer("budget");
  o.tabu_size = static_cast<std::size_t>(values.integer("tabu"));
  o.seed = static_cast<std::uint64_t>(values.integer("seed"));
  o.time_limit = values.number("time-limit");
  o.live_limit = values.number("live-limit");
  o.inserts = values.integer("inserts");
  o.plan_limit = values.number("plan-limit");
  o.fill_when_cut = values.choice("stopped") == "fill";
  o.abort = values.flag("abort");
  o.eval_cost = values.number("eval-cost");
  if (o.abort && mode == RunMode::Live) {
    throw SpecError("policy '" + values.canonical() +
                    "': parameter 'abort' models the search in simulated time; a live partition bounds the search "
                    "by time-limit (wall-clock seconds) instead");
  }
  return std::make_unique<TabuPolicy>(o, mode, values.canonical());
}

}  // namespace los
