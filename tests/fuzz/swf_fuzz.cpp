// The SWF reader on arbitrary text from memory. It may only refuse with
// WorkloadError; what it accepts must hold what the simulator relies on
// (swf_checks.hpp).
#include <cstdint>
#include <string>

#include "swf_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  los::SwfReadOptions options;
  options.units = data[0] % 2 ? 0 : 64;  // the header's size, or --nodes 64
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    los::fuzz::check_workload(los::parse_swf(text, "fuzz.swf", options));
  } catch (const los::WorkloadError&) {
  }
  return 0;
}
