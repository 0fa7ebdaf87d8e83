#include "planner/profile.hpp"

#include "policy/policy.hpp"

namespace los {

Planner planner_from_running(const Snapshot& snapshot) {
  Planner planner(snapshot.total_units, snapshot.now);
  for (const RunningJob& r : snapshot.running) {
    if (r.suspended) continue;
    planner.add(snapshot.now, r.expected_end(snapshot.now), -r.job.size);
  }
  return planner;
}

std::vector<AvailabilitySlot> availability_list(const Snapshot& snapshot, const Policy& policy) {
  const Planner* plan = policy.plan();
  // A plan of another capacity is not this partition's as it is now (the
  // policy has not stepped on it yet, or nodes were drained since).
  if (plan == nullptr || plan->capacity() != snapshot.total_units) return planner_from_running(snapshot).slots();
  std::vector<AvailabilitySlot> slots = plan->slots();
  // Drop what ended before now and start the first remaining slot at now.
  std::erase_if(slots, [&](const AvailabilitySlot& s) { return s.end <= snapshot.now; });
  if (!slots.empty() && slots.front().start < snapshot.now) slots.front().start = snapshot.now;
  return slots;
}

}  // namespace los
