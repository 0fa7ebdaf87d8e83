// A policy's decisions as losd sends them to a live Slurm partition
// (docs/gang-live.md, migration). The simulator moves a job between units in
// place; Slurm cannot, so:
//   - a Resume that places a started job on other units than it holds is a
//     migration: it becomes a Requeue of that job (Slurm stops it with
//     SIGTERM, SIGKILL KillWait seconds later, and queues it again), and the
//     job's Suspend of the same step is dropped. The policy keeps the job on
//     its new units and starts it there when it is back in the queue;
//   - a job suspended and resumed on its own units in one step while it
//     executes (the simulator's way to charge it a migration stall) is left
//     alone: neither decision is sent.
// Only a job that opted in (Job::migratable) may be migrated: a policy that
// moves another one is a bug, and this throws std::logic_error naming it.
#pragma once

#include <string>
#include <vector>

#include "policy/policy.hpp"

namespace los {

std::vector<Decision> live_decisions(const Snapshot& snapshot, const std::vector<Decision>& decisions,
                                     const std::string& policy);

}  // namespace los
