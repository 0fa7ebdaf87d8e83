// sa-submit's shapes ("NODESxTIME") and Slurm time limits on arbitrary text:
// they may only refuse with std::invalid_argument, and what they accept is a
// positive number of nodes and seconds.
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "sa/shape_spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const los::ShapeSpec s = los::parse_shape_spec(text);
    if (s.shape.nodes < 1 || s.shape.request < 1) std::abort();
  } catch (const std::invalid_argument&) {
  }
  try {
    if (los::parse_slurm_time(text) < 0) std::abort();
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
