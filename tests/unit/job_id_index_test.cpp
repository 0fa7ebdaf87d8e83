// The flat job-id containers of the snapshot decoder and snapshot_diff must
// answer exactly as std::unordered_set / unordered_map, whatever the ids'
// spread (dense, strided, negative, extreme).
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "model/job_id_index.hpp"

namespace los {
namespace {

std::vector<std::vector<JobId>> id_patterns() {
  std::mt19937_64 rng(17);
  std::vector<std::vector<JobId>> out;
  std::vector<JobId> dense;  // Slurm: consecutive ids, shuffled by priority
  for (JobId i = 0; i < 5000; ++i) dense.push_back(1'000'000 + i);
  std::shuffle(dense.begin(), dense.end(), rng);
  out.push_back(dense);
  std::vector<JobId> strided;  // every 2^20th id: one hash bucket for a naive mask
  for (JobId i = 0; i < 3000; ++i) strided.push_back(i << 20);
  out.push_back(strided);
  std::vector<JobId> outliers = dense;  // most ids dense, a few far away
  for (JobId x : {JobId{0}, JobId{1}, std::numeric_limits<JobId>::max(), std::numeric_limits<JobId>::min(), JobId{-1},
                  JobId{999'999}, JobId{1'005'000}, JobId{1} << 40}) {
    outliers.push_back(x);
  }
  out.push_back(outliers);
  std::vector<JobId> random;
  for (int i = 0; i < 4000; ++i) random.push_back(static_cast<JobId>(rng()));
  for (int i = 0; i < 500; ++i) random.push_back(random[rng() % random.size()]);  // repeats
  out.push_back(random);
  return out;
}

TEST(JobIdIndex, AnswersAsUnorderedMap) {
  for (const std::vector<JobId>& ids : id_patterns()) {
    JobIdIndex index;
    std::unordered_map<JobId, std::size_t> expected;
    for (std::size_t i = 0; i < ids.size(); ++i) {
      EXPECT_EQ(index.insert(ids[i], i), expected.emplace(ids[i], i).second) << ids[i];
    }
    EXPECT_EQ(index.size(), expected.size());
    for (JobId id : ids) EXPECT_EQ(index.find(id), expected.at(id));
    for (JobId probe : {JobId{2}, JobId{-2}, JobId{1'010'000}, JobId{3} << 20 | 1}) {
      EXPECT_EQ(index.contains(probe), expected.count(probe) > 0) << probe;
    }
    index.assign(ids[0], 12345);
    EXPECT_EQ(index.find(ids[0]), 12345u);
  }
}

TEST(JobMap, InsertsAndErasesAsUnorderedMap) {
  // Erasing shifts probe runs back: every id still there must stay
  // findable, whichever ids share runs (the strided pattern makes long ones).
  std::mt19937_64 rng(23);
  for (const std::vector<JobId>& ids : id_patterns()) {
    JobMap<std::int64_t> map;
    std::unordered_map<JobId, std::int64_t> expected;
    for (int op = 0; op < 40000; ++op) {
      const JobId id = ids[rng() % ids.size()];
      const auto value = static_cast<std::int64_t>(rng() % 1000);
      switch (rng() % 5) {
        case 0:
        case 1:
          ASSERT_EQ(map.insert(id, value), expected.emplace(id, value).second) << id;
          break;
        case 2:
          map.assign(id, value);
          expected[id] = value;
          break;
        case 3:
          map[id] += value;  // adds a 0 first where absent, as std::unordered_map's []
          expected[id] += value;
          break;
        default:
          ASSERT_EQ(map.erase(id), expected.erase(id) > 0) << id;
      }
      ASSERT_EQ(map.size(), expected.size());
      if (op % 1000 == 0) {
        for (JobId probe : ids) {
          const std::int64_t* found = map.find(probe);
          const auto it = expected.find(probe);
          ASSERT_EQ(found != nullptr, it != expected.end()) << probe;
          if (found != nullptr) {
            ASSERT_EQ(*found, it->second) << probe;
          }
        }
        std::size_t listed = 0;
        map.for_each([&](JobId id, std::int64_t v) {
          ASSERT_EQ(expected.at(id), v);
          ++listed;
        });
        ASSERT_EQ(listed, expected.size());
      }
    }
    map.clear();
    EXPECT_TRUE(map.empty());
    EXPECT_FALSE(map.contains(ids[0]));
  }
}

TEST(JobIdSet, AnswersAsUnorderedSetWhateverTheWindow) {
  for (const std::vector<JobId>& ids : id_patterns()) {
    // the window from the ids themselves, and windows that miss them
    std::vector<JobIdSet> sets;
    sets.push_back(JobIdSet::for_ids(ids.size(), [&](std::size_t k) { return ids[k]; }));
    sets.push_back(JobIdSet(std::numeric_limits<JobId>::max(), 100));
    sets.push_back(JobIdSet(std::numeric_limits<JobId>::min(), 100));
    sets.push_back(JobIdSet(ids[ids.size() / 2], 10));
    for (JobIdSet& set : sets) {
      std::unordered_set<JobId> expected;
      for (JobId id : ids) EXPECT_EQ(set.insert(id), expected.insert(id).second) << id;
      for (JobId id : ids) EXPECT_TRUE(set.contains(id)) << id;
      for (JobId probe : {JobId{2}, JobId{-2}, JobId{1'010'000}, JobId{1'000'001}, (JobId{3} << 20) | 1}) {
        EXPECT_EQ(set.contains(probe), expected.count(probe) > 0) << probe;
      }
    }
  }
  EXPECT_FALSE(JobIdSet().contains(0));
  JobIdSet empty_window = JobIdSet::for_ids(0, [](std::size_t) { return JobId{0}; });
  EXPECT_TRUE(empty_window.insert(7));
  EXPECT_FALSE(empty_window.insert(7));
}

}  // namespace
}  // namespace los
