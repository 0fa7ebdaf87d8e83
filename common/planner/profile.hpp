// Availability profiles built from outside a policy.
//
// Application schedulers (SA, sa-submit via losd) need the availability list
// of a partition whatever policy runs it. A policy that keeps a plan exposes
// it through Policy::plan(); for one that keeps none (FCFS, time-sharing
// policies) the best that can be said from the snapshot alone is when the
// running jobs are expected to hand their units back.
#pragma once

#include <vector>

#include "model/snapshot.hpp"
#include "planner/planner.hpp"

namespace los {

class Policy;

// The profile of the snapshot's executing jobs: each holds its units until
// its expected end (start + estimate, or now + 1 if already past it).
// Suspended jobs hold no units. Origin = snapshot.now, capacity =
// snapshot.total_units. Queued jobs are not in it: without a plan nothing
// says when they will start.
Planner planner_from_running(const Snapshot& snapshot);

// The availability list a policy's partition offers from snapshot.now on:
// the policy's own plan when it keeps one (running jobs and reservations),
// else (or when the plan's capacity is not snapshot.total_units: the policy
// has not stepped on this partition as it is now) planner_from_running(snapshot). A plan whose origin lies before now is
// cut at now (its past is irrelevant), so the list starts at the later of
// now and the plan's origin, and ends at kTimeInfinity.
std::vector<AvailabilitySlot> availability_list(const Snapshot& snapshot, const Policy& policy);

}  // namespace los
