#include "model/job_queue.hpp"

namespace los {

void JobQueue::erase_positions(std::span<const size_type> positions) {
  const size_type k = positions.size();
  if (k == 0) return;
  const size_type n = size();
  // Split s: positions[0, s) close up from the front (the jobs before
  // positions[s-1] move back), positions[s, k) from the back (the jobs after
  // positions[s] move forward). Jobs moved: positions[s-1] - (s-1) before,
  // n - 1 - positions[s] - (k-1-s) after.
  size_type best_split = 0;
  size_type best_moves = n - 1 - positions[0] - (k - 1);
  for (size_type s = 1; s <= k; ++s) {
    const size_type before = positions[s - 1] - (s - 1);
    const size_type after = s < k ? n - 1 - positions[s] - (k - 1 - s) : 0;
    if (before + after < best_moves) {
      best_moves = before + after;
      best_split = s;
    }
  }

  Job* const base = data();
  if (best_split < k) {
    // Close the gaps at positions[s..k) by moving each run between them forward.
    Job* out = base + positions[best_split];
    for (size_type r = best_split; r < k; ++r) {
      const size_type run_end = r + 1 < k ? positions[r + 1] : n;
      out = std::move(base + positions[r] + 1, base + run_end, out);
    }
    storage_.resize(static_cast<size_type>(out - storage_.data()));
  }
  if (best_split > 0) {
    // Close the gaps at positions[0..s) by moving each run between them back.
    Job* out = base + positions[best_split - 1] + 1;
    for (size_type r = best_split; r-- > 0;) {
      const size_type run_begin = r > 0 ? positions[r - 1] + 1 : 0;
      out = std::move_backward(base + run_begin, base + positions[r], out);
    }
    head_ += best_split;
  }
  if (empty()) clear();
}

}  // namespace los
