#include "partition_scheduler.hpp"

#include <unordered_set>

#include "model/snapshot_diff.hpp"
#include "policy/live_decisions.hpp"
#include "policy/registry.hpp"

namespace los::daemon {

PartitionScheduler::PartitionScheduler(std::string name, const std::string& policy_spec)
    : name_(std::move(name)), policy_(make_policy(policy_spec, RunMode::Live)) {}

void PartitionScheduler::set_policy(const std::string& policy_spec) {
  policy_ = make_policy(policy_spec, RunMode::Live);
  need_resync_ = true;
  fresh_policy_ = true;
  first_promise_.clear();
}

std::vector<std::string> PartitionScheduler::place(const Snapshot& s, const Decision& d, int size,
                                                   std::vector<char>& taken, std::size_t& first_free) const {
  std::vector<std::string> names;
  if (s.nodes.empty()) return names;
  if (!d.nodes.empty()) {
    for (int i : d.nodes) {
      if (i < 0 || static_cast<std::size_t>(i) >= s.nodes.size()) {
        throw std::logic_error("policy " + policy_->name() + " placed job " + std::to_string(d.job) + " on unit " +
                               std::to_string(i) + " of a partition with " + std::to_string(s.nodes.size()) + " nodes");
      }
      names.push_back(s.nodes[i].name);
      taken[i] = 1;
    }
    return names;
  }
  if (d.kind != Decision::Kind::Start) return names;  // resume/suspend/requeue: the job's own nodes
  while (first_free < s.nodes.size() && (taken[first_free] || s.nodes[first_free].state != Node::State::Idle)) {
    ++first_free;
  }
  std::vector<int> chosen;
  for (std::size_t i = first_free; i < s.nodes.size() && static_cast<int>(chosen.size()) < size; ++i) {
    if (!taken[i] && s.nodes[i].state == Node::State::Idle) chosen.push_back(static_cast<int>(i));
  }
  // Not enough idle nodes in the snapshot (states lag behind the job list):
  // no list, and the plugin lets Slurm choose.
  if (static_cast<int>(chosen.size()) < size) return names;
  for (int i : chosen) {
    taken[i] = 1;
    names.push_back(s.nodes[i].name);
  }
  return names;
}

PartitionScheduler::Outcome PartitionScheduler::step(Snapshot snapshot, bool resync, std::optional<SnapshotIds> ids) {
  Outcome out;
  const auto t0 = std::chrono::steady_clock::now();
  if (!ids) ids = SnapshotIds::of(snapshot);
  const bool rebuild = !previous_ || resync || need_resync_ || snapshot.now < previous_->now;
  if (fresh_policy_) {
    begin_from_snapshot(snapshot, *policy_);
  } else if (rebuild) {
    mark_resync(snapshot, *policy_);
  } else {
    snapshot.events = diff_snapshots(*previous_, previous_ids_, snapshot, *ids, started_last_);
    snapshot.resync = false;
  }
  need_resync_ = false;
  fresh_policy_ = false;

  // Jobs that started since the last step: how far off was their first promise?
  for (const SnapshotEvent& ev : snapshot.events) {
    if (ev.kind == SnapshotEvent::Kind::Started) {
      const auto it = first_promise_.find(ev.job);
      if (it != first_promise_.end()) {
        out.prediction_errors.push_back(static_cast<double>(ev.start - it->second));
        first_promise_.erase(it);
      }
    } else if (ev.kind == SnapshotEvent::Kind::Withdrawn) {
      first_promise_.erase(ev.job);
    }
  }

  const StepResult result = policy_->step(snapshot);
  out.wakeup = result.wakeup > snapshot.now ? result.wakeup : kTimeInfinity;
  out.work_left = result.work_left;

  std::vector<char> taken(snapshot.nodes.size(), 0);
  for (const RunningJob& r : snapshot.running) {
    for (int n : r.nodes) taken[n] = 1;
  }
  started_last_.clear();

  // Migrations become requeues (docs/gang-live.md).
  const std::vector<Decision> live = live_decisions(snapshot, result.decisions, policy_->name());
  out.decisions.reserve(live.size());
  // The sizes of the jobs to start: one pass over the queue's ids, not one
  // per start, and only as far as the last of them.
  JobMap<int> start_size;
  for (const Decision& d : live) {
    if (d.kind == Decision::Kind::Start && d.nodes.empty()) start_size.insert(d.job, 0);
  }
  for (std::size_t k = 0, found = 0; found < start_size.size() && k < ids->pending.size(); ++k) {
    if (int* size = start_size.find(ids->pending[k])) {
      *size = snapshot.queue[k].size;
      ++found;
    }
  }
  std::size_t first_free = 0;
  for (const Decision& d : live) {
    protocol::WireDecision w;
    w.kind = d.kind;
    w.partition = name_;
    w.job = d.job;
    switch (d.kind) {
      case Decision::Kind::Start:
        w.expected_state = LOS_JOB_PENDING;
        started_last_.push_back(d.job);
        ++out.started;
        break;
      case Decision::Kind::Suspend:
        w.expected_state = LOS_JOB_RUNNING;
        break;
      case Decision::Kind::Resume:
        w.expected_state = LOS_JOB_SUSPENDED;
        break;
      case Decision::Kind::Requeue: {
        const std::size_t at = ids->running.find(d.job);
        w.expected_state =
            at != JobIdIndex::kAbsent && snapshot.running[at].suspended ? LOS_JOB_SUSPENDED : LOS_JOB_RUNNING;
        break;
      }
    }
    // a requeue's nodes: where the policy will start the job again (for logs)
    const int* sized = start_size.find(d.job);
    w.nodes = place(snapshot, d, sized != nullptr ? *sized : 0, taken, first_free);
    out.decisions.push_back(std::move(w));
  }

  // Remember each job's first promise; a job is promised only once.
  const std::vector<PlannedStart> promised = policy_->reservations();
  out.reservations = promised.size();
  for (const PlannedStart& p : promised) first_promise_.try_emplace(p.job, p.start);

  snapshot.events.clear();
  previous_ = std::move(snapshot);
  previous_ids_ = std::move(*ids);
  out.step_time = std::chrono::steady_clock::now() - t0;
  last_step_time_ = out.step_time;
  return out;
}

}  // namespace los::daemon
