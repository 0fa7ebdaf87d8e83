#include "model/snapshot.hpp"

#include <algorithm>
#include <cstdint>

namespace los {

void derive_units(Snapshot& s) {
  std::int64_t usable = 0;
  for (const Node& n : s.nodes) usable += n.usable();
  std::vector<char> held(s.nodes.size(), 0);
  std::int64_t executing = 0;
  for (const RunningJob& rj : s.running) {
    if (!rj.suspended) executing += rj.job.size;
    for (int n : rj.nodes) held[static_cast<std::size_t>(n)] = 1;
  }
  std::int64_t foreign = 0;
  for (std::size_t i = 0; i < s.nodes.size(); ++i) {
    if (s.nodes[i].state == Node::State::Allocated && !held[i]) ++foreign;
  }
  s.total_units = static_cast<int>(usable);
  s.free_units = static_cast<int>(std::max<std::int64_t>(0, usable - executing - foreign));
}

}  // namespace los
