// queued_holders: the holders still queued, in their old order, whatever the
// spread of the ids (consecutive Slurm ids take the dense path, scattered
// ones the hash table).
#include "planner/replan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "test_support.hpp"

namespace los {
namespace {

std::vector<QueuedHolder> by_search(const std::vector<JobId>& holders, const std::vector<Job>& queue) {
  std::vector<QueuedHolder> out;
  for (std::size_t i = 0; i < holders.size(); ++i) {
    // The last queued job of the id, as a map built in queue order keeps it.
    for (std::size_t p = queue.size(); p-- > 0;) {
      if (queue[p].id == holders[i]) {
        out.push_back({i, &queue[p]});
        break;
      }
    }
  }
  return out;
}

TEST(QueuedHolders, AreTheHoldersStillQueuedInTheirOldOrder) {
  std::mt19937_64 rng(5);
  int dense = 0, sparse = 0;
  for (int round = 0; round < 400; ++round) {
    // Consecutive ids from a base near 0, near the top of the id range, or
    // scattered far apart; now and then a duplicate id.
    const bool scattered = round % 3 == 0;
    const JobId base = round % 5 == 0 ? std::numeric_limits<JobId>::max() - 5000 : static_cast<JobId>(rng() % 1000);
    const std::size_t n = rng() % 400;
    std::vector<Job> queue;
    for (std::size_t k = 0; k < n; ++k) {
      const JobId id = scattered ? static_cast<JobId>(rng() % 1000000000) * (rng() % 2 ? 1 : -1)
                                 : base + static_cast<JobId>(k) * (1 + static_cast<JobId>(rng() % 3));
      queue.push_back(test::job(rng() % 50 == 0 && !queue.empty() ? queue[rng() % queue.size()].id : id, 0, 1, 10));
    }
    std::vector<JobId> holders;
    for (const Job& j : queue) {
      if (rng() % 3 != 0) holders.push_back(j.id);
    }
    for (int k = 0; k < 20; ++k) holders.push_back(base + static_cast<JobId>(rng() % 2000) - 1000);  // left the queue
    std::shuffle(holders.begin(), holders.end(), rng);
    holders.erase(std::unique(holders.begin(), holders.end()), holders.end());
    const std::vector<QueuedHolder> got = queued_holders(holders, queue);
    const std::vector<QueuedHolder> want = by_search(holders, queue);
    ASSERT_EQ(got.size(), want.size()) << "round " << round;
    for (std::size_t k = 0; k < got.size(); ++k) {
      ASSERT_EQ(got[k].holder, want[k].holder) << "round " << round;
      ASSERT_EQ(got[k].job, want[k].job) << "round " << round;
    }
    (scattered ? sparse : dense) += 1;
  }
  EXPECT_GT(dense, 200);
  EXPECT_GT(sparse, 100);
}

}  // namespace
}  // namespace los
