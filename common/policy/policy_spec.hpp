// How a policy is written: NAME[:KEY[=VALUE]]...  (a bare KEY means true).
// "easy", "depth:k=4", "los:lookahead=100:traceback=selected-first".
// The same spelling is used by los-sim --policy and by losd's configuration.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace los {

class PolicySpecError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class PolicySpec {
 public:
  std::string name;
  std::map<std::string, std::string> params;

  // Parses one spec; throws PolicySpecError naming the offending part.
  static PolicySpec parse(std::string_view text);

  // Canonical spelling: name, then keys in sorted order.
  std::string to_string() const;

  // Typed access for policy factories. Each getter marks the key as known;
  // reject_unknown() then names any key the policy did not ask for.
  long long get_int(const std::string& key, long long fallback, long long min, long long max) const;
  double get_double(const std::string& key, double fallback, double min, double max) const;
  bool get_bool(const std::string& key, bool fallback) const;
  std::string get_choice(const std::string& key, const std::string& fallback,
                         const std::vector<std::string>& choices) const;
  void reject_unknown() const;

 private:
  const std::string* find(const std::string& key) const;
  mutable std::vector<std::string> asked_;
};

// Splits "a,b:k=1,c" into specs (commas separate policies).
std::vector<PolicySpec> parse_policy_list(std::string_view text);

}  // namespace los
