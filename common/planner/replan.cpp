#include "planner/replan.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "model/job_id_index.hpp"

namespace los {

std::vector<QueuedHolder> queued_holders(const std::vector<JobId>& holders, std::span<const Job> queue) {
  std::vector<QueuedHolder> out;
  out.reserve(holders.size());
  if (queue.empty()) return out;
  // Slurm numbers jobs consecutively: a queue's ids usually lie within a few
  // queue lengths of each other, and then a position per id in that range,
  // written and read in nearly id order, finds 100,000 holders in well under
  // a millisecond, where a hash table misses the cache (or allocates) per
  // job. Any other ids go through the hash table.
  const auto [lo, hi] = std::minmax_element(queue.begin(), queue.end(),
                                            [](const Job& a, const Job& b) { return a.id < b.id; });
  const auto range = static_cast<std::uint64_t>(hi->id) - static_cast<std::uint64_t>(lo->id);
  constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
  if (range < 4 * static_cast<std::uint64_t>(queue.size()) + 64 && queue.size() < kNone) {
    std::vector<std::uint32_t> position(range + 1, kNone);
    const auto offset = [first = static_cast<std::uint64_t>(lo->id)](JobId id) {
      return static_cast<std::uint64_t>(id) - first;  // modulo 2^64: ids below the first wrap past the range
    };
    for (std::size_t p = 0; p < queue.size(); ++p) position[offset(queue[p].id)] = static_cast<std::uint32_t>(p);
    for (std::size_t i = 0; i < holders.size(); ++i) {
      const std::uint64_t at = offset(holders[i]);
      if (at > range) continue;
      const std::uint32_t p = position[at];
      if (p != kNone) out.push_back({i, &queue[p]});
    }
    return out;
  }
  JobIdIndex position(queue.size());
  for (std::size_t p = 0; p < queue.size(); ++p) position.assign(queue[p].id, p);
  for (std::size_t i = 0; i < holders.size(); ++i) {
    const std::size_t p = position.find(holders[i]);
    if (p != JobIdIndex::kAbsent) out.push_back({i, &queue[p]});
  }
  return out;
}

}  // namespace los
