#include "util/parse.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace los {

long long parse_integer(const std::string& option, const std::string& text, long long min, long long max) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || errno != 0 || *end != '\0') {
    throw UsageError(option + ": expected a whole number, got '" + text + "'");
  }
  if (v < min || v > max) {
    throw UsageError(option + ": " + text + " is outside [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  }
  return v;
}

double parse_number(const std::string& option, const std::string& text, double min, double max) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || errno != 0 || *end != '\0' || !std::isfinite(v)) {
    throw UsageError(option + ": expected a number, got '" + text + "'");
  }
  if (v < min || v > max) {
    throw UsageError(option + ": " + text + " is outside [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  }
  return v;
}

}  // namespace los
