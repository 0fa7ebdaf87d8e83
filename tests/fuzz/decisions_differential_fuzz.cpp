// The plugin's C decoder against losd's C++ decoder on the same DECISIONS
// payload: both accept and read the same message, or both refuse
// (docs/protocol.md). Any disagreement aborts.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>

#include "codec.h"
#include "protocol/codec.hpp"
#include "snapshot.h"

namespace {

struct CDecisions {
  los_decisions d{};
  CDecisions() = default;
  CDecisions(const CDecisions&) = delete;
  CDecisions& operator=(const CDecisions&) = delete;
  ~CDecisions() { los_decisions_free(&d); }
};

bool same(const los_decisions& c, const los::protocol::DecisionsMessage& m) {
  const std::int64_t wakeup = m.wakeup == los::kTimeInfinity ? LOS_START_UNKNOWN : m.wakeup;
  if (c.seq != m.seq || c.wakeup != wakeup || c.count != m.decisions.size()) return false;
  for (std::uint32_t i = 0; i < c.count; ++i) {
    const los_decision& x = c.items[i];
    const los::protocol::WireDecision& y = m.decisions[i];
    if (x.kind != static_cast<std::uint8_t>(y.kind) || x.expected != y.expected_state ||
        x.job != static_cast<std::uint64_t>(y.job) || y.partition != x.partition || x.node_count != y.nodes.size()) {
      return false;
    }
    for (std::uint32_t n = 0; n < x.node_count; ++n) {
      if (y.nodes[n] != x.nodes[n]) return false;
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  CDecisions c;
  char err[256] = "";
  const bool c_ok = los_decode_decisions(data, size, &c.d, err, sizeof err) == 0;
  bool cpp_ok = false;
  los::protocol::DecisionsMessage m;
  try {
    m = los::protocol::decode_decisions(std::span<const std::uint8_t>(data, size));
    cpp_ok = true;
  } catch (const los::protocol::DecodeError&) {
  }
  if (c_ok != cpp_ok) std::abort();
  if (c_ok && !same(c.d, m)) std::abort();
  return 0;
}
