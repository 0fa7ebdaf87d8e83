// The snapshot's queue container against a std::vector reference: every
// removal and insertion pattern leaves the same jobs in the same order.
#include "model/job_queue.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace los {
namespace {

Job job(JobId id) {
  Job j;
  j.id = id;
  j.submit = id;
  j.size = static_cast<int>(id % 7) + 1;
  return j;
}

std::vector<JobId> ids(const JobQueue& q) {
  std::vector<JobId> out;
  for (const Job& j : q) out.push_back(j.id);
  return out;
}

std::vector<JobId> ids(const std::vector<Job>& v) {
  std::vector<JobId> out;
  for (const Job& j : v) out.push_back(j.id);
  return out;
}

void expect_same(const JobQueue& q, const std::vector<Job>& ref) {
  ASSERT_EQ(q.size(), ref.size());
  ASSERT_EQ(q.empty(), ref.empty());
  ASSERT_EQ(ids(q), ids(ref));
  for (std::size_t i = 0; i < ref.size(); ++i) ASSERT_EQ(q[i].id, ref[i].id) << i;
  ASSERT_EQ(static_cast<std::size_t>(q.end() - q.begin()), ref.size());
  if (!ref.empty()) {
    ASSERT_EQ(q.front().id, ref.front().id);
    ASSERT_EQ(q.back().id, ref.back().id);
    ASSERT_EQ(q.data(), &q[0]);
  }
}

void erase_positions_ref(std::vector<Job>& ref, const std::vector<std::size_t>& positions) {
  for (auto it = positions.rbegin(); it != positions.rend(); ++it) ref.erase(ref.begin() + static_cast<long>(*it));
}

TEST(JobQueue, EraseNearTheFrontAdvancesTheHeadAndKeepsOrder) {
  JobQueue q;
  std::vector<Job> ref;
  for (JobId id = 1; id <= 10; ++id) {
    q.push_back(job(id));
    ref.push_back(job(id));
  }
  const Job* const last = &q.back();
  q.erase(q.begin() + 1);
  ref.erase(ref.begin() + 1);
  expect_same(q, ref);
  EXPECT_EQ(&q.back(), last) << "a removal near the front must not move the back";
  const auto it = q.erase(q.begin());
  ref.erase(ref.begin());
  EXPECT_EQ(it->id, 3);
  expect_same(q, ref);
}

TEST(JobQueue, ErasePositionsMovesOnlyTheEnds) {
  JobQueue q;
  std::vector<Job> ref;
  for (JobId id = 0; id < 1000; ++id) {
    q.push_back(job(id));
    ref.push_back(job(id));
  }
  const Job* const middle = &q[500];
  const std::vector<std::size_t> at{0, 2, 3, 990, 999};
  q.erase_positions(at);
  erase_positions_ref(ref, at);
  expect_same(q, ref);
  EXPECT_EQ(middle->id, 500) << "jobs between the removals at both ends stay where they are";
}

TEST(JobQueue, ErasesEverythingAndRefills) {
  JobQueue q{job(1), job(2), job(3)};
  const std::vector<std::size_t> all{0, 1, 2};
  q.erase_positions(all);
  EXPECT_TRUE(q.empty());
  q.push_back(job(4));
  expect_same(q, {job(4)});
  q = std::vector<Job>{job(5), job(6)};
  expect_same(q, {job(5), job(6)});
  JobQueue copy = q;
  q.erase(q.begin());
  expect_same(copy, {job(5), job(6)});
  JobQueue moved = std::move(copy);
  expect_same(moved, {job(5), job(6)});
  moved.clear();
  EXPECT_TRUE(moved.empty());
}

// Random mixes of every mutation against std::vector: push_back, insert at
// any place (also before a head that has advanced), single and range erase,
// erase_positions at random and clustered positions, erase_if, copies.
TEST(JobQueue, RandomOperationsMatchAVector) {
  std::mt19937_64 rng(17);
  for (int round = 0; round < 40; ++round) {
    JobQueue q;
    std::vector<Job> ref;
    JobId next = 1;
    for (int op = 0; op < 2000; ++op) {
      const auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
      switch (pick(8)) {
        case 0:
        case 1: {
          const int count = 1 + static_cast<int>(pick(4));
          for (int c = 0; c < count; ++c) {
            q.push_back(job(next));
            ref.push_back(job(next++));
          }
          break;
        }
        case 2: {
          const std::size_t at = pick(ref.size() + 1);
          const auto it = q.insert(q.begin() + at, job(next));
          ASSERT_EQ(it - q.begin(), static_cast<long>(at));
          ref.insert(ref.begin() + static_cast<long>(at), job(next++));
          break;
        }
        case 3: {
          if (ref.empty()) break;
          const std::size_t at = pick(ref.size());
          q.erase(q.begin() + at);
          ref.erase(ref.begin() + static_cast<long>(at));
          break;
        }
        case 4: {
          if (ref.empty()) break;
          const std::size_t from = pick(ref.size());
          const std::size_t to = from + pick(ref.size() - from + 1);
          q.erase(q.begin() + from, q.begin() + to);
          ref.erase(ref.begin() + static_cast<long>(from), ref.begin() + static_cast<long>(to));
          break;
        }
        case 5:
        case 6: {
          if (ref.empty()) break;
          // Clustered at the front, at the back, or anywhere.
          std::vector<std::size_t> at;
          const std::size_t count = 1 + pick(std::min<std::size_t>(ref.size(), 6));
          const std::size_t mode = pick(3);
          for (std::size_t c = 0; c < count; ++c) {
            const std::size_t span = std::min<std::size_t>(ref.size(), 10);
            const std::size_t p = mode == 0   ? pick(span)
                                  : mode == 1 ? ref.size() - 1 - pick(span)
                                              : pick(ref.size());
            at.push_back(p);
          }
          std::sort(at.begin(), at.end());
          at.erase(std::unique(at.begin(), at.end()), at.end());
          q.erase_positions(at);
          erase_positions_ref(ref, at);
          break;
        }
        case 7: {
          if (pick(10) == 0) {
            const JobId mod = 2 + static_cast<JobId>(pick(5));
            const auto removed = erase_if(q, [&](const Job& j) { return j.id % mod == 0; });
            const auto ref_removed = std::erase_if(ref, [&](const Job& j) { return j.id % mod == 0; });
            ASSERT_EQ(removed, ref_removed);
          } else {
            const JobQueue copy = q;
            expect_same(copy, ref);
          }
          break;
        }
      }
      ASSERT_NO_FATAL_FAILURE(expect_same(q, ref)) << "round " << round << " op " << op;
    }
  }
}

}  // namespace
}  // namespace los
