#include "model/snapshot_diff.hpp"

#include <unordered_map>
#include <unordered_set>

namespace los {

std::vector<SnapshotEvent> diff_snapshots(const Snapshot& previous, const Snapshot& current,
                                          const std::vector<JobId>& started_by_decision) {
  std::vector<SnapshotEvent> events;
  std::unordered_map<JobId, const RunningJob*> was_running;
  was_running.reserve(previous.running.size());
  for (const RunningJob& r : previous.running) was_running[r.job.id] = &r;
  std::unordered_set<JobId> was_pending;
  was_pending.reserve(previous.queue.size());
  for (const Job& j : previous.queue) was_pending.insert(j.id);
  std::unordered_set<JobId> is_running;
  is_running.reserve(current.running.size());
  std::unordered_set<JobId> is_pending;
  is_pending.reserve(current.queue.size());
  for (const Job& j : current.queue) is_pending.insert(j.id);

  using Kind = SnapshotEvent::Kind;
  // Started, Suspended, Resumed: walk the running list of now.
  for (const RunningJob& r : current.running) {
    is_running.insert(r.job.id);
    const auto before = was_running.find(r.job.id);
    if (before == was_running.end()) {
      events.push_back({Kind::Started, r.job.id, r.job.size, r.start, r.job.estimate});
      if (r.suspended) events.push_back({Kind::Suspended, r.job.id, r.job.size, r.start, r.job.estimate});
      continue;
    }
    if (before->second->start != r.start) {
      // Ran, was requeued and started again between the two snapshots.
      const RunningJob& old = *before->second;
      events.push_back({Kind::Ended, old.job.id, old.job.size, old.start, old.job.estimate});
      events.push_back({Kind::Started, r.job.id, r.job.size, r.start, r.job.estimate});
      continue;
    }
    if (!before->second->suspended && r.suspended) {
      events.push_back({Kind::Suspended, r.job.id, r.job.size, r.start, r.job.estimate});
    } else if (before->second->suspended && !r.suspended) {
      events.push_back({Kind::Resumed, r.job.id, r.job.size, r.start, r.job.estimate});
    }
  }
  // Started and already over: ran for less than the time between snapshots.
  std::vector<const Job*> flashed;
  if (!started_by_decision.empty()) {
    const std::unordered_set<JobId> started(started_by_decision.begin(), started_by_decision.end());
    for (const Job& j : previous.queue) {
      if (started.count(j.id) && !is_pending.count(j.id) && !is_running.count(j.id)) {
        events.push_back({Kind::Started, j.id, j.size, previous.now, j.estimate});
        flashed.push_back(&j);
      }
    }
  }
  for (const RunningJob& r : previous.running) {
    if (!is_running.count(r.job.id)) {
      events.push_back({Kind::Ended, r.job.id, r.job.size, r.start, r.job.estimate});
    }
  }
  for (const Job* j : flashed) events.push_back({Kind::Ended, j->id, j->size, previous.now, j->estimate});
  std::unordered_set<JobId> ended_early;
  for (const Job* j : flashed) ended_early.insert(j->id);
  for (const Job& j : previous.queue) {
    if (!is_pending.count(j.id) && !is_running.count(j.id) && !ended_early.count(j.id)) {
      events.push_back({Kind::Withdrawn, j.id, j.size, 0, j.estimate});
    }
  }
  for (const Job& j : current.queue) {
    if (!was_pending.count(j.id)) events.push_back({Kind::Arrived, j.id, j.size, 0, j.estimate});
  }
  return events;
}

}  // namespace los
