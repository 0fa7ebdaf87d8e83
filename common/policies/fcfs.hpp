// FCFS: start jobs in queue order while the next one fits; never backfill.
#pragma once

#include "policy/policy.hpp"

namespace los {

class FcfsPolicy final : public Policy {
 public:
  std::string name() const override { return "fcfs"; }
  StepResult step(const Snapshot& snapshot) override;
};

PolicyPtr make_fcfs(const ParamValues& values, RunMode mode);

}  // namespace los
