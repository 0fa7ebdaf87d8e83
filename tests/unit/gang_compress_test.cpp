// The gang rows' compression: the indexed pass (only the holders that could
// move are visited, gang_row_plan.hpp) against the full scan it replaces.
// On random row plans, with units given back by early ends, withdrawals and
// restarts, both must make the same moves and leave the same plan; whole
// BGS / MBGS simulations, with and without resyncs, the same schedule.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "policies/gang.hpp"
#include "policies/gang_row_plan.hpp"
#include "policy/registry.hpp"
#include "sim/simulator.hpp"
#include "test_support.hpp"

namespace los {
namespace {

using Compression = GangRowPlan::Compression;

// One row as gang.cpp keeps it: the plan, the holders' spans, the running
// jobs' holds (given back with add() when they end).
struct Row {
  struct Hold {
    Time end;
    std::int64_t size;
  };
  GangRowPlan plan;
  std::map<JobId, Planner::SpanId> spans;
  std::vector<Hold> holds;
  std::int64_t next_order = 0;

  Row(std::int64_t capacity, Time origin) : plan(capacity, origin) {}

  const std::vector<GangRowPlan::Move>& compress(Time now, Compression how) {
    return plan.compress(now, [this](JobId id) -> Planner::SpanId& { return spans.at(id); }, how);
  }
  void reserve(JobId id, std::int64_t size, Time duration, Time now) {
    const Time s = plan.earliest_start(size, duration, now);
    if (s >= kTimeInfinity) return;
    spans[id] = plan.planner().reserve(s, duration, size);
    plan.reserved.insert({s, next_order++, id, size, duration});
  }
};

bool same_holders(const std::vector<HolderIndex::Holder>& a, const std::vector<HolderIndex::Holder>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].id != b[i].id || a[i].start != b[i].start || a[i].order != b[i].order) return false;
  }
  return true;
}

TEST(GangCompress, IndexedEqualsFullScanOnRandomRowPlans) {
  std::mt19937_64 rng(1717);
  long long moves = 0;
  long long passes_with_moves = 0;
  long long passes = 0;
  for (int round = 0; round < 200; ++round) {
    const std::int64_t cap = 2 + static_cast<std::int64_t>(rng() % 60);
    Time now = static_cast<Time>(rng() % 100);
    Row row(cap, now);
    JobId next_id = 1;
    for (int k = 0; k < 400; ++k) {
      SCOPED_TRACE("round " + std::to_string(round) + " op " + std::to_string(k));
      const int op = static_cast<int>(rng() % 100);
      if (op < 8) {  // time moves on: holders due now start (their spans become holds)
        now += static_cast<Time>(rng() % 60);
        row.plan.planner().advance_to(now);
        for (const HolderIndex::Holder& h : row.plan.reserved.sorted()) {
          if (h.start > now) break;
          row.plan.reserved.erase(h.start, h.order);
          row.spans.erase(h.id);
          row.holds.push_back({h.start + h.duration, h.size});
        }
      } else if (op < 16 && !row.holds.empty()) {  // a running job ends early
        const std::size_t i = rng() % row.holds.size();
        if (row.holds[i].end > now) row.plan.planner().add(now, row.holds[i].end, row.holds[i].size);
        row.holds.erase(row.holds.begin() + static_cast<std::ptrdiff_t>(i));
      } else if (op < 20 && !row.spans.empty()) {  // a holder is withdrawn
        auto it = row.spans.begin();
        std::advance(it, static_cast<std::ptrdiff_t>(rng() % row.spans.size()));
        for (const HolderIndex::Holder& h : row.plan.reserved.sorted()) {
          if (h.id == it->first) row.plan.reserved.erase(h.start, h.order);
        }
        row.plan.planner().release(it->second);
        row.spans.erase(it);
      } else if (op < 21) {  // the row is re-planned (rebuild_row): holds kept, holders in order
        const std::vector<HolderIndex::Holder> holders = row.plan.reserved.sorted();
        row.plan.restart(cap, now);
        row.plan.reserved.clear();
        row.spans.clear();
        for (Row::Hold& h : row.holds) {
          if (h.end <= now) h.end = now + 1 + static_cast<Time>(rng() % 100);
          row.plan.planner().add(now, h.end, -h.size);
        }
        for (const HolderIndex::Holder& h : holders) row.reserve(h.id, h.size, h.duration, now);
      } else if (op < 35) {  // a job starts now, if it fits
        const std::int64_t size = 1 + static_cast<std::int64_t>(rng() % cap);
        const Time dur = 1 + static_cast<Time>(rng() % 400);
        if (row.plan.planner().min_free(now, now + dur) >= size) {
          row.plan.planner().reserve(now, dur, size);
          row.holds.push_back({now + dur, size});
        }
      } else if (op < 85) {  // a job is reserved at its earliest start
        const std::int64_t size = 1 + static_cast<std::int64_t>(rng() % cap);
        const Time dur = 1 + static_cast<Time>(rng() % 400);
        row.reserve(next_id++, size, dur, now);
      } else {  // compression: the indexed pass against the full scan on a copy
        Row reference = row;
        const std::vector<GangRowPlan::Move> expected = reference.compress(now, Compression::FullScan);
        const std::vector<GangRowPlan::Move> got = row.compress(now, Compression::Indexed);
        ASSERT_EQ(got.size(), expected.size());
        for (std::size_t i = 0; i < got.size(); ++i) {
          ASSERT_EQ(got[i].id, expected[i].id);
          ASSERT_EQ(got[i].from, expected[i].from);
          ASSERT_EQ(got[i].to, expected[i].to);
        }
        ASSERT_TRUE(same_holders(row.plan.reserved.sorted(), reference.plan.reserved.sorted()));
        ASSERT_EQ(row.plan.planner().slots(), reference.plan.planner().slots());
        ++passes;
        moves += static_cast<long long>(got.size());
        passes_with_moves += !got.empty();
        // The pass left a fixpoint: a second full scan moves nothing.
        ASSERT_TRUE(reference.compress(now, Compression::FullScan).empty());
      }
    }
  }
  // The plans do exercise compression: many passes move chains of holders.
  EXPECT_GT(passes, 5000);
  EXPECT_GT(passes_with_moves, passes / 10);
  EXPECT_GT(moves, 3 * passes_with_moves);
}

