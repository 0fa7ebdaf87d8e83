#include "policy/policy_spec.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

namespace los {
namespace {

bool valid_word(std::string_view w) {
  if (w.empty()) return false;
  return std::all_of(w.begin(), w.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.';
  });
}

}  // namespace

PolicySpec PolicySpec::parse(std::string_view text) {
  PolicySpec spec;
  std::size_t pos = text.find(':');
  spec.name = std::string(text.substr(0, pos));
  if (!valid_word(spec.name)) {
    throw PolicySpecError("policy '" + std::string(text) + "': missing or malformed policy name");
  }
  while (pos != std::string_view::npos) {
    const std::size_t next = text.find(':', pos + 1);
    const std::string_view part = text.substr(pos + 1, next == std::string_view::npos ? next : next - pos - 1);
    const std::size_t eq = part.find('=');
    const std::string key(part.substr(0, eq));
    const std::string value = eq == std::string_view::npos ? "true" : std::string(part.substr(eq + 1));
    if (!valid_word(key)) {
      throw PolicySpecError("policy '" + std::string(text) + "': malformed parameter '" + std::string(part) +
                            "' (expected KEY or KEY=VALUE)");
    }
    if (value.empty()) {
      throw PolicySpecError("policy '" + std::string(text) + "': parameter '" + key + "' has an empty value");
    }
    if (spec.params.count(key)) {
      throw PolicySpecError("policy '" + std::string(text) + "': parameter '" + key + "' given twice");
    }
    spec.params[key] = value;
    pos = next;
  }
  return spec;
}

std::string PolicySpec::to_string() const {
  std::string out = name;
  for (const auto& [k, v] : params) out += ":" + k + "=" + v;
  return out;
}

const std::string* PolicySpec::find(const std::string& key) const {
  asked_.push_back(key);
  const auto it = params.find(key);
  return it == params.end() ? nullptr : &it->second;
}

long long PolicySpec::get_int(const std::string& key, long long fallback, long long min, long long max) const {
  const std::string* v = find(key);
  if (!v) return fallback;
  errno = 0;
  char* end = nullptr;
  const long long x = std::strtoll(v->c_str(), &end, 10);
  if (errno != 0 || end == v->c_str() || *end != '\0') {
    throw PolicySpecError("policy '" + name + "': parameter '" + key + "' must be an integer, got '" + *v + "'");
  }
  if (x < min || x > max) {
    throw PolicySpecError("policy '" + name + "': parameter '" + key + "' must be in [" + std::to_string(min) +
                          ", " + std::to_string(max) + "], got " + *v);
  }
  return x;
}

double PolicySpec::get_double(const std::string& key, double fallback, double min, double max) const {
  const std::string* v = find(key);
  if (!v) return fallback;
  errno = 0;
  char* end = nullptr;
  const double x = std::strtod(v->c_str(), &end);
  if (errno != 0 || end == v->c_str() || *end != '\0') {
    throw PolicySpecError("policy '" + name + "': parameter '" + key + "' must be a number, got '" + *v + "'");
  }
  if (!(x >= min && x <= max)) {
    throw PolicySpecError("policy '" + name + "': parameter '" + key + "' must be in [" + std::to_string(min) +
                          ", " + std::to_string(max) + "], got " + *v);
  }
  return x;
}

bool PolicySpec::get_bool(const std::string& key, bool fallback) const {
  const std::string* v = find(key);
  if (!v) return fallback;
  if (*v == "true" || *v == "1" || *v == "yes" || *v == "on") return true;
  if (*v == "false" || *v == "0" || *v == "no" || *v == "off") return false;
  throw PolicySpecError("policy '" + name + "': parameter '" + key + "' must be true or false, got '" + *v + "'");
}

std::string PolicySpec::get_choice(const std::string& key, const std::string& fallback,
                                   const std::vector<std::string>& choices) const {
  const std::string* v = find(key);
  if (!v) return fallback;
  if (std::find(choices.begin(), choices.end(), *v) != choices.end()) return *v;
  std::string list;
  for (const auto& c : choices) list += (list.empty() ? "" : ", ") + c;
  throw PolicySpecError("policy '" + name + "': parameter '" + key + "' must be one of " + list + ", got '" + *v +
                        "'");
}

void PolicySpec::reject_unknown() const {
  for (const auto& [k, v] : params) {
    if (std::find(asked_.begin(), asked_.end(), k) == asked_.end()) {
      std::string known;
      for (const auto& a : asked_) known += (known.empty() ? "" : ", ") + a;
      throw PolicySpecError("policy '" + name + "': unknown parameter '" + k + "'" +
                            (known.empty() ? " (it takes none)" : " (known: " + known + ")"));
    }
  }
}

std::vector<PolicySpec> parse_policy_list(std::string_view text) {
  std::vector<PolicySpec> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t comma = text.find(',', pos);
    const std::string_view one = text.substr(pos, comma == std::string_view::npos ? comma : comma - pos);
    out.push_back(PolicySpec::parse(one));
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return out;
}

}  // namespace los
