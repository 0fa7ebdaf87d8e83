// Times as the command-line tools print them.
#pragma once

#include <string>

#include "model/job.hpp"

namespace los {

// `t` (seconds since the epoch) in local time, ISO 8601 without a zone:
// "2026-11-22T12:08:00". `t` must be finite.
std::string local_time(Time t);

}  // namespace los
