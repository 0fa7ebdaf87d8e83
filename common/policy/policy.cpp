#include "policy/policy.hpp"

#include <stdexcept>

#include "model/snapshot_diff.hpp"

namespace los {

void begin_from_snapshot(Snapshot& snapshot, const Policy& policy) {
  if (snapshot.running.empty()) {
    Snapshot empty;
    empty.now = snapshot.now;
    snapshot.events = diff_snapshots(empty, snapshot);
    snapshot.resync = false;
    return;
  }
  mark_resync(snapshot, policy);
}

void mark_resync(Snapshot& snapshot, const Policy& policy) {
  if (!policy.capabilities().resync && !snapshot.running.empty()) {
    throw std::runtime_error("policy " + policy.name() + " cannot rebuild its state from a snapshot while " +
                             std::to_string(snapshot.running.size()) +
                             " jobs run (it needs every event from its first step on)");
  }
  snapshot.events.clear();
  snapshot.resync = true;
}

}  // namespace los
