// The snapshot's queue container against a std::vector reference: every
// removal and insertion pattern leaves the same jobs in the same order.
#include "model/job_queue.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <utility>
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

// ---- the shapes (sizes and estimates) and first_fitting -------------------

bool is_fit(const Job& j, const JobQueue::Fit& fit) {
  return j.size <= fit.units && (j.size <= fit.narrow_units || j.estimate <= fit.short_estimate);
}

// first_fitting against a scan of the jobs, for random fits and ranges.
void expect_fitting(const JobQueue& q, std::mt19937& rng) {
  ASSERT_TRUE(q.shapes_known());
  for (int t = 0; t < 8; ++t) {
    const JobQueue::Fit fit{static_cast<std::int64_t>(rng() % 9), static_cast<std::int64_t>(rng() % 9),
                            static_cast<Time>(rng() % 120)};
    const std::size_t from = q.empty() ? 0 : rng() % (q.size() + 1);
    const std::size_t to = from + (q.size() == from ? 0 : rng() % (q.size() - from + 1));
    std::size_t expected = to;
    for (std::size_t p = from; p < to; ++p) {
      if (is_fit(q[p], fit)) {
        expected = p;
        break;
      }
    }
    ASSERT_EQ(q.first_fitting(from, to, fit), expected)
        << "from " << from << " to " << to << " units " << fit.units << " narrow " << fit.narrow_units << " short "
        << fit.short_estimate;
  }
}

Job shaped(JobId id, std::mt19937& rng) {
  Job j = job(id);
  j.size = 1 + static_cast<int>(rng() % 8);
  j.estimate = 1 + static_cast<Time>(rng() % 100);
  return j;
}

TEST(JobQueue, ShapesStayTrueUnderEveryMutationThroughTheQueue) {
  std::mt19937 rng(17);
  const auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  JobQueue q;
  std::vector<Job> ref;
  JobId next = 1;
  for (int round = 0; round < 4000; ++round) {
    const std::size_t op = pick(12);
    switch (op) {
      case 0:
      case 1:
      case 2: {
        const Job j = shaped(next++, rng);
        q.push_back(j);
        ref.push_back(j);
        break;
      }
      case 3: {  // insert anywhere: near the front it uses the slots before the head
        const Job j = shaped(next++, rng);
        const std::size_t at = pick(ref.size() + 1);
        q.insert(q.cbegin() + static_cast<std::ptrdiff_t>(at), j);
        ref.insert(ref.begin() + static_cast<std::ptrdiff_t>(at), j);
        break;
      }
      case 4: {  // insert a copy of a queued job (the argument lives in the queue)
        if (ref.empty()) break;
        const std::size_t from = pick(ref.size());
        const std::size_t at = pick(ref.size() + 1);
        q.insert(q.cbegin() + static_cast<std::ptrdiff_t>(at), std::as_const(q)[from]);
        ref.insert(ref.begin() + static_cast<std::ptrdiff_t>(at), Job(ref[from]));
        break;
      }
      case 5: {
        if (ref.empty()) break;
        const std::size_t at = pick(ref.size());
        const std::size_t count = 1 + pick(std::min<std::size_t>(ref.size() - at, 4));
        q.erase(q.cbegin() + static_cast<std::ptrdiff_t>(at), q.cbegin() + static_cast<std::ptrdiff_t>(at + count));
        ref.erase(ref.begin() + static_cast<std::ptrdiff_t>(at), ref.begin() + static_cast<std::ptrdiff_t>(at + count));
        break;
      }
      case 6: {
        if (ref.empty()) break;
        std::vector<std::size_t> at;
        for (std::size_t c = 0, n = 1 + pick(6); c < n; ++c) at.push_back(pick(ref.size()));
        std::sort(at.begin(), at.end());
        at.erase(std::unique(at.begin(), at.end()), at.end());
        q.erase_positions(at);
        erase_positions_ref(ref, at);
        break;
      }
      case 7: {
        const JobId mod = 3 + static_cast<JobId>(pick(5));
        erase_if(q, [&](const Job& j) { return j.id % mod == 0; });
        std::erase_if(ref, [&](const Job& j) { return j.id % mod == 0; });
        break;
      }
      case 8: {
        if (ref.empty()) break;
        q.pop_back();
        ref.pop_back();
        break;
      }
      case 9: {  // copies and moves carry the shapes
        JobQueue copy(q);
        ASSERT_NO_FATAL_FAILURE(expect_fitting(copy, rng));
        JobQueue assigned;
        assigned = copy;
        ASSERT_NO_FATAL_FAILURE(expect_fitting(assigned, rng));
        JobQueue moved(std::move(copy));
        ASSERT_TRUE(copy.shapes_known());  // NOLINT: a moved-from queue is empty and known
        ASSERT_TRUE(copy.empty());         // NOLINT
        q = std::move(moved);
        break;
      }
      case 10: {
        q.reserve(q.size() + pick(64));
        break;
      }
      case 11: {
        if (pick(20) == 0) {
          q.clear();
          ref.clear();
        } else if (pick(4) == 0) {
          q = ref;  // from a vector
        }
        break;
      }
    }
    ASSERT_NO_FATAL_FAILURE(expect_same(q, ref)) << "round " << round << " op " << op;
    ASSERT_NO_FATAL_FAILURE(expect_fitting(q, rng)) << "round " << round << " op " << op;
  }
}

