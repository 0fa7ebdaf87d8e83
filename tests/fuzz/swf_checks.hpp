// What the SWF reader promises about a workload it accepts
// (workload/swf.hpp), shared by the in-memory and the file targets.
#pragma once

#include <cstdlib>

#include "workload/swf.hpp"

namespace los::fuzz {

// Aborts unless jobs are sorted by submit time, times lie within kTimeMax,
// sizes within the machine, estimates are positive and the counts add up.
inline void check_workload(const Workload& w) {
  if (w.units <= 0) std::abort();
  if (w.jobs.size() + w.cleaning.dropped() != w.cleaning.records) std::abort();
  for (std::size_t i = 0; i < w.jobs.size(); ++i) {
    const Job& j = w.jobs[i];
    if (i > 0 && j.submit < w.jobs[i - 1].submit) std::abort();
    if (j.submit < 0 || j.submit > kTimeMax) std::abort();
    if (j.runtime < 0 || j.runtime > kTimeMax) std::abort();
    if (j.estimate < 1 || j.estimate > kTimeMax) std::abort();
    if (j.size < 1 || j.size > w.units) std::abort();
  }
}

}  // namespace los::fuzz
