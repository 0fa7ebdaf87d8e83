#include "policies/tabu.hpp"

#include <algorithm>
#include <sstream>

#include "planner/replan.hpp"

namespace los {

TabuPolicy::TabuPolicy(Options options)
    : options_(options), rng_(options.seed), next_search_(options.period > 0 ? options.period : kTimeInfinity) {}

std::string TabuPolicy::name() const {
  const Options d;
  std::ostringstream out;
  out << "tabu";
  if (options_.budget != d.budget) out << ":budget=" << options_.budget;
  if (options_.period != d.period) out << ":period=" << options_.period;
  if (options_.safe) out << ":safe";
  if (options_.seed != d.seed) out << ":seed=" << options_.seed;
  if (options_.tabu_size != d.tabu_size) out << ":tabu=" << options_.tabu_size;
  if (options_.time_limit != d.time_limit) out << ":time-limit=" << options_.time_limit;
  return out.str();
}

bool TabuPolicy::apply_events(const Snapshot& snapshot, bool& freed) {
  const Time now = snapshot.now;
  for (const SnapshotEvent& ev : snapshot.events) {
    switch (ev.kind) {
      case SnapshotEvent::Kind::Arrived:
        break;
      case SnapshotEvent::Kind::Started:
        if (!plan_.start_planned(ev.job, ev.start)) return false;
        break;
      case SnapshotEvent::Kind::Ended:
        if (!plan_.end_running(ev.job, now, freed)) return false;
        break;
      case SnapshotEvent::Kind::Withdrawn:
        if (plan_.remove(ev.job)) freed = true;
        break;
      case SnapshotEvent::Kind::Suspended:
      case SnapshotEvent::Kind::Resumed:
        return false;  // not a space-sharing event: rebuild from the snapshot
    }
  }
  // A running job past its expected end (an overrun), or a start that was
  // not carried out: the plan no longer matches the cluster.
  if (plan_.first_running_end() <= now) return false;
  if (plan_.first_start() < now) return false;
  return true;
}

void TabuPolicy::rebuild(const Snapshot& snapshot) {
  const Time now = snapshot.now;
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
  plan_.reset(snapshot.total_units, now);
  for (const RunningJob& r : snapshot.running) {
    if (!r.suspended) plan_.add_running(r.job, r.start, r.expected_end(now));
  }
  for (const QueuedHolder& held : queued_holders(holders, snapshot.queue)) {
    plan_.append(*held.job, now, promises[held.holder]);
  }
  plan_.compress();
}

StepResult TabuPolicy::step(const Snapshot& snapshot) {
  const Time now = snapshot.now;
  StepResult result;

  bool freed = false;
  if (snapshot.resync || plan_.capacity() != snapshot.total_units || now < plan_.origin()) {
    rebuild(snapshot);
  } else {
    plan_.advance_to(now);
    if (!apply_events(snapshot, freed)) {
      rebuild(snapshot);
    } else if (freed) {
      plan_.compress();
    }
  }

  for (const Job& job : snapshot.queue) {
    if (!plan_.contains(job.id)) plan_.insert(job, now);
  }

  if (options_.period > 0 && now >= next_search_) {
    if (plan_.movable().size() >= 2) {
      ++stats_.searches;
      // The wall-clock cap applies live only (a named partition): a
      // simulation counts iterations, so every run is reproducible.
      const TabuSearchLimits limits = tabu_search_limits(options_.budget, plan_.movable().size(),
                                                         !snapshot.partition.empty(), options_.time_limit);
      tabu_search(plan_, now, limits.iterations, options_.tabu_size, options_.safe, rng_, limits.deadline, stats_);
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

PolicyPtr make_tabu(const PolicySpec& spec) {
  TabuPolicy::Options o;
  o.safe = spec.get_bool("safe", o.safe);
  o.period = spec.get_int("period", o.period, 0, 1000000000);
  o.budget = spec.get_int("budget", o.budget, 0, 1000000);
  o.tabu_size = static_cast<std::size_t>(spec.get_int("tabu", static_cast<long long>(o.tabu_size), 0, 1000000));
  o.seed = static_cast<std::uint64_t>(spec.get_int("seed", static_cast<long long>(o.seed), 0, (1LL << 62)));
  o.time_limit = spec.get_double("time-limit", o.time_limit, 0, 3600);
  spec.reject_unknown();
  return std::make_unique<TabuPolicy>(o);
}

}  // namespace los
