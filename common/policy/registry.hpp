// The catalogue of policies: every name --policy and losd.yaml accept, each
// with its one parameter table.
#pragma once

#include <string>
#include <vector>

#include "policy/policy.hpp"

namespace los {

struct PolicyInfo {
  const char* name;
  const char* summary;
  // The parameters and their defaults; drives parsing, name(), --list-policies
  // and the docs' tables.
  const ParamTable& (*parameters)();
  // Builds the policy from checked values; values.canonical() is its name().
  PolicyPtr (*make)(const ParamValues& values, RunMode mode);
};

// All policies, in the order --list-policies prints them.
const std::vector<PolicyInfo>& policy_catalog();
// The entry for `name`; throws SpecError naming the known policies.
const PolicyInfo& policy_info(const std::string& name);

// Builds the policy a spec names; throws SpecError for an unknown name or a
// bad parameter.
PolicyPtr make_policy(const Spec& spec, RunMode mode = RunMode::Simulation);
PolicyPtr make_policy(const std::string& text, RunMode mode = RunMode::Simulation);

// The canonical spelling of a spec (its policy's name()) without building it.
std::string canonical_policy(const std::string& text);

// --list-policies: each policy, its summary and its parameter table.
std::string policy_catalog_text();
// The same as a Markdown table (--list-policies --format markdown): the
// parameter reference of docs/policies.md, which a test keeps equal to it.
std::string policy_catalog_markdown();

}  // namespace los
