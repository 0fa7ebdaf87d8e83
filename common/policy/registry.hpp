// The catalogue of policies: every name --policy and losd.yaml accept.
#pragma once

#include <string>
#include <vector>

#include "policy/policy.hpp"

namespace los {

struct PolicyInfo {
  const char* name;
  const char* summary;
  const char* parameters;  // "KEY=DEFAULT meaning; ..." or "" when none
  PolicyPtr (*make)(const PolicySpec&);
};

// All policies, in the order --list-policies prints them.
const std::vector<PolicyInfo>& policy_catalog();

// Builds the policy a spec names; throws PolicySpecError for an unknown name
// or a bad parameter.
PolicyPtr make_policy(const PolicySpec& spec);
PolicyPtr make_policy(const std::string& text);

}  // namespace los
