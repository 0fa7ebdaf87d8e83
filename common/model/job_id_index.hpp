// Job ids in the bookkeeping of long queues (the snapshot decoder's duplicate
// check, snapshot_diff, the backfilling policies' reservations): 100,000 ids
// per step without an allocation per id.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "model/job.hpp"

namespace los {

// Job id -> V: open addressing in one array (linear probing, at most half
// full, deletion by shifting the probe run back, so no tombstones). One cache
// line per look-up where std::unordered_map reads a bucket and then a node:
// the policies look up every waiting job in every step.
template <class V>
class JobMap {
 public:
  JobMap() = default;

  // Room for `n` ids without rehashing.
  void reserve(std::size_t n) {
    std::size_t capacity = 16;
    while (capacity < 2 * n) capacity *= 2;
    if (capacity > slots_.size()) rehash(capacity);
  }
  V* find(JobId id) {
    if (slots_.empty()) return nullptr;
    Slot& s = slots_[find_slot(id)];
    return s.used ? &s.value : nullptr;
  }
  const V* find(JobId id) const { return const_cast<JobMap*>(this)->find(id); }
  bool contains(JobId id) const { return find(id) != nullptr; }
  // Adds id -> value unless id is present; true when added.
  bool insert(JobId id, const V& value) {
    if (2 * (size_ + 1) > slots_.size()) rehash(slots_.empty() ? 16 : 2 * slots_.size());
    Slot& s = slots_[find_slot(id)];
    if (s.used) return false;
    s = Slot{id, value, true};
    ++size_;
    return true;
  }
  // The value of id, a V{} added first if id is absent (as std::map's []).
  V& operator[](JobId id) {
    if (2 * (size_ + 1) > slots_.size()) rehash(slots_.empty() ? 16 : 2 * slots_.size());
    Slot& s = slots_[find_slot(id)];
    if (!s.used) {
      s = Slot{id, V{}, true};
      ++size_;
    }
    return s.value;
  }
  // Maps id to value, whether or not id is present.
  void assign(JobId id, const V& value) {
    if (!insert(id, value)) slots_[find_slot(id)].value = value;
  }
  // Removes id; true when it was present.
  bool erase(JobId id) {
    if (slots_.empty()) return false;
    const std::size_t mask = slots_.size() - 1;
    std::size_t hole = find_slot(id);
    if (!slots_[hole].used) return false;
    // Move back every later entry of the run whose home is not between the
    // hole and it (cyclically): its probe from home would cross the hole.
    for (std::size_t i = (hole + 1) & mask; slots_[i].used; i = (i + 1) & mask) {
      const std::size_t home = hash(slots_[i].id) & mask;
      if (((i - home) & mask) >= ((i - hole) & mask)) {
        slots_[hole] = slots_[i];
        hole = i;
      }
    }
    slots_[hole].used = false;
    --size_;
    return true;
  }
  void clear() {
    for (Slot& s : slots_) s.used = false;
    size_ = 0;
  }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // f(id, value) for every entry, in no particular order.
  template <class F>
  void for_each(const F& f) const {
    for (const Slot& s : slots_) {
      if (s.used) f(s.id, s.value);
    }
  }

 private:
  struct Slot {
    JobId id = 0;
    V value{};
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
  // The slot holding id, or the empty slot where it would go (the table is
  // at most half full, so one exists).
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

// Job id -> position in a list.
class JobIdIndex {
 public:
  static constexpr std::size_t kAbsent = std::numeric_limits<std::size_t>::max();

  JobIdIndex() = default;
  explicit JobIdIndex(std::size_t expected) { map_.reserve(expected); }

  void reserve(std::size_t n) { map_.reserve(n); }
  // Adds id -> position unless id is present; true when added.
  bool insert(JobId id, std::size_t position = 0) { return map_.insert(id, position); }
  // Maps id to position, whether or not id is present.
  void assign(JobId id, std::size_t position) { map_.assign(id, position); }
  // The position stored with id, or kAbsent.
  std::size_t find(JobId id) const {
    const std::size_t* p = map_.find(id);
    return p != nullptr ? *p : kAbsent;
  }
  bool contains(JobId id) const { return map_.contains(id); }
  std::size_t size() const { return map_.size(); }

 private:
  JobMap<std::size_t> map_;
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
