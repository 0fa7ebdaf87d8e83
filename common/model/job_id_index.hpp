// Job ids in the per-snapshot bookkeeping of long queues (the snapshot
// decoder's duplicate check, snapshot_diff): 100,000 ids per step without an
// allocation per id.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "model/job.hpp"

namespace los {

// Job id -> position: open addressing in one array.
class JobIdIndex {
 public:
  static constexpr std::size_t kAbsent = std::numeric_limits<std::size_t>::max();

  JobIdIndex() = default;
  explicit JobIdIndex(std::size_t expected) { reserve(expected); }

  // Room for `n` ids without rehashing.
  void reserve(std::size_t n) {
    std::size_t capacity = 16;
    while (capacity < 2 * n) capacity *= 2;
    if (capacity > slots_.size()) rehash(capacity);
  }
  // Adds id -> position unless id is present; true when added.
  bool insert(JobId id, std::size_t position = 0) {
    if (2 * (size_ + 1) > slots_.size()) rehash(slots_.empty() ? 16 : 2 * slots_.size());
    Slot& s = slots_[find_slot(id)];
    if (s.used) return false;
    s = {id, position, true};
    ++size_;
    return true;
  }
  // Maps id to position, whether or not id is present.
  void assign(JobId id, std::size_t position) {
    if (!insert(id, position)) slots_[find_slot(id)].position = position;
  }
  // The position stored with id, or kAbsent.
  std::size_t find(JobId id) const {
    if (slots_.empty()) return kAbsent;
    const Slot& s = slots_[find_slot(id)];
    return s.used ? s.position : kAbsent;
  }
  bool contains(JobId id) const { return find(id) != kAbsent; }
  std::size_t size() const { return size_; }

 private:
  struct Slot {
    JobId id = 0;
    std::size_t position = 0;
    bool used = false;
  };
  static std::size_t hash(JobId id) {
    // splitmix64's finalizer: consecutive ids spread over the table
    auto x = static_cast<std::uint64_t>(id);
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return static_cast<std::size_t>(x);
  }
  // The slot holding id, or the empty slot where it would go (linear probing;
  // the table is at most half full, so one exists).
  std::size_t find_slot(JobId id) const {
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = hash(id) & mask;
    while (slots_[i].used && slots_[i].id != id) i = (i + 1) & mask;
    return i;
  }
  void rehash(std::size_t capacity) {
    std::vector<Slot> old = std::exchange(slots_, std::vector<Slot>(capacity));
    for (const Slot& s : old) {
      if (s.used) slots_[find_slot(s.id)] = s;
    }
  }

  std::vector<Slot> slots_;
  std::size_t size_ = 0;
};

// A set of job ids: a bitmap over a window of ids, a JobIdIndex for the ids
// outside it. Slurm numbers jobs consecutively, so nearly every id of a queue
// lies within a few queue lengths of the queue's median id; the bitmap then
// stays in cache where a hash table of 100,000 ids misses it on every probe.
// Correct for any ids; only the speed depends on their spread.
class JobIdSet {
 public:
  JobIdSet() = default;
  // The window [centre - span, centre + span).
  JobIdSet(JobId centre, std::size_t span)
      : first_(static_cast<std::uint64_t>(centre) - span), words_((2 * span + 63) / 64, 0) {}

  // A set to hold `count` ids of which `sample(k)`, k < count, is the k-th:
  // the window is centred on the median of up to 63 evenly spaced samples and
  // spans twice `count` on each side.
  template <class Sample>
  static JobIdSet for_ids(std::size_t count, const Sample& sample) {
    if (count == 0) return {};
    const std::size_t n = std::min<std::size_t>(count, 63);
    std::vector<JobId> picked(n);
    for (std::size_t k = 0; k < n; ++k) picked[k] = sample(k * count / n);
    std::nth_element(picked.begin(), picked.begin() + static_cast<std::ptrdiff_t>(n / 2), picked.end());
    return JobIdSet(picked[n / 2], 2 * count + 64);
  }

  // Adds id; true when it was not present.
  bool insert(JobId id) {
    const std::uint64_t at = static_cast<std::uint64_t>(id) - first_;
    if (at < 64 * words_.size()) {
      std::uint64_t& word = words_[at / 64];
      const std::uint64_t bit = std::uint64_t{1} << (at % 64);
      if (word & bit) return false;
      word |= bit;
      return true;
    }
    return outside_.insert(id);
  }
  bool contains(JobId id) const {
    const std::uint64_t at = static_cast<std::uint64_t>(id) - first_;
    if (at < 64 * words_.size()) return (words_[at / 64] >> (at % 64)) & 1;
    return outside_.contains(id);
  }

 private:
  std::uint64_t first_ = 0;  // the window's first id, as unsigned (wraps)
  std::vector<std::uint64_t> words_;
  JobIdIndex outside_;
};

}  // namespace los
