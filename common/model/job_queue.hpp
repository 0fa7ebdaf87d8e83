// The waiting queue of a snapshot: contiguous jobs in queue order, with the
// std::vector interface the policies use, but removals that do not shift the
// whole queue.
//
// The jobs live in [head_, storage_.size()) of one vector. Removing a job
// moves whichever side of it is shorter: the jobs before it one slot back
// (the head advances) or the jobs after it one slot forward. Under FCFS, EASY
// and LOS the started jobs are near the front, so a step that starts jobs
// costs what precedes them, not the length of the queue (issue 17).
//
// Beside the jobs it keeps their sizes and estimates in parallel int arrays
// (sizes_[k] is storage_[k].size, estimates_[k] storage_[k].estimate clamped
// to int), so a pass can find the next job of a given shape without reading
// the 72-byte jobs before it (first_fitting). Every mutation through the queue keeps the
// arrays true; the non-const element accessors (begin(), operator[], ...)
// hand out references through which a job could change, so they mark them
// unknown (shapes_known() false) until refresh_shapes() or until the queue
// empties. Readers use the const accessors; the iterators that insert() and
// erase() return are positions, not for changing a job's size or estimate.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "model/job.hpp"

namespace los {

class JobQueue {
 public:
  using value_type = Job;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  using reference = Job&;
  using const_reference = const Job&;
  using pointer = Job*;
  using const_pointer = const Job*;
  using iterator = Job*;
  using const_iterator = const Job*;

  JobQueue() = default;
  JobQueue(std::initializer_list<Job> jobs) : storage_(jobs) { refresh_shapes(); }
  JobQueue(std::vector<Job> jobs) : storage_(std::move(jobs)) { refresh_shapes(); }  // NOLINT: converts like a vector
  JobQueue(const JobQueue& other) : storage_(other.begin(), other.end()) { copy_shapes(other); }
  JobQueue(JobQueue&& other) noexcept
      : storage_(std::move(other.storage_)),
        sizes_(std::move(other.sizes_)),
        estimates_(std::move(other.estimates_)),
        head_(std::exchange(other.head_, 0)),
        shapes_known_(std::exchange(other.shapes_known_, true)) {
    other.storage_.clear();
    other.sizes_.clear();
    other.estimates_.clear();
  }
  JobQueue& operator=(const JobQueue& other) {
    if (this != &other) {
      storage_.assign(other.begin(), other.end());
      head_ = 0;
      copy_shapes(other);
    }
    return *this;
  }
  JobQueue& operator=(JobQueue&& other) noexcept {
    if (this != &other) {
      storage_ = std::move(other.storage_);
      sizes_ = std::move(other.sizes_);
      estimates_ = std::move(other.estimates_);
      head_ = std::exchange(other.head_, 0);
      shapes_known_ = std::exchange(other.shapes_known_, true);
      other.storage_.clear();
      other.sizes_.clear();
      other.estimates_.clear();
    }
    return *this;
  }
  JobQueue& operator=(std::initializer_list<Job> jobs) {
    storage_.assign(jobs);
    head_ = 0;
    refresh_shapes();
    return *this;
  }
  JobQueue& operator=(std::vector<Job> jobs) {
    storage_ = std::move(jobs);
    head_ = 0;
    refresh_shapes();
    return *this;
  }
  ~JobQueue() = default;

  size_type size() const { return storage_.size() - head_; }
  bool empty() const { return storage_.size() == head_; }
  size_type capacity() const { return storage_.capacity() - head_; }

  // The non-const accessors may let a job change: the shapes become unknown.
  Job* data() {
    shapes_known_ = false;
    return storage_.data() + head_;
  }
  const Job* data() const { return storage_.data() + head_; }
  iterator begin() { return data(); }
  iterator end() {
    shapes_known_ = false;
    return storage_.data() + storage_.size();
  }
  const_iterator begin() const { return data(); }
  const_iterator end() const { return storage_.data() + storage_.size(); }
  const_iterator cbegin() const { return begin(); }
  const_iterator cend() const { return end(); }

