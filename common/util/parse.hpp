// Parsing command-line values with errors that name the option.
#pragma once

#include <stdexcept>
#include <string>

namespace los {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Whole number in [min, max]; throws UsageError "OPTION: ..." otherwise.
long long parse_integer(const std::string& option, const std::string& text, long long min, long long max);

// Finite number in [min, max].
double parse_number(const std::string& option, const std::string& text, double min, double max);

}  // namespace los
