#include "policies/backfilling.hpp"

#include <algorithm>
#include <vector>

namespace los {
namespace {

// A zero estimate would make a reservation of nothing; one second is the
// smallest span the profile can hold.
Time planned_duration(Time estimate) { return std::max<Time>(estimate, 1); }

}  // namespace

BackfillingPolicy::BackfillingPolicy(int depth, std::string label)
    : depth_(depth), label_(std::move(label)) {}

void BackfillingPolicy::add_running(JobId id, int size, Time /*start*/, Time end) {
  running_[id] = Occupation{size, end};
  running_by_end_.insert({end, id});
}

void BackfillingPolicy::add_reservation(JobId id, int size, Time start, Time duration) {
  reserved_[id] = Reservation{size, start, duration, next_order_, false};
  reserved_by_start_.insert({start, next_order_, id});
  ++next_order_;
  ++promised_;
}

void BackfillingPolicy::drop_reservation(JobId id) {
  const auto it = reserved_.find(id);
  if (it == reserved_.end()) return;
  const Reservation& r = it->second;
  reserved_by_start_.erase({r.start, r.order, id});
  if (!r.starting) --promised_;
  reserved_.erase(it);
}

bool BackfillingPolicy::apply_events(const Snapshot& snapshot, bool& freed) {
  const Time now = snapshot.now;
  for (const SnapshotEvent& ev : snapshot.events) {
    switch (ev.kind) {
      case SnapshotEvent::Kind::Arrived:
        break;
      case SnapshotEvent::Kind::Started: {
        const auto it = reserved_.find(ev.job);
        if (it == reserved_.end() || !it->second.starting) return false;
        const Reservation r = it->second;
        drop_reservation(ev.job);
        if (ev.start == r.start) {
          add_running(ev.job, r.size, r.start, r.start + r.duration);  // the reserved span is the running span
          break;
        }
        // Started a little later than decided (a live cluster applies
        // decisions after the step): move the span to where it really is.
        const Time end = std::max(ev.start + r.duration, now + 1);
        if (r.start + r.duration > now) planner_.add(now, r.start + r.duration, r.size);
        planner_.add(now, end, -r.size);
        add_running(ev.job, r.size, ev.start, end);
        if (planner_.min_free(now, end) < 0) return false;  // it overlaps a promise: re-plan
        break;
      }
      case SnapshotEvent::Kind::Ended: {
        const auto it = running_.find(ev.job);
        if (it == running_.end()) return false;
        const Occupation occ = it->second;
        running_by_end_.erase({occ.end, ev.job});
        running_.erase(it);
        if (occ.end > now) {
          planner_.add(now, occ.end, occ.size);
          freed = true;
        }
        break;
      }
      case SnapshotEvent::Kind::Withdrawn: {
        const auto it = reserved_.find(ev.job);
        if (it != reserved_.end()) {
          const Reservation r = it->second;
          if (r.start + r.duration > now) {
            planner_.add(std::max(now, r.start), r.start + r.duration, r.size);
          }
          drop_reservation(ev.job);
          freed = true;
        }
        break;
      }
      case SnapshotEvent::Kind::Suspended:
      case SnapshotEvent::Kind::Resumed:
        return false;  // not a space-sharing event: rebuild from the snapshot
    }
  }
  // A running job past the end the profile expected (it overran its
  // estimate), or a start decision that was not carried out: the profile no
  // longer matches the cluster.
  if (!running_by_end_.empty() && running_by_end_.begin()->first <= now) return false;
  if (!reserved_by_start_.empty() && std::get<0>(*reserved_by_start_.begin()) < now) return false;
  return true;
}

void BackfillingPolicy::rebuild(const Snapshot& snapshot) {
  const Time now = snapshot.now;
  planner_ = Planner(snapshot.total_units, now);
  running_.clear();
  running_by_end_.clear();
  for (const RunningJob& r : snapshot.running) {
    if (r.suspended) continue;
    const Time end = r.expected_end(now);
    planner_.add(now, end, -r.job.size);
    add_running(r.job.id, r.job.size, r.start, end);
  }
  // Re-plan the jobs that held reservations, in their old order, so the
  // promise order survives; the queue pass below hands out the rest.
  std::vector<JobId> holders;
  holders.reserve(reserved_by_start_.size());
  for (const auto& [start, order, id] : reserved_by_start_) holders.push_back(id);
  reserved_.clear();
  reserved_by_start_.clear();
  promised_ = 0;
  std::unordered_map<JobId, const Job*> queued;
  queued.reserve(snapshot.queue.size());
  for (const Job& j : snapshot.queue) queued[j.id] = &j;
  for (JobId id : holders) {
    const auto it = queued.find(id);
    if (it == queued.end()) continue;
    const Job& j = *it->second;
    if (j.size > snapshot.total_units) continue;
    const Time d = planned_duration(j.estimate);
    const Time s = planner_.earliest_start(j.size, d, now);
    if (s >= kTimeInfinity) continue;
    planner_.reserve(s, d, j.size);
    add_reservation(id, j.size, s, d);
  }
}

void BackfillingPolicy::compress(Time now) {
  std::vector<JobId> order;
  order.reserve(reserved_by_start_.size());
  for (const auto& [start, ord, id] : reserved_by_start_) order.push_back(id);
  for (JobId id : order) {
    Reservation& r = reserved_.at(id);
    if (r.starting || r.start <= now) continue;
    // Asked with the job's own reservation still in place: the horizon cuts
    // the window at the old start, so this is "can it start before?".
    const Time s = planner_.earliest_start(r.size, r.duration, now, r.start);
    if (s >= r.start) continue;
    planner_.release(r.start, r.duration, r.size);
    planner_.reserve(s, r.duration, r.size);
    reserved_by_start_.erase({r.start, r.order, id});
    r.start = s;
    reserved_by_start_.insert({r.start, r.order, id});
  }
}

StepResult BackfillingPolicy::step(const Snapshot& snapshot) {
  const Time now = snapshot.now;
  StepResult result;

  bool freed = false;
  if (snapshot.resync || planner_.capacity() != snapshot.total_units || now < planner_.origin()) {
    rebuild(snapshot);
  } else {
    planner_.advance_to(now);
    if (!apply_events(snapshot, freed)) {
      rebuild(snapshot);
    } else if (freed) {
      compress(now);
    }
  }

  std::int64_t free_now = planner_.free_at(now);
  for (const Job& job : snapshot.queue) {
    const auto held = reserved_.find(job.id);
    if (held != reserved_.end()) {
      Reservation& r = held->second;
      if (!r.starting && r.start == now) {
        r.starting = true;
        --promised_;
        result.decisions.push_back(Decision::start(job.id));
      }
      continue;
    }
    if (job.size > snapshot.total_units) continue;  // can never run here
    const bool may_reserve = promised_ < depth_;
    if (!may_reserve) {
      if (free_now <= 0) break;
      if (job.size > free_now) continue;
    }
    const Time d = planned_duration(job.estimate);
    // Beyond the depth a job may only start now, for its whole estimate.
    const Time s = may_reserve ? planner_.earliest_start(job.size, d, now)
                               : (planner_.min_free(now, now + d) >= job.size ? now : kTimeInfinity);
    if (s == now) {
      planner_.reserve(now, d, job.size);
      add_reservation(job.id, job.size, now, d);
      Reservation& r = reserved_.at(job.id);
      r.starting = true;
      --promised_;
      free_now -= job.size;
      result.decisions.push_back(Decision::start(job.id));
    } else if (may_reserve && s < kTimeInfinity) {
      planner_.reserve(s, d, job.size);
      add_reservation(job.id, job.size, s, d);
    }
  }
  return result;
}

std::vector<PlannedStart> BackfillingPolicy::reservations() const {
  std::vector<PlannedStart> out;
  out.reserve(reserved_by_start_.size());
  for (const auto& [start, order, id] : reserved_by_start_) {
    if (!reserved_.at(id).starting) out.push_back({id, start});
  }
  return out;
}

PolicyPtr make_easy(const PolicySpec& spec) {
  spec.reject_unknown();
  return std::make_unique<BackfillingPolicy>(1, "easy");
}

PolicyPtr make_conservative(const PolicySpec& spec) {
  spec.reject_unknown();
  return std::make_unique<BackfillingPolicy>(BackfillingPolicy::kUnlimited, "conservative");
}

PolicyPtr make_aggressive(const PolicySpec& spec) {
  spec.reject_unknown();
  return std::make_unique<BackfillingPolicy>(0, "aggressive");
}

PolicyPtr make_depth(const PolicySpec& spec) {
  const int k = static_cast<int>(spec.get_int("k", 4, 0, 1000000));
  spec.reject_unknown();
  return std::make_unique<BackfillingPolicy>(k, "depth:k=" + std::to_string(k));
}

}  // namespace los