TEST(JobQueue, NonConstAccessMakesTheShapesUnknownUntilRefreshed) {
  std::mt19937 rng(3);
  JobQueue q;
  for (JobId id = 1; id <= 100; ++id) q.push_back(shaped(id, rng));
  ASSERT_TRUE(q.shapes_known());
  q[5].size = 1000;  // through a non-const reference: the queue cannot know
  EXPECT_FALSE(q.shapes_known());
  q.push_back(shaped(101, rng));  // a mutation through the queue does not make it known
  EXPECT_FALSE(q.shapes_known());
  q.refresh_shapes();
  ASSERT_NO_FATAL_FAILURE(expect_fitting(q, rng));
  EXPECT_EQ(q.first_fitting(0, q.size(), {999, 999, 0}), 0u);
  EXPECT_EQ(q.first_fitting(5, 6, {999, 999, 0}), 6u) << "job 5's new size is seen after the refresh";
  for (const auto touch : {+[](JobQueue& x) { x.begin(); }, +[](JobQueue& x) { x.end(); },
                           +[](JobQueue& x) { x.data(); }, +[](JobQueue& x) { x.front(); },
                           +[](JobQueue& x) { x.back(); }, +[](JobQueue& x) { x.emplace_back(); }}) {
    JobQueue copy = q;
    ASSERT_TRUE(copy.shapes_known());
    touch(copy);
    EXPECT_FALSE(copy.shapes_known());
    JobQueue copied_unknown = copy;  // a copy reads the jobs: known again
    EXPECT_TRUE(copied_unknown.shapes_known());
    copy.clear();  // empty: known
    EXPECT_TRUE(copy.shapes_known());
  }
  // The const accessors leave them known.
  const JobQueue& view = q;
  (void)view.begin();
  (void)view.end();
  (void)view[0];
  (void)view.front();
  (void)view.back();
  EXPECT_TRUE(q.shapes_known());
}

TEST(JobQueue, FirstFittingNeverSkipsAFitBeyondTheIntRange) {
  // Clamped to int a test may take a job that is no fit, never miss one.
  JobQueue q;
  const Time huge = kTimeMax;
  for (JobId id = 1; id <= 70; ++id) {
    Job j = job(id);
    j.size = 4;
    j.estimate = huge - id;  // every estimate beyond 2^31
    q.push_back(j);
  }
  // Jobs with estimate <= huge - 40 (ids >= 40) are fits.
  const JobQueue::Fit fit{10, 0, huge - 40};
  const std::size_t p = q.first_fitting(0, q.size(), fit);
  EXPECT_LE(p, 39u) << "the first fit is at 39";
  // A fit by size alone is exact.
  EXPECT_EQ(q.first_fitting(0, q.size(), {3, 3, 0}), q.size());
  EXPECT_EQ(q.first_fitting(0, q.size(), {std::int64_t{1} << 40, std::int64_t{1} << 40, 0}), 0u);
  EXPECT_EQ(q.first_fitting(0, q.size(), {-(std::int64_t{1} << 40), 10, huge}), q.size());
}

}  // namespace
}  // namespace los
