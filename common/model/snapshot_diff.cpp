#include "model/snapshot_diff.hpp"

#include <unordered_set>

#include "model/job_id_index.hpp"

namespace los {

std::vector<SnapshotEvent> diff_snapshots(const Snapshot& previous, const Snapshot& current,
                                          const std::vector<JobId>& started_by_decision) {
  std::vector<SnapshotEvent> events;
  // Flat indexes and bitmaps, not node-based hash sets: a 100,000-job queue
  // is diffed at every step.
  JobIdIndex was_running(previous.running.size());
  for (std::size_t i = 0; i < previous.running.size(); ++i) was_running.assign(previous.running[i].job.id, i);
  JobIdSet was_pending =
      JobIdSet::for_ids(previous.queue.size(), [&](std::size_t k) { return previous.queue[k].id; });
  for (const Job& j : previous.queue) was_pending.insert(j.id);
  JobIdIndex is_running(current.running.size());
  for (const RunningJob& r : current.running) is_running.insert(r.job.id);
  JobIdSet is_pending = JobIdSet::for_ids(current.queue.size(), [&](std::size_t k) { return current.queue[k].id; });
  for (const Job& j : current.queue) is_pending.insert(j.id);

  using Kind = SnapshotEvent::Kind;
  // Started, Suspended, Resumed: walk the running list of now.
  for (const RunningJob& r : current.running) {
    const std::size_t at = was_running.find(r.job.id);
    if (at == JobIdIndex::kAbsent) {
      events.push_back({Kind::Started, r.job.id, r.job.size, r.start, r.job.estimate});
      if (r.suspended) events.push_back({Kind::Suspended, r.job.id, r.job.size, r.start, r.job.estimate});
      continue;
    }
    const RunningJob* before = &previous.running[at];
    if (before->start != r.start) {
      // Ran, was requeued and started again between the two snapshots.
      const RunningJob& old = *before;
      events.push_back({Kind::Ended, old.job.id, old.job.size, old.start, old.job.estimate});
      events.push_back({Kind::Started, r.job.id, r.job.size, r.start, r.job.estimate});
      continue;
    }
    if (!before->suspended && r.suspended) {
      events.push_back({Kind::Suspended, r.job.id, r.job.size, r.start, r.job.estimate});
    } else if (before->suspended && !r.suspended) {
      events.push_back({Kind::Resumed, r.job.id, r.job.size, r.start, r.job.estimate});
    }
  }
  // Started and already over: ran for less than the time between snapshots.
  std::vector<const Job*> flashed;
  if (!started_by_decision.empty()) {
    const std::unordered_set<JobId> started(started_by_decision.begin(), started_by_decision.end());
    for (const Job& j : previous.queue) {
      if (started.count(j.id) && !is_pending.contains(j.id) && !is_running.contains(j.id)) {
        events.push_back({Kind::Started, j.id, j.size, previous.now, j.estimate});
        flashed.push_back(&j);
      }
    }
  }
  for (const RunningJob& r : previous.running) {
    if (!is_running.contains(r.job.id)) {
      events.push_back({Kind::Ended, r.job.id, r.job.size, r.start, r.job.estimate});
    }
  }
  for (const Job* j : flashed) events.push_back({Kind::Ended, j->id, j->size, previous.now, j->estimate});
  std::unordered_set<JobId> ended_early;
  for (const Job* j : flashed) ended_early.insert(j->id);
  for (const Job& j : previous.queue) {
    if (!is_pending.contains(j.id) && !is_running.contains(j.id) && !ended_early.count(j.id)) {
      events.push_back({Kind::Withdrawn, j.id, j.size, 0, j.estimate});
    }
  }
  for (const Job& j : current.queue) {
    if (!was_pending.contains(j.id)) events.push_back({Kind::Arrived, j.id, j.size, 0, j.estimate});
  }
  return events;
}

}  // namespace los
