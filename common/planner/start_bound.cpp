#include "planner/start_bound.hpp"

#include <algorithm>
#include <bit>
#include <limits>
#include <vector>

namespace los {

StartBound::StartBound(int octave_bits) : bits_(std::clamp(octave_bits, 1, 4)), buckets_(buckets(bits_)) {}

int StartBound::bucket(std::int64_t x, int bits) {
  if (x <= 1) return 0;
  const int m = static_cast<int>(std::bit_width(static_cast<std::uint64_t>(x))) - 1;  // 1..62
  if (m < bits) return static_cast<int>(x) - 1;  // below 2^bits: one bucket per value
  const int per = 1 << bits;
  return (per - 1) + per * (m - bits) + static_cast<int>((x >> (m - bits)) & (per - 1));
}

std::int64_t StartBound::lower_edge(int b, int bits) {
  const int per = 1 << bits;
  if (b < per - 1) return b + 1;  // one bucket per value below 2^bits
  const int k = b - (per - 1);
  return static_cast<std::int64_t>(per + k % per) << (k / per);
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
  const int side = buckets_ + 1;
  const int last_j = std::min(bucket(duration, bits_), buckets_);
  for (int i = std::min(bucket(size, bits_), buckets_); i > 0; i -= i & -i) {
    for (int j = last_j; j > 0; j -= j & -j) {
      const Cell& c = cells_[static_cast<std::size_t>(i) * static_cast<std::size_t>(side) + static_cast<std::size_t>(j)];
      if (c.epoch == epoch_) best = std::max(best, c.start);
    }
  }
  return best;
}

void StartBound::record(std::int64_t size, Time duration, Time start) {
  const int size_bucket = bucket(size, bits_);
  const int duration_bucket = bucket(duration, bits_);
  if (size < 1 || duration < 1 || size_bucket >= buckets_ || duration_bucket >= buckets_) return;
  const int side = buckets_ + 1;
  if (cells_.empty()) cells_.assign(static_cast<std::size_t>(side) * static_cast<std::size_t>(side), Cell{0, 0});
  // A cell further along either chain covers a superset of this cell's
  // buckets and was written by every record that wrote this one: once a cell
  // already holds `start` or more, so do all the cells after it.
  for (int i = size_bucket + 1; i < side; i += i & -i) {
    const int first_j = duration_bucket + 1;
    for (int j = first_j; j < side; j += j & -j) {
      Cell& c = cells_[static_cast<std::size_t>(i) * static_cast<std::size_t>(side) + static_cast<std::size_t>(j)];
      if (c.epoch == epoch_ && c.start >= start) {
        if (j == first_j) return;
        break;
      }
      c = Cell{start, epoch_};
    }
  }
}

void StartBound::seed(const Planner& profile, std::int64_t max_size) {
  // Class c stands for the largest size of bucket c: a query of a higher
  // bucket reads it, and no smaller size bounds that query more tightly.
  // A class is open (a run of at least its size under way since run_start)
  // or closed; with more free units every class of a lower bucket is open
  // too, so the open ones are a prefix: those up to bucket(free + 1).
  const int classes = std::min(bucket(std::max<std::int64_t>(max_size, 1), bits_), buckets_);
  if (classes <= 0) return;
  struct Class {
    std::int64_t size;
    Time run_start;
    Time longest;  // the longest run closed so far
  };
  std::vector<Class> cls(static_cast<std::size_t>(classes));
  for (int c = 0; c < classes; ++c) cls[static_cast<std::size_t>(c)] = {lower_edge(c + 1, bits_) - 1, 0, 0};
  // The run of class c ends at `at`: durations in (longest, at - run_start]
  // start first where it began (the earliest start of a duration rises only
  // at a run longer than all before it).
  const auto close = [&](Class& k, Time at) {
    const Time length = at >= kTimeInfinity ? kTimeInfinity : at - k.run_start;
    if (length <= k.longest) return;
    record(k.size, k.longest + 1, k.run_start);
    k.longest = length;
  };
  int open = 0;
  for (const AvailabilitySlot& slot : profile.slots()) {
    const int now_open = slot.free < 1 ? 0 : std::min(bucket(slot.free + 1, bits_), classes);
    for (int c = open; c < now_open; ++c) cls[static_cast<std::size_t>(c)].run_start = slot.start;
    for (int c = now_open; c < open; ++c) close(cls[static_cast<std::size_t>(c)], slot.start);
    open = now_open;
  }
  // The last slot lasts for ever.
  for (int c = 0; c < open; ++c) close(cls[static_cast<std::size_t>(c)], kTimeInfinity);
}

}  // namespace los
