// Indexed compression (backfilling's default: visit only the holders that
// could move) against the full scan it replaces, on random workloads whose
// jobs end early: the same reservations after every step, the same starts.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "planner/holder_index.hpp"
#include "policies/backfilling.hpp"
#include "sim/simulator.hpp"
#include "test_support.hpp"

namespace los {
namespace {

// Every step's planned starts, in order.
class PlanRecorder final : public SimObserver {
 public:
  void after_step(const Snapshot&, const StepResult&, const Policy& policy) override {
    plans.push_back(policy.reservations());
  }
  std::vector<std::vector<PlannedStart>> plans;
};

// Bursty arrivals of jobs that mostly end well before their estimates, on
// few units, so the queue is long and compression moves chains of holders.
Workload random_workload(std::uint32_t seed, int units, int jobs) {
  std::mt19937 rng(seed);
  std::vector<Job> out;
  Time t = 0;
  for (int i = 0; i < jobs; ++i) {
    if (rng() % 4 == 0) t += static_cast<Time>(rng() % 200);
    const int size = rng() % 3 == 0 ? 1 + static_cast<int>(rng() % units) : 1 + static_cast<int>(rng() % 4);
    const Time estimate = 1 + static_cast<Time>(rng() % 500);
    const Time runtime = rng() % 5 == 0 ? estimate : 1 + static_cast<Time>(rng() % estimate);
    out.push_back(test::job(i + 1, t, size, estimate, runtime));
  }
  return test::workload(units, std::move(out));
}

bool same_plan(const std::vector<PlannedStart>& a, const std::vector<PlannedStart>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k) {
    if (a[k].job != b[k].job || a[k].start != b[k].start) return false;
  }
  return true;
}

struct PolicyRun {
  SimResult result;
  std::vector<std::vector<PlannedStart>> plans;
};

PolicyRun simulate_with(const Workload& w, int depth, BackfillingPolicy::Compression compression) {
  BackfillingPolicy policy(depth, "backfilling", compression);
  PlanRecorder recorder;
  PolicyRun r{simulate(w, policy, {}, &recorder), {}};
  r.plans = std::move(recorder.plans);
  return r;
}

TEST(Compression, IndexedEqualsFullScanOnRandomWorkloads) {
  std::size_t moved_plans = 0;
  for (std::uint32_t seed = 1; seed <= 12; ++seed) {
    const Workload w = random_workload(seed, seed % 2 ? 16 : 40, 600);
    for (const int depth : {BackfillingPolicy::kUnlimited, 1, 3}) {
      SCOPED_TRACE("seed " + std::to_string(seed) + ", depth " + std::to_string(depth));
      const PolicyRun fast = simulate_with(w, depth, BackfillingPolicy::Compression::Indexed);
      const PolicyRun reference = simulate_with(w, depth, BackfillingPolicy::Compression::FullScan);
      ASSERT_EQ(fast.plans.size(), reference.plans.size());
      for (std::size_t i = 0; i < fast.plans.size(); ++i) {
        ASSERT_TRUE(same_plan(fast.plans[i], reference.plans[i])) << "step " << i;
        if (i > 0 && !same_plan(fast.plans[i], fast.plans[i - 1])) ++moved_plans;
      }
      ASSERT_EQ(fast.result.jobs.size(), reference.result.jobs.size());
      for (std::size_t j = 0; j < fast.result.jobs.size(); ++j) {
        EXPECT_EQ(fast.result.jobs[j].start, reference.result.jobs[j].start) << "job " << fast.result.jobs[j].job.id;
      }
    }
  }
  EXPECT_GT(moved_plans, 0u);  // the workloads do exercise compression
}

TEST(Compression, HolderIndexFindsTheFirstAcceptedHolderAfterAKey) {
  // Against a scan of a sorted vector, with random inserts and erases.
  std::mt19937 rng(7);
  HolderIndex index;
  std::vector<HolderIndex::Holder> all;
  for (int round = 0; round < 3000; ++round) {
    if (all.empty() || rng() % 3 != 0) {
      const HolderIndex::Holder h{static_cast<Time>(rng() % 100), round, round, 1 + static_cast<int>(rng() % 8),
                                  1 + static_cast<Time>(rng() % 50)};
      index.insert(h);
      all.push_back(h);
    } else {
      const std::size_t k = rng() % all.size();
      index.erase(all[k].start, all[k].order);
      all.erase(all.begin() + static_cast<std::ptrdiff_t>(k));
    }
    ASSERT_EQ(index.size(), all.size());
    if (round % 97 == 0) {  // sorted() and first() against a sort; rebuild from it (O(n) path)
      std::vector<HolderIndex::Holder> sorted_all = all;
      std::sort(sorted_all.begin(), sorted_all.end(), [](const HolderIndex::Holder& a, const HolderIndex::Holder& b) {
        return a.start < b.start || (a.start == b.start && a.order < b.order);
      });
      const std::vector<HolderIndex::Holder> listed = index.sorted();
      ASSERT_EQ(listed.size(), sorted_all.size());
      for (std::size_t k = 0; k < listed.size(); ++k) ASSERT_EQ(listed[k].id, sorted_all[k].id) << "round " << round;
      ASSERT_EQ(index.first() == nullptr, sorted_all.empty());
      if (!sorted_all.empty()) {
        ASSERT_EQ(index.first()->id, sorted_all.front().id);
      }
      index.assign_sorted(listed);
      ASSERT_EQ(index.size(), all.size());
    }
    const Time key_start = static_cast<Time>(rng() % 100);
    const std::int64_t key_order = static_cast<std::int64_t>(rng() % 3000);
    const std::int64_t max_size = 1 + static_cast<int>(rng() % 8);
    const Time max_duration = 1 + static_cast<Time>(rng() % 50);
    const auto accept = [&](const HolderIndex::Holder& h) { return h.size <= max_size && h.duration <= max_duration; };
    const auto may_hold = [&](const HolderIndex::Bounds& b) {
      return b.size <= max_size && b.duration <= max_duration;
    };
    const HolderIndex::Holder* expected = nullptr;
    for (const HolderIndex::Holder& h : all) {
      const bool after = h.start > key_start || (h.start == key_start && h.order > key_order);
      if (!after || !accept(h)) continue;
      if (expected == nullptr || h.start < expected->start ||
          (h.start == expected->start && h.order < expected->order)) {
        expected = &h;
      }
    }
    const HolderIndex::Holder* found = index.next_after(key_start, key_order, may_hold, accept);
    ASSERT_EQ(found == nullptr, expected == nullptr) << "round " << round;
    if (found != nullptr) {
      ASSERT_EQ(found->id, expected->id) << "round " << round;
    }
  }
}

TEST(Compression, HolderIndexWalkResumesAsASearchFromTheLastHolderFound) {
  // Compression's walk: its tests tighten or loosen between holders (each
  // move changes the gained units), and the walk must find what a search
  // from the last holder found would, under the tests of the moment.
  std::mt19937 rng(11);
  for (int round = 0; round < 300; ++round) {
    HolderIndex index;
    const int n = 1 + static_cast<int>(rng() % 200);
    for (int k = 0; k < n; ++k) {
      index.insert(
          {static_cast<Time>(rng() % 100), k, k, 1 + static_cast<int>(rng() % 8), 1 + static_cast<Time>(rng() % 50)});
    }
    std::int64_t max_size = 8;
    Time max_duration = 50;
    const auto accept = [&](const HolderIndex::Holder& h) { return h.size <= max_size && h.duration <= max_duration; };
    const auto may_hold = [&](const HolderIndex::Bounds& b) {
      return b.size <= max_size && b.duration <= max_duration;
    };
    HolderIndex::Walk walk;
    Time at = std::numeric_limits<Time>::min();
    std::int64_t order = std::numeric_limits<std::int64_t>::min();
    int found_count = 0;
    for (;;) {
      max_size = 1 + static_cast<int>(rng() % 8);
      max_duration = 1 + static_cast<Time>(rng() % 50);
      const HolderIndex::Holder* expected = index.next_after(at, order, may_hold, accept);
      const HolderIndex::Holder* found = index.next(walk, may_hold, accept);
      ASSERT_EQ(found == nullptr, expected == nullptr) << "round " << round << " after " << found_count;
      if (found == nullptr) break;
      ASSERT_EQ(found->id, expected->id) << "round " << round << " after " << found_count;
      at = found->start;
      order = found->order;
      ++found_count;
    }
  }
}

}  // namespace
}  // namespace los