// Bursty arrivals of jobs that mostly end well before their estimates (the
// rows' plans are compressed at almost every completion).
Workload random_workload(std::uint32_t seed, int units, int jobs) {
  std::mt19937 rng(seed);
  std::vector<Job> out;
  Time t = 0;
  for (int i = 0; i < jobs; ++i) {
    if (rng() % 4 == 0) t += static_cast<Time>(rng() % 300);
    const int size = rng() % 3 == 0 ? 1 + static_cast<int>(rng() % units) : 1 + static_cast<int>(rng() % 4);
    const Time estimate = 1 + static_cast<Time>(rng() % 2000);
    const Time runtime = rng() % 5 == 0 ? estimate : 1 + static_cast<Time>(rng() % estimate);
    out.push_back(test::job(i + 1, t, size, estimate, runtime));
  }
  return test::workload(units, std::move(out));
}

SimResult simulate_with(const Workload& w, const std::string& spec, Compression how, const SimOptions& options) {
  PolicyPtr made = make_policy(spec);
  const auto* gang = dynamic_cast<const GangPolicy*>(made.get());
  if (!gang) throw std::logic_error(spec + " is not a gang policy");
  GangOptions o = gang->options();
  o.compression = how;
  GangPolicy policy(o, spec);
  return simulate(w, policy, options);
}

TEST(GangCompress, IndexedEqualsFullScanInSimulations) {
  const std::vector<std::string> specs = {"bgs", "mbgs", "bgs:mpl=1", "bgs:mpl=3:cs=2", "mbgs:mpl=2:c=0:q=-1",
                                          "mbgs:plan=rebuild:migrate_idle"};
  for (std::uint32_t seed = 1; seed <= 4; ++seed) {
    const Workload w = random_workload(seed, seed % 2 ? 16 : 48, 500);
    for (const std::string& spec : specs) {
      for (const bool resyncs : {false, true}) {
        SCOPED_TRACE("seed " + std::to_string(seed) + ", " + spec + (resyncs ? ", resyncs" : ""));
        SimOptions options;
        if (resyncs) {
          for (std::size_t k = 7; k < 4000; k += 7 + k % 11) options.resync_steps.push_back(k);
        }
        const SimResult fast = simulate_with(w, spec, Compression::Indexed, options);
        const SimResult reference = simulate_with(w, spec, Compression::FullScan, options);
        ASSERT_EQ(fast.jobs.size(), reference.jobs.size());
        ASSERT_EQ(fast.steps, reference.steps);
        for (std::size_t j = 0; j < fast.jobs.size(); ++j) {
          const JobOutcome& a = fast.jobs[j];
          const JobOutcome& b = reference.jobs[j];
          ASSERT_EQ(a.start, b.start) << "job " << a.job.id;
          ASSERT_EQ(a.end, b.end) << "job " << a.job.id;
          ASSERT_EQ(a.suspensions, b.suspensions) << "job " << a.job.id;
        }
      }
    }
  }
}

}  // namespace
}  // namespace los
