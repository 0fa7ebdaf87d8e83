#include "policies/gang_matrix.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>

namespace los {

GangMatrix::GangMatrix(int rows, int columns)
    : rows_(rows),
      columns_(columns),
      cells_(static_cast<std::size_t>(rows) * static_cast<std::size_t>(columns), kNoJob),
      free_(static_cast<std::size_t>(rows), columns) {
  if (rows < 1 || rows > 64)
    throw std::invalid_argument("gang matrix: rows must be in [1, 64], got " + std::to_string(rows));
  if (columns < 1) throw std::invalid_argument("gang matrix: columns must be positive, got " + std::to_string(columns));
}

const GangMatrix::Entry& GangMatrix::entry(JobId id) const {
  const auto it = jobs_.find(id);
  if (it == jobs_.end()) throw std::logic_error("gang matrix: job " + std::to_string(id) + " is not in the matrix");
  return it->second;
}

int GangMatrix::row_count(JobId id) const { return std::popcount(entry(id).rows); }

bool GangMatrix::columns_free(int row, const std::vector<int>& cols) const {
  for (int c : cols) {
    if (cells_[cell(row, c)] != kNoJob) return false;
  }
  return true;
}

std::vector<int> GangMatrix::lowest_free(int row, int count) const {
  std::vector<int> out;
  out.reserve(static_cast<std::size_t>(count));
  for (int c = 0; c < columns_ && static_cast<int>(out.size()) < count; ++c) {
    if (cells_[cell(row, c)] == kNoJob) out.push_back(c);
  }
  if (static_cast<int>(out.size()) < count) throw std::logic_error("gang matrix: not enough free columns");
  return out;
}

std::vector<JobId> GangMatrix::jobs_on(int row, const std::vector<int>& cols) const {
  std::vector<JobId> out;
  for (int c : cols) {
    const JobId j = cells_[cell(row, c)];
    if (j != kNoJob && std::find(out.begin(), out.end(), j) == out.end()) out.push_back(j);
  }
  return out;
}

std::vector<JobId> GangMatrix::jobs_in_row(int row) const {
  std::vector<JobId> out;
  JobId last = kNoJob;
  for (int c = 0; c < columns_; ++c) {
    const JobId j = cells_[cell(row, c)];
    if (j == kNoJob || j == last) continue;
    last = j;
    if (std::find(out.begin(), out.end(), j) == out.end()) out.push_back(j);
  }
  return out;
}

std::vector<JobId> GangMatrix::by_placement() const {
  std::vector<JobId> out;
  out.reserve(placement_.size());
  for (const auto& [order, id] : placement_) out.push_back(id);
  return out;
}

std::vector<JobId> GangMatrix::homed_in(int row) const {
  std::vector<JobId> out;
  for (const auto& [order, id] : placement_) {
    if (jobs_.at(id).home == row) out.push_back(id);
  }
  return out;
}

void GangMatrix::occupy(JobId id, int row, const std::vector<int>& cols) {
  for (int c : cols) {
    JobId& slot = cells_[cell(row, c)];
    if (slot != kNoJob) {
      throw std::logic_error("gang matrix: job " + std::to_string(id) + " placed on column " + std::to_string(c) +
                             " of row " + std::to_string(row) + ", held by job " + std::to_string(slot));
    }
    slot = id;
  }
  free_[static_cast<std::size_t>(row)] -= static_cast<int>(cols.size());
}

void GangMatrix::vacate(int row, const std::vector<int>& cols) {
  for (int c : cols) cells_[cell(row, c)] = kNoJob;
  free_[static_cast<std::size_t>(row)] += static_cast<int>(cols.size());
}

void GangMatrix::place(JobId id, int size, int row, std::vector<int> cols) {
  if (static_cast<int>(cols.size()) != size) throw std::logic_error("gang matrix: column count differs from size");
  if (jobs_.count(id)) throw std::logic_error("gang matrix: job " + std::to_string(id) + " placed twice");
  occupy(id, row, cols);
  placement_.emplace(next_order_, id);
  jobs_.emplace(id, Entry{size, row, std::uint64_t{1} << row, next_order_++, std::move(cols)});
}

void GangMatrix::replicate(JobId id, int row) {
  Entry& e = jobs_.at(id);
  if ((e.rows >> row) & 1U) return;
  occupy(id, row, e.cols);
  e.rows |= std::uint64_t{1} << row;
}

void GangMatrix::remove(JobId id) {
  const auto it = jobs_.find(id);
  if (it == jobs_.end()) return;
  for (int r = 0; r < rows_; ++r) {
    if ((it->second.rows >> r) & 1U) vacate(r, it->second.cols);
  }
  placement_.erase(it->second.order);
  jobs_.erase(it);
}

void GangMatrix::remove_replicas() {
  for (auto& [id, e] : jobs_) {
    for (int r = 0; r < rows_; ++r) {
      if (r != e.home && ((e.rows >> r) & 1U)) vacate(r, e.cols);
    }
    e.rows = std::uint64_t{1} << e.home;
  }
}

void GangMatrix::move_home(JobId id, int row, std::vector<int> cols) {
  Entry& e = jobs_.at(id);
  if (e.rows != (std::uint64_t{1} << e.home)) throw std::logic_error("gang matrix: moving a replicated job");
  vacate(e.home, e.cols);
  occupy(id, row, cols);
  e.home = row;
  e.rows = std::uint64_t{1} << row;
  e.cols = std::move(cols);
}

void GangMatrix::relocate(JobId id, std::vector<int> cols) {
  Entry& e = jobs_.at(id);
  if (e.rows != (std::uint64_t{1} << e.home)) throw std::logic_error("gang matrix: relocating a replicated job");
  vacate(e.home, e.cols);
  occupy(id, e.home, cols);
  e.cols = std::move(cols);
}

}  // namespace los
