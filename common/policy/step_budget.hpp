// A step's planning budget: how many searches a policy may still make in one
// step, counted (reproducible, for simulations and tests) and, live, also
// bounded by a wall-clock deadline. Once a search is refused, every later
// one in the step is too, so the work done is a prefix of the work the step
// would do without a budget; the policy keeps the rest for its next step
// (conservative backfilling: docs/policies.md, "A step's budget").
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace los {

class StepBudget {
 public:
  using Clock = std::chrono::steady_clock;

  // No limit.
  StepBudget() = default;
  // At most `searches` searches (0: no count), and none once `wall` has
  // passed since now (zero: no deadline).
  StepBudget(std::int64_t searches, Clock::duration wall)
      : searches_left_(searches > 0 ? searches : kNoCount),
        deadline_(wall > Clock::duration::zero() ? Clock::now() + wall : Clock::time_point::max()) {}

  // A policy's step: `searches` as above and, when it runs live, a deadline
  // `live_seconds` after `received` (when losd had read the snapshot, so
  // decoding and diffing it count too; unset: from now), but at least half
  // of `live_seconds` from now: a snapshot that took longer than the budget
  // to read still gets some planning, and the plan keeps growing. 0: no
  // deadline. A simulation gets no deadline, so every run is reproducible.
  static StepBudget for_step(std::int64_t searches, double live_seconds, bool live, Clock::time_point received = {}) {
    const std::chrono::duration<double> wall(live ? live_seconds : 0.0);
    StepBudget budget(searches, std::chrono::duration_cast<Clock::duration>(wall));
    if (budget.deadline_ != Clock::time_point::max() && received != Clock::time_point{}) {
      const auto limit = std::chrono::duration_cast<Clock::duration>(wall);
      budget.deadline_ = std::max(received + limit, Clock::now() + limit / 2);
    }
    return budget;
  }

  // When the wall clock stops the searches (time_point::max(): never).
  Clock::time_point deadline() const { return deadline_; }

  // True when one more search may run (and counts it); false from the first
  // refusal on.
  bool take() {
    if (spent_) return false;
    if (searches_left_ == 0 || (deadline_ != Clock::time_point::max() && Clock::now() >= deadline_)) {
      spent_ = true;
      return false;
    }
    if (searches_left_ != kNoCount) --searches_left_;
    return true;
  }

  // Whether a search was refused: the step left work for the next one.
  bool spent() const { return spent_; }

  // A budget for one part of the step's work, taken alongside this one:
  // `fraction` of the searches left (at least one) and of the time left
  // until the deadline.
  StepBudget share(double fraction) const {
    StepBudget part = *this;
    if (searches_left_ != kNoCount) {
      part.searches_left_ = std::max<std::int64_t>(1, static_cast<std::int64_t>(searches_left_ * fraction));
    }
    if (deadline_ != Clock::time_point::max()) {
      const Clock::time_point now = Clock::now();
      if (deadline_ > now) {
        part.deadline_ = now + std::chrono::duration_cast<Clock::duration>((deadline_ - now) * fraction);
      }
    }
    return part;
  }

 private:
  static constexpr std::int64_t kNoCount = -1;
  std::int64_t searches_left_ = kNoCount;
  Clock::time_point deadline_ = Clock::time_point::max();
  bool spent_ = false;
};

}  // namespace los
