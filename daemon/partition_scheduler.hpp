// One partition under one policy: the daemon's counterpart of los-sim's loop.
//
// Each snapshot of the partition is compared with the previous one to derive
// its events (common/model/snapshot_diff.hpp), then handed to the same Policy
// object los-sim would use, so losd's decisions equal los-sim's for the same
// snapshot sequence. A start decision without nodes gets the first idle nodes
// (in the snapshot's node order) not yet held or given away.
//
// Decisions go out as common/policy/live_decisions.hpp says: a migration
// becomes a requeue (docs/gang-live.md).
//
// After a daemon restart, a policy switch, a plugin resync or a gap in the
// snapshot sequence the events are not known: the step is marked `resync`
// and a stateful policy rebuilds from the snapshot alone. The exception: a
// policy instance's first step on a partition where nothing runs sees the
// queue as arrivals, as at the start of a simulation.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/snapshot.hpp"
#include "model/snapshot_diff.hpp"
#include "policy/policy.hpp"
#include "protocol/codec.hpp"

namespace los::daemon {

class PartitionScheduler {
 public:
  // Builds the policy; throws SpecError for a bad spec.
  PartitionScheduler(std::string name, const std::string& policy_spec);

  const std::string& name() const { return name_; }
  // The canonical spec of the policy in use.
  std::string policy_name() const { return policy_->name(); }
  // Replaces the policy (a fresh instance); the next step resyncs.
  void set_policy(const std::string& policy_spec);

  struct Outcome {
    std::vector<protocol::WireDecision> decisions;
    Time wakeup = kTimeInfinity;  // the policy's timer (StepResult::wakeup)
    std::chrono::nanoseconds step_time{0};
    int started = 0;
    // Actual minus first reserved start, for jobs that started since the last step.
    std::vector<double> prediction_errors;
    std::size_t reservations = 0;  // the policy's reservations after the step
    bool work_left = false;        // StepResult::work_left
  };
  // One step on `snapshot` (this partition's part of a plugin snapshot);
  // `ids` are its ids where the decoder built them (else built here).
  Outcome step(Snapshot snapshot, bool resync, std::optional<SnapshotIds> ids = std::nullopt);

  // The latest snapshot (nullptr before the first); its events are cleared.
  const Snapshot* last() const { return previous_ ? &*previous_ : nullptr; }
  const Policy& policy() const { return *policy_; }
  // The jobs of last()'s queue the latest step decided to start.
  const std::vector<JobId>& started_last() const { return started_last_; }
  std::chrono::nanoseconds last_step_time() const { return last_step_time_; }

 private:
  // The node names of decision `d` (a start of `size` nodes without a
  // placement takes the first idle nodes not `taken`, from `first_free` on:
  // every node before it is taken or not idle).
  std::vector<std::string> place(const Snapshot& s, const Decision& d, int size, std::vector<char>& taken,
                                 std::size_t& first_free) const;

  std::string name_;
  PolicyPtr policy_;
  std::optional<Snapshot> previous_;
  SnapshotIds previous_ids_;  // previous_'s, for the next diff
  std::vector<JobId> started_last_;
  bool need_resync_ = true;
  bool fresh_policy_ = true;  // this policy instance has not stepped yet
  std::unordered_map<JobId, Time> first_promise_;
  std::chrono::nanoseconds last_step_time_{0};
};

}  // namespace los::daemon
