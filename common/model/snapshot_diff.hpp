// Deriving a snapshot's events from the snapshot before it.
//
// losd receives whole snapshots from the Slurm plugin, not events; a stateful
// policy needs the events (Started, Ended, ...) to keep its reservations in
// step with the cluster. Comparing two successive snapshots of one partition
// gives exactly what the simulator reports between the same two steps:
//   Started   pending before, running now (start = the running job's start)
//   Suspended / Resumed   running before and now, suspended flag changed
//   Ended     running before, gone now (or back in the queue: requeued)
//   Withdrawn pending before, gone now
//   Arrived   pending now, not pending before (new, or requeued)
// A job running now that was never seen pending (it started between
// snapshots) is reported Started as well. A job the previous step's decisions
// started (`started_by_decision`) that is gone already ran and ended between
// the snapshots: Started (at the previous snapshot's time) and Ended, not
// Withdrawn. Events come in that order, each
// kind in the order of the snapshot lists, as the simulator emits them.
#pragma once

#include <vector>

#include "model/job_id_index.hpp"
#include "model/snapshot.hpp"

namespace los {

// A snapshot's job ids as diff_snapshots reads them. losd's decoder builds
// them while it checks the ids for duplicates and keeps them with the
// snapshot until the next step's diff, so a 100,000-job queue is not walked
// again (80 bytes a job) to build them twice at every step.
struct SnapshotIds {
  std::vector<JobId> pending;  // the queue's ids, in queue order
  JobIdSet pending_set;        // the same ids
  JobIdIndex running;          // id -> position in the running list

  // The ids of `snapshot` (simulations, tests, a snapshot not decoded).
  static SnapshotIds of(const Snapshot& snapshot);
};

// Events that turn `previous` into `current` (same partition); `was` and `is`
// are their ids (SnapshotIds::of each).
std::vector<SnapshotEvent> diff_snapshots(const Snapshot& previous, const SnapshotIds& was, const Snapshot& current,
                                          const SnapshotIds& is, const std::vector<JobId>& started_by_decision = {});

// The same, building both snapshots' ids.
std::vector<SnapshotEvent> diff_snapshots(const Snapshot& previous, const Snapshot& current,
                                          const std::vector<JobId>& started_by_decision = {});

}  // namespace los
