#include "model/snapshot_diff.hpp"

#include <cassert>

namespace los {

SnapshotIds SnapshotIds::of(const Snapshot& snapshot) {
  SnapshotIds ids;
  ids.pending.reserve(snapshot.queue.size());
  for (const Job& j : snapshot.queue) ids.pending.push_back(j.id);
  ids.pending_set = JobIdSet::for_ids(ids.pending.size(), [&](std::size_t k) { return ids.pending[k]; });
  for (JobId id : ids.pending) ids.pending_set.insert(id);
  ids.running.reserve(snapshot.running.size());
  for (std::size_t i = 0; i < snapshot.running.size(); ++i) ids.running.assign(snapshot.running[i].job.id, i);
  return ids;
}

std::vector<SnapshotEvent> diff_snapshots(const Snapshot& previous, const SnapshotIds& was, const Snapshot& current,
                                          const SnapshotIds& is, const std::vector<JobId>& started_by_decision) {
  assert(was.pending.size() == previous.queue.size() && is.pending.size() == current.queue.size());
  std::vector<SnapshotEvent> events;
  using Kind = SnapshotEvent::Kind;
  // Started, Suspended, Resumed: walk the running list of now.
  for (const RunningJob& r : current.running) {
    const std::size_t at = was.running.find(r.job.id);
    if (at == JobIdIndex::kAbsent) {
      events.push_back({Kind::Started, r.job.id, r.job.size, r.start, r.job.estimate});
      if (r.suspended) events.push_back({Kind::Suspended, r.job.id, r.job.size, r.start, r.job.estimate});
      continue;
    }
    const RunningJob& before = previous.running[at];
    if (before.start != r.start) {
      // Ran, was requeued and started again between the two snapshots.
      events.push_back({Kind::Ended, before.job.id, before.job.size, before.start, before.job.estimate});
      events.push_back({Kind::Started, r.job.id, r.job.size, r.start, r.job.estimate});
      continue;
    }
    if (!before.suspended && r.suspended) {
      events.push_back({Kind::Suspended, r.job.id, r.job.size, r.start, r.job.estimate});
    } else if (before.suspended && !r.suspended) {
      events.push_back({Kind::Resumed, r.job.id, r.job.size, r.start, r.job.estimate});
    }
  }
  const auto gone = [&is](JobId id) { return !is.pending_set.contains(id) && !is.running.contains(id); };
  // Started and already over: ran for less than the time between snapshots.
  // Rare: the queue of before is walked only when a started job is gone.
  std::vector<JobId> gone_started;
  for (JobId id : started_by_decision) {
    if (gone(id)) gone_started.push_back(id);
  }
  JobIdSet flashed_ids = JobIdSet::for_ids(gone_started.size(), [&](std::size_t k) { return gone_started[k]; });
  for (JobId id : gone_started) flashed_ids.insert(id);
  std::vector<std::size_t> flashed;  // positions in previous.queue, in its order
  for (std::size_t k = 0; !gone_started.empty() && k < was.pending.size(); ++k) {
    if (!flashed_ids.contains(was.pending[k])) continue;
    const Job& j = previous.queue[k];
    events.push_back({Kind::Started, j.id, j.size, previous.now, j.estimate});
    flashed.push_back(k);
  }
  for (const RunningJob& r : previous.running) {
    if (!is.running.contains(r.job.id)) {
      events.push_back({Kind::Ended, r.job.id, r.job.size, r.start, r.job.estimate});
    }
  }
  for (std::size_t k : flashed) {
    const Job& j = previous.queue[k];
    events.push_back({Kind::Ended, j.id, j.size, previous.now, j.estimate});
  }
  for (std::size_t k = 0; k < was.pending.size(); ++k) {
    const JobId id = was.pending[k];
    if (gone(id) && !flashed_ids.contains(id)) {
      const Job& j = previous.queue[k];
      events.push_back({Kind::Withdrawn, j.id, j.size, 0, j.estimate});
    }
  }
  for (std::size_t k = 0; k < is.pending.size(); ++k) {
    if (was.pending_set.contains(is.pending[k])) continue;
    const Job& j = current.queue[k];
    events.push_back({Kind::Arrived, j.id, j.size, 0, j.estimate});
  }
  return events;
}

std::vector<SnapshotEvent> diff_snapshots(const Snapshot& previous, const Snapshot& current,
                                          const std::vector<JobId>& started_by_decision) {
  return diff_snapshots(previous, SnapshotIds::of(previous), current, SnapshotIds::of(current), started_by_decision);
}

}  // namespace los
