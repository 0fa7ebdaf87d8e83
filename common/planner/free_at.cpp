#include "planner/free_at.hpp"

#include <algorithm>

namespace los {

void FreeAt::reset(std::int64_t capacity, Time now) {
  buckets_.clear();
  head_ = 0;
  capacity_ = std::max<std::int64_t>(0, capacity);
  if (capacity_ > 0) buckets_.push_back({now, capacity_});
}

void FreeAt::hold(std::int64_t units, Time until) {
  if (units <= 0 || head_ >= buckets_.size()) return;
  // The held units come out of the first bucket (all free "now" at this
  // point) and move to `until`.
  Bucket& first = buckets_[head_];
  units = std::min(units, first.units);
  if (until <= first.at) return;
  first.units -= units;
  if (first.units == 0) ++head_;
  add(until, units);
}

Time FreeAt::kth(std::int64_t k) const {
  if (k <= 0) return head_ < buckets_.size() ? buckets_[head_].at : kTimeInfinity;
  for (std::size_t i = head_; i < buckets_.size(); ++i) {
    k -= buckets_[i].units;
    if (k <= 0) return buckets_[i].at;
  }
  return kTimeInfinity;
}

FreeAt::KthOfTwo FreeAt::kth_of_two(std::int64_t a, std::int64_t b) const {
  // Each rank's bucket is found walking on from the previous (smaller) one.
  std::size_t i = head_;
  std::int64_t before = 0;  // units in the buckets before i
  const auto walk_to = [&](std::int64_t k) {
    while (i < buckets_.size() && before + buckets_[i].units < k) before += buckets_[i++].units;
    return i < buckets_.size() ? buckets_[i].at : kTimeInfinity;
  };
  const std::int64_t low = std::min(a, b);
  const Time at_low = walk_to(low);
  const Time at_high = walk_to(std::max(a, b));
  const Time at_sum = walk_to(a + b);
  return a == low ? KthOfTwo{at_low, at_high, at_sum} : KthOfTwo{at_high, at_low, at_sum};
}

std::int64_t FreeAt::units_by(Time t) const {
  std::int64_t units = 0;
  for (std::size_t i = head_; i < buckets_.size() && buckets_[i].at <= t; ++i) units += buckets_[i].units;
  return units;
}

void FreeAt::place(std::int64_t k, Time end) {
  std::int64_t taken = 0;
  while (k > 0 && head_ < buckets_.size()) {
    Bucket& b = buckets_[head_];
    const std::int64_t take = std::min(k, b.units);
    b.units -= take;
    k -= take;
    taken += take;
    if (b.units == 0) ++head_;
  }
  // Consumed buckets pile up before head_: drop them once they are half the
  // storage, so the vector stays as large as the live buckets.
  if (head_ >= 32 && 2 * head_ >= buckets_.size()) {
    buckets_.erase(buckets_.begin(), buckets_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
  }
  add(end, taken);
}

void FreeAt::add(Time at, std::int64_t units) {
  if (units <= 0) return;
  // Half the additions of a replay are the latest free time (a job placed
  // late in the list ends after every unit it leaves behind): append or
  // merge without a search.
  if (head_ == buckets_.size() || buckets_.back().at < at) {
    buckets_.push_back({at, units});
    return;
  }
  if (buckets_.back().at == at) {
    buckets_.back().units += units;
    return;
  }
  // The first bucket after `at`, before the last one: a branch-free binary
  // search (the position is random, so a branching search mispredicts at
  // every step).
  const Bucket* base = buckets_.data() + head_;
  std::size_t n = buckets_.size() - 1 - head_;
  while (n > 1) {
    const std::size_t half = n / 2;
    base = base[half].at <= at ? base + half : base;
    n -= half;
  }
  std::size_t i = static_cast<std::size_t>(base - buckets_.data());
  if (n == 1 && base->at <= at) ++i;
  if (i > head_ && buckets_[i - 1].at == at) {
    buckets_[i - 1].units += units;
    return;
  }
  // Make room on the shorter side: the consumed buckets before head_ are
  // free storage, so the part before `i` can move one place down instead of
  // the part after it moving up.
  if (head_ > 0 && i - head_ <= buckets_.size() - i) {
    std::move(buckets_.begin() + static_cast<std::ptrdiff_t>(head_), buckets_.begin() + static_cast<std::ptrdiff_t>(i),
              buckets_.begin() + static_cast<std::ptrdiff_t>(head_) - 1);
    --head_;
    buckets_[i - 1] = {at, units};
    return;
  }
  buckets_.insert(buckets_.begin() + static_cast<std::ptrdiff_t>(i), {at, units});
}

void FreeAt::assign(const FreeAt& other) {
  buckets_.assign(other.buckets_.begin() + static_cast<std::ptrdiff_t>(other.head_), other.buckets_.end());
  head_ = 0;
  capacity_ = other.capacity_;
}

}  // namespace los
