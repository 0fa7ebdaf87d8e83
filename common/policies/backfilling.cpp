#include "policies/backfilling.hpp"

#include <algorithm>
#include <vector>

#include "planner/replan.hpp"

namespace los {

BackfillingPolicy::BackfillingPolicy(int depth, std::string label) : depth_(depth), label_(std::move(label)) {}

void BackfillingPolicy::add_reservation(JobId id, int size, Time start, Time duration, Planner::SpanId span) {
  reserved_[id] = Reservation{size, start, duration, next_order_, span};
  reserved_by_start_.insert({start, next_order_, id});
  ++next_order_;
}

void BackfillingPolicy::drop_reservation(JobId id) {
  const auto it = reserved_.find(id);
  if (it == reserved_.end()) return;
  reserved_by_start_.erase({it->second.start, it->second.order, id});
  reserved_.erase(it);
}

bool BackfillingPolicy::update(const Snapshot& snapshot, bool& freed) {
  const Time now = snapshot.now;
  if (!profile_.update(snapshot, freed)) return false;
  for (const SnapshotEvent& ev : snapshot.events) {
    if (ev.kind != SnapshotEvent::Kind::Withdrawn) continue;
    const auto it = reserved_.find(ev.job);
    if (it == reserved_.end()) continue;
    profile_.planner().release(it->second.span);
    drop_reservation(ev.job);
    freed = true;
  }
  // A reservation in the past: its start was decided but never happened.
  return reserved_by_start_.empty() || std::get<0>(*reserved_by_start_.begin()) >= now;
}

void BackfillingPolicy::rebuild(const Snapshot& snapshot) {
  const Time now = snapshot.now;
  profile_.rebuild(snapshot);
  Planner& planner = profile_.planner();
  // Re-plan the jobs that held reservations, in their old order, so the
  // promise order survives; the queue pass hands out the rest.
  std::vector<JobId> holders;
  holders.reserve(reserved_by_start_.size());
  for (const auto& [start, order, id] : reserved_by_start_) holders.push_back(id);
  reserved_.clear();
  reserved_by_start_.clear();
  for (const QueuedHolder& held : queued_holders(holders, snapshot.queue)) {
    const Job& j = *held.job;
    if (j.size > snapshot.total_units) continue;
    const Time d = planned_duration(j.estimate);
    const Time s = planner.earliest_start(j.size, d, now);
    if (s >= kTimeInfinity) continue;
    add_reservation(j.id, j.size, s, d, planner.reserve(s, d, j.size));
  }
}

void BackfillingPolicy::compress(Time now) {
  Planner& planner = profile_.planner();
  std::vector<JobId> order;
  order.reserve(reserved_by_start_.size());
  for (const auto& [start, ord, id] : reserved_by_start_) order.push_back(id);
  for (JobId id : order) {
    Reservation& r = reserved_.at(id);
    if (r.start <= now) continue;
    // Asked with the job's own reservation still in place: the horizon cuts
    // the window at the old start, so this is "can it start before?".
    const Time s = planner.earliest_start(r.size, r.duration, now, r.start);
    if (s >= r.start) continue;
    planner.release(r.span);
    r.span = planner.reserve(s, r.duration, r.size);
    reserved_by_start_.erase({r.start, r.order, id});
    r.start = s;
    reserved_by_start_.insert({r.start, r.order, id});
  }
}

StepResult BackfillingPolicy::step(const Snapshot& snapshot) {
  const Time now = snapshot.now;
  StepResult result;

  bool freed = false;
  if (snapshot.resync || profile_.stale(snapshot) || !update(snapshot, freed)) {
    rebuild(snapshot);
  } else if (freed) {
    compress(now);
  }

  Planner& planner = profile_.planner();
  std::int64_t free_now = planner.free_at(now);
  for (const Job& job : snapshot.queue) {
    const auto held = reserved_.find(job.id);
    if (held != reserved_.end()) {
      const Reservation r = held->second;
      if (r.start == now) {  // its units are already taken: the promise is kept
        drop_reservation(job.id);
        profile_.adopt_start(job.id, r.size, now, now + r.duration);
        result.decisions.push_back(Decision::start(job.id));
      }
      continue;
    }
    if (job.size > snapshot.total_units) continue;  // can never run here
    const bool may_reserve = static_cast<int>(std::min<std::size_t>(reserved_.size(), kUnlimited)) < depth_;
    if (!may_reserve) {
      if (free_now <= 0) break;
      if (job.size > free_now) continue;
    }
    const Time d = planned_duration(job.estimate);
    // Beyond the depth a job may only start now, for its whole estimate.
    const Time s = may_reserve ? planner.earliest_start(job.size, d, now)
                               : (planner.min_free(now, now + d) >= job.size ? now : kTimeInfinity);
    if (s == now) {
      profile_.start(job.id, job.size, now, d);
      free_now -= job.size;
      result.decisions.push_back(Decision::start(job.id));
    } else if (may_reserve && s < kTimeInfinity) {
      add_reservation(job.id, job.size, s, d, planner.reserve(s, d, job.size));
    }
  }
  return result;
}

std::vector<PlannedStart> BackfillingPolicy::reservations() const {
  std::vector<PlannedStart> out;
  out.reserve(reserved_by_start_.size());
  for (const auto& [start, order, id] : reserved_by_start_) out.push_back({id, start});
  return out;
}

PolicyPtr make_easy(const ParamValues& values, RunMode) {
  return std::make_unique<BackfillingPolicy>(1, values.canonical());
}

PolicyPtr make_conservative(const ParamValues& values, RunMode) {
  return std::make_unique<BackfillingPolicy>(BackfillingPolicy::kUnlimited, values.canonical());
}

PolicyPtr make_aggressive(const ParamValues& values, RunMode) {
  return std::make_unique<BackfillingPolicy>(0, values.canonical());
}

const ParamTable& depth_parameters() {
  static const ParamTable table = {
      Param::integer("k", 4, 0, 1000000, "reservation depth: how many blocked jobs hold a reservation")};
  return table;
}

PolicyPtr make_depth(const ParamValues& values, RunMode) {
  return std::make_unique<BackfillingPolicy>(static_cast<int>(values.integer("k")), values.canonical());
}

}  // namespace los
