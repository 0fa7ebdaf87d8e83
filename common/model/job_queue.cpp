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

  // The same runs move in the jobs and in their sizes.
  const auto close_up = [&](auto* base) {
    if (best_split < k) {
      // Close the gaps at positions[s..k) by moving each run between them forward.
      auto* out = base + positions[best_split];
      for (size_type r = best_split; r < k; ++r) {
        const size_type run_end = r + 1 < k ? positions[r + 1] : n;
        out = std::move(base + positions[r] + 1, base + run_end, out);
      }
    }
    if (best_split > 0) {
      // Close the gaps at positions[0..s) by moving each run between them back.
      auto* out = base + positions[best_split - 1] + 1;
      for (size_type r = best_split; r-- > 0;) {
        const size_type run_begin = r > 0 ? positions[r - 1] + 1 : 0;
        out = std::move_backward(base + run_begin, base + positions[r], out);
      }
    }
  };
  close_up(storage_.data() + head_);
  close_up(sizes_.data() + head_);
  close_up(estimates_.data() + head_);
  const size_type new_end = storage_.size() - (k - best_split);
  storage_.resize(new_end);
  sizes_.resize(new_end);
  estimates_.resize(new_end);
  head_ += best_split;
  if (empty()) clear();
}

JobQueue::size_type JobQueue::first_fitting(size_type from, size_type to, const Fit& fit) const {
  // Clamping is monotone: a <= b implies clamped(a) <= clamped(b), so no fit
  // is lost (see the declaration).
  const int units = clamped(fit.units);
  const int narrow = clamped(fit.narrow_units);
  const int short_estimate = clamped(fit.short_estimate);
  const int* const sizes = sizes_.data();
  const int* const estimates = estimates_.data();
  const auto fits = [&](size_type k) {
    return static_cast<int>(sizes[k] <= units) &
           (static_cast<int>(sizes[k] <= narrow) | static_cast<int>(estimates[k] <= short_estimate));
  };
  const size_type end_at = head_ + to;
  size_type k = head_ + from;
  // Whole blocks without a branch per job (the compiler vectorises the inner
  // loop), then the block with the hit, job by job.
  constexpr size_type kBlock = 32;
  for (; k + kBlock <= end_at; k += kBlock) {
    int hits = 0;
    for (size_type c = 0; c < kBlock; ++c) hits |= fits(k + c);
    if (hits != 0) break;
  }
  for (; k < end_at; ++k) {
    if (fits(k) != 0) return k - head_;
  }
  return to;
}

}  // namespace los
