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
#include "policy/policy_spec.hpp"

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

  // One scheduling step. Decisions are applied in order.
  virtual StepResult step(const Snapshot& snapshot) = 0;

  // Reservations currently held: jobs promised a start time. Empty for
  // policies without reservations. The invariant checker asserts that no job
  // starts later than its first promise.
  virtual std::vector<PlannedStart> reservations() const { return {}; }

  // The policy's availability profile after the last step (running jobs and
  // reservations), or nullptr if it keeps none.
  virtual const Planner* plan() const { return nullptr; }
};

using PolicyPtr = std::unique_ptr<Policy>;

}  // namespace los
