#include "policies/tabu_search.hpp"

#include <algorithm>
#include <vector>

namespace los {

bool TabuList::contains(JobId id) const { return std::find(jobs_.begin(), jobs_.end(), id) != jobs_.end(); }

void TabuList::add(JobId id) {
  if (capacity_ == 0) return;
  if (jobs_.size() >= capacity_) jobs_.pop_front();
  jobs_.push_back(id);
}

TabuSearchLimits tabu_search_limits(std::int64_t budget, std::size_t movable, bool live, double time_limit) {
  TabuSearchLimits limits{budget * static_cast<std::int64_t>(movable), std::chrono::steady_clock::time_point::max()};
  if (live && time_limit > 0) {
    limits.deadline =
        std::chrono::steady_clock::now() +
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(time_limit));
  }
  return limits;
}

void TabuMoveCost::record(double seconds, std::size_t listed) {
  const double sample = seconds / static_cast<double>(std::max<std::size_t>(listed, 1));
  seconds_per_job = seconds_per_job > 0 ? 0.75 * seconds_per_job + 0.25 * sample : sample;
}

std::chrono::steady_clock::time_point TabuMoveCost::expected_end(std::chrono::steady_clock::time_point start,
                                                                 std::size_t listed) const {
  return start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                     std::chrono::duration<double>(seconds_per_job * static_cast<double>(listed)));
}

std::int64_t tabu_search(TabuPlan& plan, Time now, std::int64_t iterations, std::size_t tabu_size, bool safe,
                         std::mt19937_64& rng, std::chrono::steady_clock::time_point deadline, TabuSearchStats& stats,
                         TabuMoveCost* move_cost) {
  if (plan.movable().size() < 2) return 0;
  plan.advance_to(now);
  plan.prepare();
  const std::vector<JobId>& movable = plan.movable();
  const bool timed = deadline != std::chrono::steady_clock::time_point::max();
  const bool costed = timed && move_cost != nullptr;
  TabuList tabu(tabu_size);
  std::vector<std::size_t> candidates;  // positions in `movable`
  // A move is a function of the plan, `now` and the job alone (the plan's
  // list, running jobs and criteria change only when a move is kept), so a
  // job tried again before any move is kept gives the result it gave: the
  // search reuses it instead of making the move again. The search is the
  // same, draw for draw (about half of the draws repeat a job on the shared
  // traces).
  // `movable` keeps its order during the search: a kept move only reorders
  // the list.
  constexpr std::uint64_t kNotTried = ~std::uint64_t{0};
  std::vector<std::uint64_t> tried_at(movable.size(), kNotTried);  // the plan version of the last try
  std::vector<TabuPlan::MoveResult> tried_result(movable.size(), TabuPlan::MoveResult::Rejected);
  std::uint64_t version = 0;  // kept moves so far
  std::int64_t accepted = 0;
  for (std::int64_t i = 0; i < iterations; ++i) {
    std::chrono::steady_clock::time_point began{};
    if (timed) {
      began = std::chrono::steady_clock::now();
      if (began >= deadline) break;
      if (costed && move_cost->expected_end(began, plan.planned()) > deadline) break;
    }
    ++stats.iterations;
    // A uniformly random job not in the tabu list: rejection sampling while
    // most jobs are not tabu, an explicit list otherwise.
    std::size_t at = 0;
    bool found = false;
    if (movable.size() > 2 * tabu.size()) {
      std::uniform_int_distribution<std::size_t> any(0, movable.size() - 1);
      do {
        at = any(rng);
      } while (tabu.contains(movable[at]));
      found = true;
    } else {
      candidates.clear();
      for (std::size_t c = 0; c < movable.size(); ++c) {
        if (!tabu.contains(movable[c])) candidates.push_back(c);
      }
      if (!candidates.empty()) {
        std::uniform_int_distribution<std::size_t> any(0, candidates.size() - 1);
        at = candidates[any(rng)];
        found = true;
      }
    }
    if (!found) {  // every job is tabu: empty the list; the iteration is spent
      tabu.clear();
      continue;
    }
    const JobId pick = movable[at];
    const bool reused = tried_at[at] == version;
    stats.reused += reused;
    const TabuPlan::MoveResult result = reused ? tried_result[at] : plan.try_move(pick, now, safe);
    tried_at[at] = version;
    tried_result[at] = result;
    switch (result) {
      case TabuPlan::MoveResult::Kept:
        ++accepted;
        ++version;
        break;
      case TabuPlan::MoveResult::Unsafe:
        ++stats.rejected_unsafe;
        break;
      case TabuPlan::MoveResult::Rejected:
        break;
    }
    tabu.add(pick);
    if (costed && !reused) {
      move_cost->record(std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count(),
                        plan.planned());
    }
  }
  stats.accepted += accepted;
  return accepted;
}

}  // namespace los
