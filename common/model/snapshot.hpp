// What a policy sees at one scheduling step: the cluster and queue at time
// `now`, plus what changed since the previous step.
//
// The simulator keeps one Snapshot and updates it in place between steps; the
// daemon builds one from each message of the Slurm plugin. Policies read it and
// never keep references into it across steps.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "model/job.hpp"
#include "model/job_queue.hpp"

namespace los {

// A node of a live partition. In simulation units are fungible and the
// snapshot carries no node list.
struct Node {
  enum class State { Idle, Allocated, Drained, Down };
  std::string name;
  State state = State::Idle;
  bool usable() const { return state == State::Idle || state == State::Allocated; }
};

// A job that holds allocation units. A suspended job (gang scheduling) keeps
// its place on its nodes but does not count against free units.
struct RunningJob {
  Job job;
  Time start = 0;  // first start
  bool suspended = false;
  std::vector<int> nodes;  // unit indices where the policy placed it; may be empty

  // When the policy should expect the units back: the estimate is a hard
  // limit, but a job that runs past it (no kill) is expected to end "now".
  Time expected_end(Time now) const {
    const Time planned = start + job.estimate;
    return planned > now ? planned : now + 1;
  }
};

// Changes since the previous step. A policy that keeps state (reservations, a
// plan, a matrix) updates it from these; a stateless policy ignores them.
struct SnapshotEvent {
  enum class Kind {
    Arrived,    // appeared in the queue
    Started,    // left the queue and is running (by this policy's decision or not)
    Ended,      // left the running set
    Withdrawn,  // left the queue without running (cancelled, held)
    Suspended,
    Resumed,
  };
  Kind kind;
  JobId job;
  int size = 0;
  Time start = 0;     // Started / Ended: the start time
  Time estimate = 0;  // Started / Ended: the job's estimate
};

// One partition at one instant: each policy instance schedules one partition.
struct Snapshot {
  std::string partition;  // empty in simulation
  Time now = 0;
  int total_units = 0;              // usable units (a drained or down node is not usable)
  int free_units = 0;               // usable units held by no executing job
  std::vector<RunningJob> running;  // executing and suspended jobs, any order
  JobQueue queue;                   // waiting jobs in queue (priority) order
  std::vector<Node> nodes;          // live partitions only; index = unit index
  // Live partitions: how many jobs Slurm lets the scheduler hold on one node
  // at once, running or suspended (OverSubscribe=FORCE:N without Slurm's own
  // gang scheduling gives N; otherwise 1). A time-sharing policy needs >= 2.
  int time_slots = 1;
  std::vector<SnapshotEvent> events;
  // The events above are incomplete (a daemon restart, a lost message): a
  // stateful policy must rebuild its state from the snapshot alone.
  bool resync = false;
  // Live: when losd had read the whole snapshot message. A step's wall-clock
  // budget counts from here, so the time spent decoding and diffing the
  // snapshot counts against it too; unset (simulations, tests): from the
  // policy's own start.
  std::chrono::steady_clock::time_point received{};
};

// Sets total_units and free_units of a live partition from its nodes and
// running jobs: total = usable (idle or allocated) nodes; free = total minus
// the sizes of executing (not suspended) jobs minus allocated nodes that no
// job of this partition holds (another partition's jobs on overlapping
// nodes), at least 0.
void derive_units(Snapshot& snapshot);

}  // namespace los
