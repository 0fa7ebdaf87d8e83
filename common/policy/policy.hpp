// The one policy interface.
//
// A policy is a deterministic step function: (its own explicit state, a
// snapshot of one partition at time t) -> (decisions, new state). losd feeds it
// live snapshots, los-sim simulated ones, and both get the same decisions for
// the same sequence of snapshots.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "model/snapshot.hpp"
#include "planner/planner.hpp"
#include "util/spec.hpp"

namespace los {

struct Decision {
  enum class Kind { Start, Suspend, Resume, Requeue };
  Kind kind = Kind::Start;
  JobId job = 0;
  // Units the job is placed on (unit indices of the snapshot); empty means
  // "any free units" and the caller chooses.
  std::vector<int> nodes;
  // Seconds of lost work charged to the job before it progresses again
  // (context switch or migration overhead); simulation only.
  Time overhead = 0;

  static Decision start(JobId id) { return {Kind::Start, id, {}, 0}; }
  static Decision suspend(JobId id) { return {Kind::Suspend, id, {}, 0}; }
  static Decision resume(JobId id) { return {Kind::Resume, id, {}, 0}; }
};

struct StepResult {
  std::vector<Decision> decisions;
  // Call step() again at this time even if nothing happens (time slices);
  // kTimeInfinity when the policy needs no timer.
  Time wakeup = kTimeInfinity;
  // Time sharing: how many jobs of the queue the policy has already admitted
  // (placed in a gang matrix, waiting for their row's first slice). They are
  // not "waiting" for the loss of capacity; 0 for space-sharing policies.
  std::size_t admitted = 0;
  // The step's budget stopped its planning (docs/policies.md, "A step's
  // budget"): the plan is not yet what a whole step would make, and the
  // wakeup a second later carries it on. Operators see it as
  // los_steps_cut_total.
  bool work_left = false;
};

// Where a policy runs. In simulation every step must be reproducible, so a
// policy bounds its work by counts only; live, wall-clock caps apply too.
enum class RunMode { Simulation, Live };

// What a policy can do, stated by the policy so that callers need not infer
// it from names or from the snapshot.
struct Capabilities {
  // Rebuilds its state from a snapshot alone when snapshot.resync is set
  // (a daemon restart, a lost message). Without it a caller must feed the
  // policy from a cold start: nothing running, the queue as arrivals.
  bool resync = true;
  // Suspends and resumes jobs (time sharing): a live partition it runs on
  // must let several jobs share a node, and Suspend / Resume decisions occur.
  bool time_sharing = false;
  // Caps its work in wall-clock time when it runs live (RunMode::Live).
  bool wall_clock_budget = false;
  // Promises a start (reservations()) to every waiting job it can ever run,
  // once its plan is whole: a job without one has no prediction yet (a
  // step's budget has not reached it, or it fits no machine this size), and
  // losd's STARTS reports it unknown rather than replaying the queue.
  bool promises_every_start = false;
  // The most jobs it may hold on one node at once, executing or suspended
  // (1 for space sharing; the gang family: mpl; pect: one per class, 3). A
  // live partition must let Slurm hold that many (Snapshot::time_slots, N of
  // OverSubscribe=FORCE:N): losd refuses the policy on a partition with
  // fewer (docs/gang-live.md).
  int jobs_per_node = 1;
};

// A start time the policy has promised (a reservation) or predicts.
struct PlannedStart {
  JobId job;
  Time start;
};

class Policy {
 public:
  virtual ~Policy() = default;

  // The canonical spelling of this policy and its parameters, e.g.
  // "depth:k=4"; parse_policy_spec(name()) makes an identical policy.
  virtual std::string name() const = 0;

  virtual Capabilities capabilities() const { return {}; }

  // One scheduling step. Decisions are applied in order.
  virtual StepResult step(const Snapshot& snapshot) = 0;

  // Reservations currently held: jobs promised a start time. Empty for
  // policies without reservations. The invariant checker asserts that no job
  // starts later than its first promise.
  virtual std::vector<PlannedStart> reservations() const { return {}; }

  // The policy's availability profile after the last step (running jobs and
  // reservations), or nullptr if it keeps none.
  virtual const Planner* plan() const { return nullptr; }

  // Hands `fresh`, a new instance of the same spec that has not stepped, what
  // this policy learned from the jobs it saw end and no snapshot holds
  // (bf-fair's per-user totals, LOS's estimate accuracy), so that a start
  // forecast replays the queue with the live policy's history, not a blank
  // one. Nothing by default: the other policies rebuild what they keep from
  // a snapshot, except tabu's fairness totals, whose finished jobs' share is
  // not separated from the plan's yet (its forecasts start without them).
  virtual void copy_history_to(Policy& /*fresh*/) const {}
};

using PolicyPtr = std::unique_ptr<Policy>;

// Prepares the first step of a fresh policy instance on a snapshot of a
// partition already in use (losd after a restart or a policy change, a
// forecast from a live snapshot). With nothing running the instance misses
// nothing: it learns the queue as arrivals, exactly as at the start of a
// simulation. Otherwise it must rebuild from the snapshot: mark_resync.
void begin_from_snapshot(Snapshot& snapshot, const Policy& policy);

// Marks a snapshot whose events are unknown (losd restarted, a policy
// switch, a lost message): events cleared, resync set, so the policy
// rebuilds its state from the snapshot alone. Every registered policy can;
// one without Capabilities::resync cannot while jobs run, and this throws
// std::runtime_error naming it (losd answers the step with an error).
void mark_resync(Snapshot& snapshot, const Policy& policy);

}  // namespace los
