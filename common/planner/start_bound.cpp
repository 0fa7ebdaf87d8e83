#include "planner/start_bound.hpp"

#include <algorithm>
#include <bit>
#include <limits>

namespace los {

namespace {
constexpr int kSide = StartBound::kBuckets + 1;
}

int StartBound::bucket(std::int64_t x) {
  if (x <= 1) return 0;
  const int m = static_cast<int>(std::bit_width(static_cast<std::uint64_t>(x))) - 1;  // 1..62
  return 2 * m - 1 + static_cast<int>((x >> (m - 1)) & 1);
}

void StartBound::reset() {
  if (++epoch_ == 0) {  // wrapped: a cell's old epoch could match again
    if (!cells_.empty()) cells_.assign(cells_.size(), Cell{0, 0});
    epoch_ = 1;
  }
}

Time StartBound::lower(std::int64_t size, Time duration) const {
  Time best = std::numeric_limits<Time>::min();
  if (cells_.empty() || size < 1 || duration < 1) return best;
  // Fenwick prefix over buckets [0, bucket(size)) x [0, bucket(duration)):
  // 1-based indices 1..bucket; a bucket beyond the tree is above all of it.
  const int last_j = std::min(bucket(duration), kBuckets);
  for (int i = std::min(bucket(size), kBuckets); i > 0; i -= i & -i) {
    for (int j = last_j; j > 0; j -= j & -j) {
      const Cell& c = cells_[static_cast<std::size_t>(i) * kSide + static_cast<std::size_t>(j)];
      if (c.epoch == epoch_) best = std::max(best, c.start);
    }
  }
  return best;
}

void StartBound::record(std::int64_t size, Time duration, Time start) {
  if (size < 1 || duration < 1 || bucket(size) >= kBuckets || bucket(duration) >= kBuckets) return;
  if (cells_.empty()) cells_.assign(static_cast<std::size_t>(kSide) * kSide, Cell{0, 0});
  // A cell further along either chain covers a superset of this cell's
  // buckets and was written by every record that wrote this one: once a cell
  // already holds `start` or more, so do all the cells after it.
  for (int i = bucket(size) + 1; i < kSide; i += i & -i) {
    const int first_j = bucket(duration) + 1;
    for (int j = first_j; j < kSide; j += j & -j) {
      Cell& c = cells_[static_cast<std::size_t>(i) * kSide + static_cast<std::size_t>(j)];
      if (c.epoch == epoch_ && c.start >= start) {
        if (j == first_j) return;
        break;
      }
      c = Cell{start, epoch_};
    }
  }
}

}  // namespace los
