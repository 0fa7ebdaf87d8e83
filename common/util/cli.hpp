// The one exception-to-exit-status rule of the command-line tools.
#pragma once

#include <functional>
#include <string>

namespace los {

// Runs a tool's body and returns its exit status. An exception is printed
// as "PROG: message" on stderr and becomes 2 when the command line was wrong
// (UsageError, SpecError: a bad policy or key, ModelError: a bad model), 1
// otherwise (unreadable input, a failed write, a failed run).
int run_cli(const std::string& prog, const std::function<int()>& body);

}  // namespace los
