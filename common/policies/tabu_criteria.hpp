// The criteria of the tabu search (Klusacek & Rudova; spec:
// ../shared/specs/fairness-tabu.md): mean wait, response and bounded
// slowdown of the waiting jobs, and the user-fairness criterion F, with the
// incremental sums that let a move be scored from the starts it changed.
//
// Design choices the paper leaves open ([I] in the spec) and taken here:
//   - Wait, response and slowdown average over waiting jobs only; F uses all
//     jobs (finished, running, planned) of every user seen so far, with the
//     paper's F = sum (mean NUWT - NUWT_o)^2 and Alea's zero-division guards.
//   - The per-job slowdown of the predictor is (C - r) / max(1, p), the
//     reporting formula with tau = 1 s.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "model/job.hpp"

namespace los {

// The criteria SELECTBETTER compares: means over the waiting jobs and the
// fairness criterion F. Smaller is better for all four.
struct TabuCriteria {
  double wait = 0;
  double response = 0;
  double bsd = 1;
  double fairness = 0;
};

// Sum of the relative improvements of `candidate` over `current` (paper,
// SELECTBETTER): (a - b) / a per criterion, with the denominators guarded as
// Alea does (max(1, a) for slowdown, max(1e-13, a) for the others) and a
// criterion that did not change contributing exactly 0. The search accepts a
// candidate when the result is above kTabuAcceptEpsilon (> 0 in the paper):
// the criteria of a candidate are sums of doubles, and a move that only
// permutes equal contributions must not be accepted on rounding noise.
double tabu_improvement(const TabuCriteria& current, const TabuCriteria& candidate);
inline constexpr double kTabuAcceptEpsilon = 1e-12;

// A waiting job's planned start that changed (in a candidate plan or in a
// compression).
struct TabuStartChange {
  int user;  // index into the user table
  Time submit;
  Time duration;
  Time from;
  Time to;
  int size;  // units: the plan's profile moves the job's units with it
};

// Sums over the waiting jobs of a plan, from which the means are taken.
struct TabuWaitingSums {
  std::size_t jobs = 0;
  std::int64_t wait = 0;  // start - submit
  std::int64_t duration = 0;
  double bsd = 0;
  void add(Time submit, Time duration, Time start);
};

// The criteria's state: every user's totals (for F) and, while a search
// runs, the sums of the current plan, so that a move costs a pass over the
// starts it changed.
class TabuScore {
 public:
  // The index of a trace user id in the user table (added when new).
  int user_index(int user);
  std::size_t users() const { return users_.size(); }

  // The totals of user `u`: waits of finished and running jobs, waits of
  // waiting jobs at their planned start, and run time x size over all jobs.
  void add_fixed_wait(int u, std::int64_t wait) { users_[static_cast<std::size_t>(u)].fixed_wait += wait; }
  void add_planned_wait(int u, std::int64_t wait) { users_[static_cast<std::size_t>(u)].planned_wait += wait; }
  void add_area(int u, double area) { users_[static_cast<std::size_t>(u)].area += area; }
  std::int64_t planned_wait(int u) const { return users_[static_cast<std::size_t>(u)].planned_wait; }
  // Changed starts move their users' planned waits.
  void apply(const std::vector<TabuStartChange>& changes);

  // The slowdown of a job started at `start`, as the predictor counts it.
  static double job_bsd(Time submit, Time duration, Time start);

  // The criteria of a plan whose waiting jobs sum to `waiting`, from scratch.
  TabuCriteria criteria(const TabuWaitingSums& waiting) const;

  // The search's starting point: the sums and criteria of the current plan.
  void prepare(const TabuWaitingSums& waiting);
  const TabuCriteria& current() const { return current_; }

  // What the changed starts of a candidate plan of `jobs` waiting jobs do to
  // the sums.
  struct Delta {
    std::int64_t wait = 0;
    double bsd = 0;
    double nuwt_sum = 0;
  };
  // Scores a candidate from its changed starts: its criteria into
  // `candidate`, the sums' changes returned.
  Delta evaluate(const std::vector<TabuStartChange>& changes, std::size_t jobs, TabuCriteria& candidate);
  // The candidate became the plan.
  void accept(const std::vector<TabuStartChange>& changes, const Delta& delta, const TabuCriteria& candidate);

 private:
  struct UserTotals {
    std::int64_t fixed_wait = 0;    // finished and running jobs
    std::int64_t planned_wait = 0;  // waiting jobs, at their planned start
    double area = 0;                // run time x size over all jobs
  };
  // Normalized user wait time: the user's waits over its area.
  static double nuwt(const UserTotals& u, std::int64_t extra_wait);

  std::unordered_map<int, int> user_of_id_;  // trace user id -> index
  std::vector<UserTotals> users_;

  // The sums of the current plan (prepare()), and scratch reused by every
  // evaluation (no allocation per move).
  std::int64_t wait_sum_ = 0;  // over waiting jobs: start - submit
  std::int64_t duration_sum_ = 0;
  double bsd_sum_ = 0;
  double nuwt_sum_ = 0;
  TabuCriteria current_;
  std::vector<std::int64_t> user_delta_;  // per user
  std::vector<int> touched_;
};

}  // namespace los
