// The Ousterhout matrix of gang scheduling (Zhang, Franke, Moreira,
// Sivasubramaniam; spec: ../shared/specs/gang-migration.md §1.2).
//
// Rows are time slices (virtual machines), columns are nodes. A job occupies
// the same columns in every row it appears in; it has one home row and may be
// replicated into other rows where its columns are free. The matrix knows
// nothing about time, reservations or costs: the gang policies build the four
// phases (clean, compact, schedule, fill) and migration on these operations.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <unordered_map>
#include <vector>

#include "model/job.hpp"

namespace los {

class GangMatrix {
 public:
  // `rows` is the multiprogramming level (1..64), `columns` the nodes.
  GangMatrix(int rows, int columns);

  int rows() const { return rows_; }
  int columns() const { return columns_; }
  bool empty() const { return jobs_.empty(); }
  std::size_t job_count() const { return jobs_.size(); }

  int free_count(int row) const { return free_[static_cast<std::size_t>(row)]; }
  int population(int row) const { return columns_ - free_count(row); }

  bool contains(JobId id) const { return jobs_.count(id) != 0; }
  int size_of(JobId id) const { return entry(id).size; }
  int home_of(JobId id) const { return entry(id).home; }
  const std::vector<int>& columns_of(JobId id) const { return entry(id).cols; }
  bool in_row(JobId id, int row) const { return (entry(id).rows >> row) & 1U; }
  int row_count(JobId id) const;

  // The job in a cell, or kNoJob.
  static constexpr JobId kNoJob = std::numeric_limits<JobId>::min();
  JobId at(int row, int column) const { return cells_[cell(row, column)]; }

  bool columns_free(int row, const std::vector<int>& cols) const;
  // The `count` lowest-numbered free columns of `row` (count <= free_count).
  std::vector<int> lowest_free(int row, int count) const;
  // Distinct jobs occupying any of `cols` in `row`, in column order.
  std::vector<JobId> jobs_on(int row, const std::vector<int>& cols) const;
  // Distinct jobs present in `row`, in column order.
  std::vector<JobId> jobs_in_row(int row) const;
  // Jobs whose home is `row`, in placement order.
  std::vector<JobId> homed_in(int row) const;
  // All jobs in placement order (the paper's "order of starting time").
  std::vector<JobId> by_placement() const;

  // A new job with home `row` on `cols` (all free there).
  void place(JobId id, int size, int row, std::vector<int> cols);
  // A replica of a job on its own columns in `row` (free there).
  void replicate(JobId id, int row);
  // Removes a job from every row.
  void remove(JobId id);
  // CleanMatrix: every job keeps only its home row.
  void remove_replicas();
  // Moves a job that appears only in its home row to `row`, on `cols`
  // (its own columns unless migrating); all of them free in `row`.
  void move_home(JobId id, int row, std::vector<int> cols);
  // Moves a job that appears only in its home row to other columns of that row.
  void relocate(JobId id, std::vector<int> cols);

 private:
  struct Entry {
    int size;
    int home;
    std::uint64_t rows;   // bit r: present in row r
    std::uint64_t order;  // placement order
    std::vector<int> cols;
  };

  std::size_t cell(int row, int column) const {
    return static_cast<std::size_t>(row) * static_cast<std::size_t>(columns_) + static_cast<std::size_t>(column);
  }
  const Entry& entry(JobId id) const;
  void occupy(JobId id, int row, const std::vector<int>& cols);
  void vacate(int row, const std::vector<int>& cols);

  int rows_;
  int columns_;
  std::vector<JobId> cells_;
  std::vector<int> free_;
  std::unordered_map<JobId, Entry> jobs_;
  std::map<std::uint64_t, JobId> placement_;  // placement order -> job
  std::uint64_t next_order_ = 0;
};

}  // namespace los
