#include "planner/replan.hpp"

#include <unordered_map>

namespace los {

std::vector<QueuedHolder> queued_holders(const std::vector<JobId>& holders, std::span<const Job> queue) {
  std::unordered_map<JobId, const Job*> queued;
  queued.reserve(queue.size());
  for (const Job& j : queue) queued[j.id] = &j;
  std::vector<QueuedHolder> out;
  out.reserve(holders.size());
  for (std::size_t i = 0; i < holders.size(); ++i) {
    const auto it = queued.find(holders[i]);
    if (it != queued.end()) out.push_back({i, it->second});
  }
  return out;
}

}  // namespace los
