// A compression that a step's budget may stop and a later call resume: the
// state conservative backfilling (policies/backfilling.cpp) and each gang row
// (policies/gang_row_plan.cpp) keep between steps, and the loop that runs the
// indexed pass (planner/indexed_compression.hpp) under a budget.
//
// Resuming at the cursor is sound: a holder at or after it can move only
// through a point that gained since it was last searched or placed (the gain
// log, kept, holds them all: units come back only by events and by the
// sweep's own moves; between steps the pass only takes units). The holders
// before the cursor can move only through a gain that came after the sweep
// had passed them: the sweep's own moves give units back at or after their
// old starts, past those holders' windows, so only the events' gains count,
// and a sweep of their own, from the first holder, follows the stopped one's
// end (the deferred gains).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "planner/holder_index.hpp"
#include "planner/indexed_compression.hpp"
#include "planner/planner.hpp"
#include "planner/start_bound.hpp"

namespace los {

class CompressionSweep {
 public:
  // A sweep is stopped midway: the plan is valid but not yet a fixpoint.
  bool active() const { return active_; }
  // Forgets a stopped sweep (the plan was rebuilt: no holder is left to move).
  void reset() {
    active_ = false;
    deferred_.clear();
  }

  // Runs the indexed pass, or resumes the stopped one, while may_search()
  // allows a search (a step's budget: StepBudget::take). `move(holder,
  // start)` moves a holder's span in `planner`; `reindex()` brings `holders`
  // up to date after each pass. Returns true when the plan is a fixpoint
  // again (the gain log cleared), false when may_search() stopped it (the
  // log kept, to resume from).
  template <class MaySearch, class Move, class Reindex>
  bool run(Planner& planner, const HolderIndex& holders, StartBound& visited, Time now, MaySearch&& may_search,
           Move&& move, Reindex&& reindex) {
    for (;;) {
      if (active_) {
        // The units that came back since the sweep stopped (events) need a
        // sweep of their own after it.
        const auto& log = planner.gains();
        deferred_.insert(deferred_.end(), log.begin() + static_cast<std::ptrdiff_t>(logged_), log.end());
      }
      const CompressionPass pass =
          compress_indexed(planner, holders, visited, now, active_ ? &resume_ : nullptr, may_search, move);
      reindex();
      if (!pass.complete) {
        active_ = true;
        resume_ = pass.resume;
        logged_ = planner.gains().size();
        return false;
      }
      active_ = false;
      planner.clear_gains();
      if (deferred_.empty()) return true;
      for (const auto& [a, b] : deferred_) planner.note_gain(a, b);
      deferred_.clear();
    }
  }

 private:
  bool active_ = false;
  CompressionCursor resume_{};
  std::size_t logged_ = 0;  // the gain log's length when it stopped
  std::vector<std::pair<Time, Time>> deferred_;
};

}  // namespace los
