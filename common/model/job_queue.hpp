// The waiting queue of a snapshot: contiguous jobs in queue order, with the
// std::vector interface the policies use, but removals that do not shift the
// whole queue.
//
// The jobs live in [head_, storage_.size()) of one vector. Removing a job
// moves whichever side of it is shorter: the jobs before it one slot back
// (the head advances) or the jobs after it one slot forward. Under FCFS, EASY
// and LOS the started jobs are near the front, so a step that starts jobs
// costs what precedes them, not the length of the queue (issue 17).
#pragma once

#include <algorithm>
#include <cstddef>
#include <initializer_list>
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
  JobQueue(std::initializer_list<Job> jobs) : storage_(jobs) {}
  JobQueue(std::vector<Job> jobs) : storage_(std::move(jobs)) {}  // NOLINT: converts like a vector
  JobQueue(const JobQueue& other) : storage_(other.begin(), other.end()) {}
  JobQueue(JobQueue&& other) noexcept : storage_(std::move(other.storage_)), head_(std::exchange(other.head_, 0)) {
    other.storage_.clear();
  }
  JobQueue& operator=(const JobQueue& other) {
    if (this != &other) {
      storage_.assign(other.begin(), other.end());
      head_ = 0;
    }
    return *this;
  }
  JobQueue& operator=(JobQueue&& other) noexcept {
    if (this != &other) {
      storage_ = std::move(other.storage_);
      head_ = std::exchange(other.head_, 0);
      other.storage_.clear();
    }
    return *this;
  }
  JobQueue& operator=(std::initializer_list<Job> jobs) {
    storage_.assign(jobs);
    head_ = 0;
    return *this;
  }
  JobQueue& operator=(std::vector<Job> jobs) {
    storage_ = std::move(jobs);
    head_ = 0;
    return *this;
  }
  ~JobQueue() = default;

  size_type size() const { return storage_.size() - head_; }
  bool empty() const { return storage_.size() == head_; }
  size_type capacity() const { return storage_.capacity() - head_; }

  Job* data() { return storage_.data() + head_; }
  const Job* data() const { return storage_.data() + head_; }
  iterator begin() { return data(); }
  iterator end() { return storage_.data() + storage_.size(); }
  const_iterator begin() const { return data(); }
  const_iterator end() const { return storage_.data() + storage_.size(); }
  const_iterator cbegin() const { return begin(); }
  const_iterator cend() const { return end(); }

  Job& operator[](size_type i) { return storage_[head_ + i]; }
  const Job& operator[](size_type i) const { return storage_[head_ + i]; }
  Job& front() { return storage_[head_]; }
  const Job& front() const { return storage_[head_]; }
  Job& back() { return storage_.back(); }
  const Job& back() const { return storage_.back(); }

  void reserve(size_type n) {
    if (n > capacity()) {
      compact();
      storage_.reserve(n);
    }
  }

  void clear() {
    storage_.clear();
    head_ = 0;
  }

  void resize(size_type n) {
    if (head_ > 0) compact();
    storage_.resize(n);
  }

  void push_back(const Job& job) {
    make_room_at_back();
    storage_.push_back(job);
  }
  template <class... Args>
  Job& emplace_back(Args&&... args) {
    make_room_at_back();
    return storage_.emplace_back(std::forward<Args>(args)...);
  }
  void pop_back() {
    storage_.pop_back();
    if (empty()) clear();
  }

  // Inserts before `pos`; uses a free slot before the head when the jobs
  // before `pos` are fewer than those after it.
  iterator insert(const_iterator pos, const Job& job) {
    const auto at = static_cast<size_type>(pos - begin());
    if (head_ > 0 && at < size() - at) {
      const Job copy = job;  // `job` may live in the queue
      --head_;
      Job* const first = data();
      std::move(first + 1, first + 1 + at, first);
      first[at] = copy;
      return first + at;
    }
    const auto it = storage_.insert(storage_.begin() + static_cast<difference_type>(head_ + at), job);
    return storage_.data() + (it - storage_.begin());
  }

  iterator erase(const_iterator pos) { return erase(pos, pos + 1); }

  // Removes [first, last), moving the shorter of the two sides around it.
  iterator erase(const_iterator first, const_iterator last) {
    const auto from = static_cast<size_type>(first - begin());
    const auto count = static_cast<size_type>(last - first);
    if (count == 0) return begin() + from;
    const size_type after = size() - from - count;
    if (from < after) {
      Job* const base = data();
      std::move_backward(base, base + from, base + from + count);
      head_ += count;
    } else {
      const auto b = storage_.begin() + static_cast<difference_type>(head_ + from);
      storage_.erase(b, b + static_cast<difference_type>(count));
    }
    if (empty()) {
      clear();
      return end();
    }
    return begin() + from;
  }

  // Removes the jobs at `positions` (indices into the queue, ascending,
  // without repeats) in one pass: the removals up to some split close up by
  // moving the jobs before them back, those after it by moving the jobs
  // after them forward. The split is where the fewest jobs move, so
  // removals at both ends cost only the two ends.
  void erase_positions(std::span<const size_type> positions);

 private:
  // Before the vector would grow: reuse the slots before the head once they
  // are at least as many as the jobs to move (amortised O(1) per removal).
  void make_room_at_back() {
    if (head_ > 0 && storage_.size() == storage_.capacity() && head_ >= size()) compact();
  }
  void compact() {
    if (head_ == 0) return;
    storage_.erase(storage_.begin(), storage_.begin() + static_cast<difference_type>(head_));
    head_ = 0;
  }

  std::vector<Job> storage_;
  size_type head_ = 0;  // storage_[0, head_) are free slots
};

// std::erase_if for the queue (found by argument-dependent lookup).
template <class Predicate>
JobQueue::size_type erase_if(JobQueue& queue, Predicate predicate) {
  const auto kept_end = std::remove_if(queue.begin(), queue.end(), predicate);
  const auto removed = static_cast<JobQueue::size_type>(queue.end() - kept_end);
  queue.erase(kept_end, queue.end());
  return removed;
}

}  // namespace los
