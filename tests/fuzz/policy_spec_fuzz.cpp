// Policy specs as users write them (--policy, losd.yaml, losctl set-policy):
// Spec::parse and make_policy on arbitrary text. They may only refuse with
// SpecError. An accepted spec's canonical text must read back as the same
// spec.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "policy/registry.hpp"
#include "util/spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const los::Spec spec = los::Spec::parse(text);
    const los::Spec again = los::Spec::parse(spec.to_string());
    if (again.name != spec.name || again.params != spec.params) std::abort();
    los::make_policy(spec);
  } catch (const los::SpecError&) {
  }
  try {
    los::parse_spec_list(text);
  } catch (const los::SpecError&) {
  }
  return 0;
}
