// The invariant checker: properties every schedule must have, checked on a
// simulated run. Used by the tests on every shared trace and by
// `los-sim --check`.
//   - capacity: executing jobs never hold more units than the machine has;
//   - causality: no job starts before its submit time or ends before it starts;
//     every job runs, but a record withdrawn by its user (Job::cancel_lag)
//     that was still waiting at its cancel time; a withdrawn record that ran
//     started before its cancel time and ended no later than it;
//   - promises: no job starts later than the first reservation its policy
//     gave it (EASY's head job, every job under conservative). This holds
//     only while jobs end by their estimates, so it is checked only with
//     kill-at-estimate.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "sim/simulator.hpp"

namespace los {

class InvariantChecker final : public SimObserver {
 public:
  void after_step(const Snapshot& snapshot, const StepResult& result, const Policy& policy) override;

  // All violations found in the run (empty = the run is sound). At most
  // `limit` are listed.
  std::vector<std::string> check(const SimResult& result, bool kill_at_estimate, std::size_t limit = 20) const;

  // First promised start per job, as recorded.
  const std::unordered_map<JobId, Time>& first_promises() const { return first_promise_; }

 private:
  std::unordered_map<JobId, Time> first_promise_;
  std::vector<std::string> step_violations_;
};

}  // namespace los