  Job& operator[](size_type i) {
    shapes_known_ = false;
    return storage_[head_ + i];
  }
  const Job& operator[](size_type i) const { return storage_[head_ + i]; }
  Job& front() {
    shapes_known_ = false;
    return storage_[head_];
  }
  const Job& front() const { return storage_[head_]; }
  Job& back() {
    shapes_known_ = false;
    return storage_.back();
  }
  const Job& back() const { return storage_.back(); }

  // True when sizes_ and estimates_ hold every job's (see the file comment).
  bool shapes_known() const { return shapes_known_; }
  // Makes the shapes known again: O(size()).
  void refresh_shapes() {
    sizes_.resize(storage_.size());
    estimates_.resize(storage_.size());
    for (size_type k = head_; k < storage_.size(); ++k) {
      sizes_[k] = storage_[k].size;
      estimates_[k] = clamped(storage_[k].estimate);
    }
    shapes_known_ = true;
  }
  // Which jobs first_fitting() looks for: size <= units, and also
  // size <= narrow_units or estimate <= short_estimate.
  struct Fit {
    std::int64_t units;
    std::int64_t narrow_units;
    Time short_estimate;
  };
  // A position p in [from, to) such that no job in [from, p) is a `fit`:
  // the first fit, or `to` when there is none (from <= to <= size()). The
  // tests are made on values clamped to int (SSE2 compares no wider), which
  // keeps every fit a fit but may also take a job whose estimate or size
  // lies beyond the int range for one: the caller tests the job at p again.
  // Requires shapes_known(); reads 8 bytes a job instead of the job.
  size_type first_fitting(size_type from, size_type to, const Fit& fit) const;

  void reserve(size_type n) {
    if (n > capacity()) {
      compact();
      storage_.reserve(n);
      sizes_.reserve(n);
      estimates_.reserve(n);
    }
  }

  void clear() {
    storage_.clear();
    sizes_.clear();
    estimates_.clear();
    head_ = 0;
    shapes_known_ = true;
  }

  // New jobs are Job{}: size 0 until written through a non-const accessor.
  void resize(size_type n) {
    if (head_ > 0) compact();
    storage_.resize(n);
    sizes_.resize(n, Job{}.size);
    estimates_.resize(n, clamped(Job{}.estimate));
  }

  void push_back(const Job& job) {
    make_room_at_back();
    storage_.push_back(job);
    sizes_.push_back(storage_.back().size);
    estimates_.push_back(clamped(storage_.back().estimate));
  }
  // The returned reference may change the job: the sizes become unknown.
  template <class... Args>
  Job& emplace_back(Args&&... args) {
    make_room_at_back();
    Job& job = storage_.emplace_back(std::forward<Args>(args)...);
    sizes_.push_back(job.size);
    estimates_.push_back(clamped(job.estimate));
    shapes_known_ = false;
    return job;
  }
  void pop_back() {
    storage_.pop_back();
    sizes_.pop_back();
    estimates_.pop_back();
    if (empty()) clear();
  }

  // Inserts before `pos`; uses a free slot before the head when the jobs
  // before `pos` are fewer than those after it.
  iterator insert(const_iterator pos, const Job& job) {
    const auto at = static_cast<size_type>(pos - cbegin());
    if (head_ > 0 && at < size() - at) {
      const Job copy = job;  // `job` may live in the queue
      --head_;
      Job* const first = storage_.data() + head_;
      std::move(first + 1, first + 1 + at, first);
      first[at] = copy;
      int* const first_size = sizes_.data() + head_;
      std::move(first_size + 1, first_size + 1 + at, first_size);
      first_size[at] = copy.size;
      int* const first_estimate = estimates_.data() + head_;
      std::move(first_estimate + 1, first_estimate + 1 + at, first_estimate);
      first_estimate[at] = clamped(copy.estimate);
      return first + at;
    }
    const int size = job.size;  // `job` may live in the queue
    const int estimate = clamped(job.estimate);
    const auto it = storage_.insert(storage_.begin() + static_cast<difference_type>(head_ + at), job);
    sizes_.insert(sizes_.begin() + static_cast<difference_type>(head_ + at), size);
    estimates_.insert(estimates_.begin() + static_cast<difference_type>(head_ + at), estimate);
    return storage_.data() + (it - storage_.begin());
  }

  iterator erase(const_iterator pos) { return erase(pos, pos + 1); }

