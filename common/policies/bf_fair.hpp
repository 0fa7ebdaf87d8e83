// BF-FAIR: backfilling without reservations, the queue ordered by the users'
// normalized wait (the fairness paper's baseline, modelled on MetaCentrum's
// TORQUE fair-share; spec ../shared/specs/fairness-tabu.md, section 5).
//
// Every step the waiting jobs are stably sorted by their user's normalized
// user wait time NUWT = total wait / max(1, total run time x size) over the
// user's *finished* jobs, highest first: users who waited most for the work
// they got go first. A user without a finished job, or whose finished jobs
// never waited (NUWT 0; Alea's priority 1/NUWT is infinite), goes last; ties
// keep queue order. Then every job that fits now starts, in that order
// (aggressive backfilling: no reservations, no estimates needed). No decay.
//
// State: the per-user totals, learned from Ended events (start and size
// come with the event, the end is now, submit and user were seen in the
// queue). A resync keeps them: the finished jobs are history, not state of
// the cluster. A live resync carries no events, so a job that ended since
// the last step is learned from the running jobs: running then, not now.
#pragma once

#include <unordered_map>
#include <vector>

#include "policy/policy.hpp"

namespace los {

class BfFairPolicy final : public Policy {
 public:
  explicit BfFairPolicy(RunMode mode = RunMode::Simulation) : live_(mode == RunMode::Live) {}
  std::string name() const override { return "bf-fair"; }
  StepResult step(const Snapshot& snapshot) override;
  // The per-user totals, and who submitted the running jobs and when (their
  // ends in a forecast's replay count for their users).
  void copy_history_to(Policy& fresh) const override;

  // NUWT of a user from its finished jobs; 0 for a user without one.
  double user_nuwt(int user) const;

 private:
  struct Seen {
    int user;
    Time submit;
  };
  struct UserTotals {
    double wait = 0;
    double area = 0;
  };
  struct Running {
    JobId id;
    Time start;
    int size;
  };
  // Job `id` ended at `now`: its user's totals take its wait and area.
  void finish(JobId id, Time start, int size, Time now);

  bool live_;
  std::unordered_map<JobId, Seen> seen_;  // jobs waiting or running
  std::unordered_map<int, UserTotals> users_;
  std::vector<Running> running_;  // live: the last step's running jobs (storage reused)
};

PolicyPtr make_bf_fair(const ParamValues& values, RunMode mode);

}  // namespace los
