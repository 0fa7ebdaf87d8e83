// The search of the tabu policy: the paper's Algorithm 2 on a TabuPlan.
// Every iteration picks a random movable job that is not in the tabu list
// and tries one move with it (TabuPlan::try_move: remove, compress,
// re-insert at its earliest start, keep the result only when the criteria
// improve); the job then enters the tabu list. The budget is a number of
// iterations per movable job; live, a wall-clock limit caps it as well.
//
// A tabu pick that finds every job tabu empties the list and consumes the
// iteration, as in Algorithm 2 ([I] in the spec).
//
// A job picked again before any move is kept gets the result of its earlier
// move without making the move again: the plan it would move in is the same.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <random>

#include "policies/tabu_plan.hpp"

namespace los {

struct TabuSearchStats {
  std::int64_t searches = 0;
  std::int64_t iterations = 0;
  std::int64_t accepted = 0;
  std::int64_t rejected_unsafe = 0;  // moves `safe` refused
  std::int64_t reused = 0;           // moves answered by the same job's earlier try on the same plan
  std::int64_t aborted = 0;          // searches an event stopped (`abort`)
  std::int64_t iterations_lost = 0;  // iterations those searches did not run
};

// The jobs moved last, which the search does not pick: at most `capacity`,
// the oldest forgotten first. Capacity 0 keeps none.
class TabuList {
 public:
  explicit TabuList(std::size_t capacity) : capacity_(capacity) {}
  bool contains(JobId id) const;
  void add(JobId id);
  void clear() { jobs_.clear(); }
  std::size_t size() const { return jobs_.size(); }

 private:
  std::size_t capacity_;
  std::deque<JobId> jobs_;
};

// How long one search may run: `budget` iterations per movable job and,
// when `live` with a positive `time_limit` (seconds), a wall-clock deadline
// (the max time point otherwise: a simulation counts iterations only, so
// every run is reproducible).
struct TabuSearchLimits {
  std::int64_t iterations;
  std::chrono::steady_clock::time_point deadline;
};
TabuSearchLimits tabu_search_limits(std::int64_t budget, std::size_t movable, bool live, double time_limit);

// What a move costs a timed search, learned from the moves it made: wall
// seconds per listed job (a move replays part of the list and may rebuild its
// marks: its cost grows with the list), an average over the moves that
// weighs the last one by a quarter, so one slow move (a busy host) does not
// stop the searches that follow. 0 until a move was timed.
struct TabuMoveCost {
  double seconds_per_job = 0;
  void record(double seconds, std::size_t listed);
  // When a move begun at `start` is expected to end.
  std::chrono::steady_clock::time_point expected_end(std::chrono::steady_clock::time_point start,
                                                     std::size_t listed) const;
};

// Algorithm 2 on the plan: `iterations` moves, stopping early at `deadline`
// (if it is not the max time point). A timed search with a `move_cost` does
// not begin a move that `move_cost` expects to end past the deadline, and
// teaches it the cost of each move it makes (a live search at 100,000 waiting
// jobs would otherwise overrun its 10 ms by a whole move, 13-33 ms).
// Returns the moves accepted.
std::int64_t tabu_search(TabuPlan& plan, Time now, std::int64_t iterations, std::size_t tabu_size, bool safe,
                         std::mt19937_64& rng, std::chrono::steady_clock::time_point deadline, TabuSearchStats& stats,
                         TabuMoveCost* move_cost = nullptr);

}  // namespace los
