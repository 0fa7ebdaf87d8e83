// LOS's job selection (Shmueli & Feitelson): which waiting jobs to start now.
//
// Given the candidates WQ' in queue order, each with a size, a shadow size
// (0 if it ends by the head job's shadow time, else its size) and an additive
// merit, choose S' maximizing, lexicographically,
//   util = sum size (up), sutil = sum ssize (down), merit = sum merit (up)
// subject to util <= free_now and sutil <= extra; among the sets reaching
// that optimum, the trace-back rule picks one:
//   Bypassed-First (thesis Algorithm 4): walking from the tail, skip a job
//     whenever an equally good set exists without it;
//   Selected-First (Algorithm 5): take a job whenever an equally good set
//     exists with it.
//   Head-First (ours): Selected-First walking from the head instead: take
//     the first job whenever an equally good set exists with it, and so on
//     in queue order (the lexicographically first optimal set). `table`
//     then receives the table of the reversed window.
// "No merit" is merit 0 for every job. Merits are integers so that ties are
// exact and independent of summation order (the policy scales slowdowns to
// micro-units).
//
// Two solvers with identical results (the brute-force test checks both):
//   los_select_table  the thesis's 3-D table M'[i][j][k] (Algorithms 3, 6, 7
//                     with trace-back 4 or 5), kept literal for the worked
//                     example and as the reference; O(q * n * extra).
//   los_select        the production solver; see docs/los.md for the proof.
//                     Because ssize is 0 or size, the candidates split into
//                     A (ssize 0: only the "now" capacity matters) and B
//                     (ssize = size: both capacities take the same amount).
//                     The optimum (util*, sutil*) comes from two subset-sum
//                     bitsets; along the thesis trace-back the remaining
//                     target is always the optimum of the current cell, so
//                     every marker test splits into a 1-D test on A (target
//                     util* - sutil*) and one on B (target sutil*).
//                     No merit: O(q * (n + K) / 64) time and bits of memory.
//                     With merit: bitsets, then a 1-D exact-sum knapsack per
//                     class up to its target: O(|A| * (util* - sutil*) +
//                     |B| * sutil*) <= O(q * n) time, 2 bits per cell.
//   (K = min(extra, n); q = |WQ'|.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace los {

enum class LosTraceback { BypassedFirst, SelectedFirst, HeadFirst };

struct LosCandidate {
  int size = 0;            // >= 1
  int ssize = 0;           // 0 or size
  std::int64_t merit = 0;  // >= 0; maximized among sets of equal (util, sutil)
};

struct LosProblem {
  std::vector<LosCandidate> jobs;  // WQ' in queue order
  int free_now = 0;                // n
  int extra = 0;                   // shadow free capacity
  LosTraceback traceback = LosTraceback::BypassedFirst;
};

struct LosKey {
  std::int64_t util = 0;
  std::int64_t sutil = 0;
  std::int64_t merit = 0;
  bool operator==(const LosKey&) const = default;
};

struct LosSelection {
  std::vector<std::size_t> chosen;  // indices into LosProblem::jobs, ascending
  LosKey key;                       // the root cell: the optimum reached
};

// One cell of the thesis table.
struct LosCell {
  std::int64_t util = 0;
  std::int64_t sutil = 0;
  std::int64_t merit = 0;
  bool selected = false;
  bool bypassed = false;
};

// The whole table M'[i][j][k], i in [0, q], j in [0, n], k in [0, extra].
class LosTable {
 public:
  LosTable() = default;
  LosTable(std::size_t rows, int free_now, int extra);
  const LosCell& at(std::size_t i, int j, int k) const { return cells_[index(i, j, k)]; }
  LosCell& at(std::size_t i, int j, int k) { return cells_[index(i, j, k)]; }
  std::size_t rows() const { return rows_; }
  int free_now() const { return n_; }
  int extra() const { return extra_; }

 private:
  std::size_t index(std::size_t i, int j, int k) const {
    return (i * static_cast<std::size_t>(n_ + 1) + static_cast<std::size_t>(j)) * static_cast<std::size_t>(extra_ + 1) +
           static_cast<std::size_t>(k);
  }
  std::size_t rows_ = 0;
  int n_ = 0;
  int extra_ = 0;
  std::vector<LosCell> cells_;
};

// Throws std::invalid_argument naming the candidate when a size is < 1, an
// ssize is neither 0 nor the size, a merit is negative, or n / extra < 0.
void validate(const LosProblem& problem);

// The thesis's table, literally. When `table` is given it receives M'.
LosSelection los_select_table(const LosProblem& problem, LosTable* table = nullptr);

// The production solver: the same selection as los_select_table.
LosSelection los_select(const LosProblem& problem);

// The set EASY's queue order prefers among those filling the most units:
// walking from the head, a job is taken whenever the jobs taken so far, it,
// and some set of the jobs behind it still reach the largest util within
// (free_now, extra). Shadow utilization, merit and `traceback` play no part.
// When EASY's own walk fills the most units it returns EASY's set. O(q * n)
// bit tests on top of the prefix sums of the jobs' two classes.
LosSelection los_select_queue_order(const LosProblem& problem);

}  // namespace los
