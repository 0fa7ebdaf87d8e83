// The SWF reader on arbitrary text from memory. It may only refuse with
// WorkloadError; what it accepts must hold what the simulator relies on
// (workload/swf.hpp): jobs sorted by submit time, times within kTimeMax,
// sizes within the machine, positive estimates, counts that add up.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "workload/swf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  los::SwfReadOptions options;
  options.units = data[0] % 2 ? 0 : 64;  // the header's size, or --nodes 64
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    const los::Workload w = los::parse_swf(text, "fuzz.swf", options);
    if (w.units <= 0) std::abort();
    if (w.jobs.size() + w.cleaning.dropped() != w.cleaning.records) std::abort();
    for (std::size_t i = 0; i < w.jobs.size(); ++i) {
      const los::Job& j = w.jobs[i];
      if (i > 0 && j.submit < w.jobs[i - 1].submit) std::abort();
      if (j.submit < 0 || j.submit > los::kTimeMax) std::abort();
      if (j.runtime < 0 || j.runtime > los::kTimeMax) std::abort();
      if (j.estimate < 1 || j.estimate > los::kTimeMax) std::abort();
      if (j.size < 1 || j.size > w.units) std::abort();
    }
  } catch (const los::WorkloadError&) {
  }
  return 0;
}
