// Deriving events from successive snapshots.
#include "model/snapshot_diff.hpp"

#include <gtest/gtest.h>

#include "policy/registry.hpp"
#include "test_support.hpp"

#include <algorithm>
#include <random>

namespace los {
namespace {

using Kind = SnapshotEvent::Kind;

RunningJob running(JobId id, int size, Time start, bool suspended = false) {
  RunningJob r;
  r.job = test::job(id, 0, size, 100);
  r.start = start;
  r.suspended = suspended;
  return r;
}

std::vector<std::pair<Kind, JobId>> kinds(const std::vector<SnapshotEvent>& events) {
  std::vector<std::pair<Kind, JobId>> out;
  for (const auto& e : events) out.push_back({e.kind, e.job});
  return out;
}

TEST(SnapshotDiff, EveryKindOfChange) {
  Snapshot a;
  a.now = 10;
  a.queue = {test::job(1, 0, 2, 100), test::job(2, 0, 2, 100), test::job(3, 0, 1, 100)};
  a.running = {running(4, 1, 5), running(5, 1, 5), running(6, 1, 5, true)};
  Snapshot b;
  b.now = 20;
  b.queue = {test::job(2, 0, 2, 100), test::job(7, 15, 1, 100)};
  b.running = {running(5, 1, 5, true), running(6, 1, 5), running(1, 2, 10)};
  // 1 started, 3 withdrawn, 4 ended, 5 suspended, 6 resumed, 7 arrived.
  const auto ev = diff_snapshots(a, b);
  EXPECT_EQ(kinds(ev), (std::vector<std::pair<Kind, JobId>>{{Kind::Suspended, 5},
                                                            {Kind::Resumed, 6},
                                                            {Kind::Started, 1},
                                                            {Kind::Ended, 4},
                                                            {Kind::Withdrawn, 3},
                                                            {Kind::Arrived, 7}}));
  const auto started = std::find_if(ev.begin(), ev.end(), [](const auto& e) { return e.kind == Kind::Started; });
  EXPECT_EQ(started->start, 10);
  EXPECT_EQ(started->size, 2);
  EXPECT_EQ(started->estimate, 100);
}

TEST(SnapshotDiff, AStartedJobThatAlreadyEndedIsNotWithdrawn) {
  Snapshot a;
  a.now = 10;
  a.queue = {test::job(1, 0, 2, 100), test::job(2, 0, 2, 100)};
  Snapshot b;
  b.now = 11;
  EXPECT_EQ(kinds(diff_snapshots(a, b, {1})),
            (std::vector<std::pair<Kind, JobId>>{{Kind::Started, 1}, {Kind::Ended, 1}, {Kind::Withdrawn, 2}}));
}

TEST(SnapshotDiff, RequeuedJobEndsAndArrives) {
  Snapshot a;
  a.running = {running(1, 2, 5)};
  Snapshot b;
  b.queue = {test::job(1, 0, 2, 100)};
  EXPECT_EQ(kinds(diff_snapshots(a, b)), (std::vector<std::pair<Kind, JobId>>{{Kind::Ended, 1}, {Kind::Arrived, 1}}));
}

TEST(SnapshotDiff, NoChangeNoEvents) {
  Snapshot a;
  a.queue = {test::job(1, 0, 2, 100)};
  a.running = {running(2, 1, 5)};
  EXPECT_TRUE(diff_snapshots(a, a).empty());
}

// The events the simulator reports are the ones the diff derives from the
// snapshots it passes the policy, step after step.
class Recorder : public SimObserver {
 public:
  void after_step(const Snapshot& s, const StepResult& r, const Policy&) override {
    snapshots.push_back(s);
    std::vector<JobId> started;
    for (const Decision& d : r.decisions) {
      if (d.kind == Decision::Kind::Start) started.push_back(d.job);
    }
    decisions.push_back(started);
  }
  std::vector<Snapshot> snapshots;
  std::vector<std::vector<JobId>> decisions;
};

TEST(SnapshotDiff, MatchesTheSimulatorsEvents) {
  std::mt19937 rng(3);
  std::vector<Job> jobs;
  Time t = 0;
  for (JobId id = 1; id <= 400; ++id) {
    t += rng() % 50;
    const Time est = 1 + rng() % 500;
    jobs.push_back(test::job(id, t, 1 + static_cast<int>(rng() % 16), est, static_cast<Time>(rng() % (est + 1))));
  }
  const Workload w = test::workload(32, jobs);
  PolicyPtr p = make_policy("conservative");
  Recorder rec;
  simulate(w, *p, {}, &rec);
  ASSERT_GT(rec.snapshots.size(), 100u);
  for (std::size_t i = 1; i < rec.snapshots.size(); ++i) {
    auto derived = diff_snapshots(rec.snapshots[i - 1], rec.snapshots[i], rec.decisions[i - 1]);
    auto expected = rec.snapshots[i].events;
    auto key = [](const SnapshotEvent& e) { return std::tuple(static_cast<int>(e.kind), e.job, e.start); };
    std::vector<std::tuple<int, JobId, Time>> a, b;
    for (const auto& e : derived) a.push_back(key(e));
    for (const auto& e : expected) b.push_back(key(e));
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    ASSERT_EQ(a, b) << "step " << i << " at t=" << rec.snapshots[i].now;
  }
}

}  // namespace
}  // namespace los
