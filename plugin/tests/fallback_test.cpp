// The fifo and easy fallback schedulers on hand-computed queues.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fallback.h"
#include "protocol/los_protocol.h"
#include "snapshot.h"

#include "plugin_test_support.hpp"

namespace {

using namespace los::plugin_test;

// The started jobs of a decision list, in order, as "id:size".
std::vector<std::string> starts(const los_decisions& d) {
  std::vector<std::string> out;
  for (std::uint32_t i = 0; i < d.count; ++i) {
    EXPECT_EQ(d.items[i].kind, LOS_DECIDE_START);
    out.push_back(std::to_string(d.items[i].job) + ":" + std::to_string(d.items[i].node_count));
  }
  return out;
}

// 8 nodes; job 1 runs on 4 of them until t=100 (now = 0).
// Queue: A(5 nodes, 50 s), B(2 nodes, 200 s), C(2 nodes, 80 s), D(3 nodes, 50 s).
// FIFO: A does not fit (4 free) -> nothing starts.
// EASY: A reserved at t=100 with 8-5 = 3 extra nodes; B (ends 200 > 100) fits on
// the extra nodes (extra 3 -> 1); C ends at 80 <= 100 -> starts; D no longer fits.
TEST(PluginCore, FallbackFifoAndEasyOnAHandComputedQueue) {
  for (int policy : {LOS_FALLBACK_FIFO, LOS_FALLBACK_EASY, LOS_FALLBACK_NONE}) {
    Snap snap;
    snap.s.seq = 1;
    snap.s.now = 0;
    los_partition* p = add_partition(snap.s, "batch", 8);
    add_running(p, 1, -10, 110, {0, 1, 2, 3});
    add_pending(p, 10, 5, 50, 40);
    add_pending(p, 11, 2, 200, 30);
    add_pending(p, 12, 2, 80, 20);
    add_pending(p, 13, 3, 50, 10);
    los_partition_sort_queue(p);
    Decs d;
    ASSERT_EQ(los_fallback_decide(&snap.s, policy, &d.d, nullptr), 0);
    EXPECT_EQ(d.d.seq, 1u);
    if (policy == LOS_FALLBACK_EASY) {
      EXPECT_EQ(starts(d.d), (std::vector<std::string>{"11:2", "12:2"}));
      // distinct free nodes: n5..n8
      EXPECT_STREQ(d.d.items[0].nodes[0], "n5");
      EXPECT_STREQ(d.d.items[0].nodes[1], "n6");
      EXPECT_STREQ(d.d.items[1].nodes[0], "n7");
      EXPECT_STREQ(d.d.items[1].nodes[1], "n8");
    } else {
      EXPECT_EQ(d.d.count, 0u) << los_fallback_name(policy);
    }
  }
}

// The reservation counts the jobs this very step starts: 16 idle nodes,
// K1(8, 120 s) starts; K2(16) is blocked until K1's limit ends (t=120, extra
// 0); K3(5, 60 s) ends before that and backfills; K4 and K5 (4 each) no
// longer fit the 3 nodes left.
TEST(PluginCore, FallbackEasyReservesBehindJobsStartedInTheSameStep) {
  Snap snap;
  los_partition* p = add_partition(snap.s, "batch", 16);
  add_pending(p, 1, 8, 120, 50);
  add_pending(p, 2, 16, 60, 40);
  add_pending(p, 3, 5, 60, 30);
  add_pending(p, 4, 4, 60, 20);
  add_pending(p, 5, 4, 60, 10);
  los_partition_sort_queue(p);
  Decs easy;
  ASSERT_EQ(los_fallback_decide(&snap.s, LOS_FALLBACK_EASY, &easy.d, nullptr), 0);
  EXPECT_EQ(starts(easy.d), (std::vector<std::string>{"1:8", "3:5"}));
  Decs fifo;
  ASSERT_EQ(los_fallback_decide(&snap.s, LOS_FALLBACK_FIFO, &fifo.d, nullptr), 0);
  EXPECT_EQ(starts(fifo.d), (std::vector<std::string>{"1:8"}));
}

// FIFO starts in order while jobs fit, skips jobs larger than the usable
// machine, and never uses drained or down nodes.
TEST(PluginCore, FallbackUsesOnlyIdleUsableNodes) {
  Snap snap;
  los_partition* p = add_partition(snap.s, "batch", 6);
  p->nodes[0].state = LOS_NODE_DRAINED;
  p->nodes[2].state = LOS_NODE_DOWN;
  add_pending(p, 1, 6, 10, 9);  // larger than the 4 usable nodes: never runs, must not block
  add_pending(p, 2, 2, 10, 8);
  add_pending(p, 3, 2, 10, 7);
  add_pending(p, 4, 1, 10, 6);
  los_partition_sort_queue(p);
  Decs d;
  ASSERT_EQ(los_fallback_decide(&snap.s, LOS_FALLBACK_FIFO, &d.d, nullptr), 0);
  EXPECT_EQ(starts(d.d), (std::vector<std::string>{"2:2", "3:2"}));
  std::vector<std::string> used;
  for (std::uint32_t i = 0; i < d.d.count; ++i)
    for (std::uint32_t n = 0; n < d.d.items[i].node_count; ++n) used.emplace_back(d.d.items[i].nodes[n]);
  EXPECT_EQ(used, (std::vector<std::string>{"n2", "n4", "n5", "n6"}));
}

// While the fallback decides, the first blocked job of each partition gets
// its reserved start (what squeue --start shows): on the queue above, A (5
// nodes) at t=100, when job 1's 4 nodes come back; under fifo too (nothing
// starts before it); none starts nothing and predicts nothing. A job that
// can never fit (more nodes than usable) is not the head.
TEST(PluginCore, FallbackPredictsTheFirstBlockedJobsReservedStart) {
  for (int policy : {LOS_FALLBACK_FIFO, LOS_FALLBACK_EASY, LOS_FALLBACK_NONE}) {
    Snap snap;
    los_partition* p = add_partition(snap.s, "batch", 8);
    add_running(p, 1, -10, 110, {0, 1, 2, 3});
    add_pending(p, 9, 9, 50, 50);  // 9 of 8 nodes: never
    add_pending(p, 10, 5, 50, 40);
    add_pending(p, 11, 2, 200, 30);
    los_partition* q = add_partition(snap.s, "idle", 2);
    add_pending(q, 20, 1, 50, 40);
    los_partition_sort_queue(p);
    Decs d;
    los_predictions starts{0, nullptr};
    ASSERT_EQ(los_fallback_decide(&snap.s, policy, &d.d, &starts), 0);
    if (policy == LOS_FALLBACK_NONE) {
      EXPECT_EQ(starts.count, 0u);
    } else {
      ASSERT_EQ(starts.count, 1u) << los_fallback_name(policy);
      EXPECT_STREQ(starts.items[0].partition, "batch");
      EXPECT_EQ(starts.items[0].job, 10u);
      EXPECT_EQ(starts.items[0].start, 100);
      EXPECT_EQ(starts.items[0].size, 5u);
      EXPECT_EQ(starts.items[0].reserved, 1);
    }
    los_predictions_free(&starts);
  }
}

}  // namespace