  // Removes [first, last), moving the shorter of the two sides around it.
  iterator erase(const_iterator first, const_iterator last) {
    const auto from = static_cast<size_type>(first - cbegin());
    const auto count = static_cast<size_type>(last - first);
    Job* const base = storage_.data() + head_;
    if (count == 0) return base + from;
    const size_type after = size() - from - count;
    if (from < after) {
      std::move_backward(base, base + from, base + from + count);
      int* const size_base = sizes_.data() + head_;
      std::move_backward(size_base, size_base + from, size_base + from + count);
      int* const estimate_base = estimates_.data() + head_;
      std::move_backward(estimate_base, estimate_base + from, estimate_base + from + count);
      head_ += count;
    } else {
      const auto b = storage_.begin() + static_cast<difference_type>(head_ + from);
      storage_.erase(b, b + static_cast<difference_type>(count));
      const auto sb = sizes_.begin() + static_cast<difference_type>(head_ + from);
      sizes_.erase(sb, sb + static_cast<difference_type>(count));
      const auto eb = estimates_.begin() + static_cast<difference_type>(head_ + from);
      estimates_.erase(eb, eb + static_cast<difference_type>(count));
    }
    if (empty()) {
      clear();
      return storage_.data();
    }
    return storage_.data() + head_ + from;
  }

  // Removes the jobs at `positions` (indices into the queue, ascending,
  // without repeats) in one pass: the removals up to some split close up by
  // moving the jobs before them back, those after it by moving the jobs
  // after them forward. The split is where the fewest jobs move, so
  // removals at both ends cost only the two ends.
  void erase_positions(std::span<const size_type> positions);

  // Removes the jobs for which predicate(job) holds, keeping the others in
  // order (std::erase_if's meaning); the sizes stay as known as they were.
  template <class Predicate>
  size_type erase_if(Predicate predicate) {
    const size_type end_at = storage_.size();
    size_type out = head_;
    for (size_type k = head_; k < end_at; ++k) {
      if (predicate(std::as_const(storage_[k]))) continue;
      if (out != k) {
        storage_[out] = std::move(storage_[k]);
        sizes_[out] = sizes_[k];
        estimates_[out] = estimates_[k];
      }
      ++out;
    }
    storage_.resize(out);
    sizes_.resize(out);
    estimates_.resize(out);
    if (empty()) clear();
    return end_at - out;
  }

 private:
  // Before the vector would grow: reuse the slots before the head once they
  // are at least as many as the jobs to move (amortised O(1) per removal).
  void make_room_at_back() {
    if (head_ > 0 && storage_.size() == storage_.capacity() && head_ >= size()) compact();
  }
  static int clamped(std::int64_t v) {
    return static_cast<int>(std::clamp<std::int64_t>(v, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
  }
  void compact() {
    if (head_ == 0) return;
    storage_.erase(storage_.begin(), storage_.begin() + static_cast<difference_type>(head_));
    sizes_.erase(sizes_.begin(), sizes_.begin() + static_cast<difference_type>(head_));
    estimates_.erase(estimates_.begin(), estimates_.begin() + static_cast<difference_type>(head_));
    head_ = 0;
  }
  // After storage_ became a copy of other's jobs (head_ 0).
  void copy_shapes(const JobQueue& other) {
    if (!other.shapes_known_) {
      refresh_shapes();
      return;
    }
    sizes_.assign(other.sizes_.begin() + static_cast<difference_type>(other.head_), other.sizes_.end());
    estimates_.assign(other.estimates_.begin() + static_cast<difference_type>(other.head_), other.estimates_.end());
    shapes_known_ = true;
  }

  std::vector<Job> storage_;
  std::vector<int> sizes_;       // parallel to storage_: sizes_[k] == storage_[k].size while shapes_known_
  std::vector<int> estimates_;   // and estimates_[k] == clamped(storage_[k].estimate)
  size_type head_ = 0;      // storage_[0, head_) are free slots
  bool shapes_known_ = true;
};

// std::erase_if for the queue (found by argument-dependent lookup).
template <class Predicate>
JobQueue::size_type erase_if(JobQueue& queue, Predicate predicate) {
  return queue.erase_if(predicate);
}

}  // namespace los
