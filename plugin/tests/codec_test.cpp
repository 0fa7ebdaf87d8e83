// The plugin's C codec against losd's C++ one, both ways, and garbage
// refused with a reason.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "codec.h"
#include "protocol/codec.hpp"
#include "snapshot.h"

#include "plugin_test_support.hpp"

namespace {

using namespace los::plugin_test;

TEST(PluginCore, SnapshotEncodingDecodesInLosd) {
  Snap snap;
  snap.s.seq = 42;
  snap.s.now = 1000;
  snap.s.flags = LOS_SNAPSHOT_RESYNC;
  los_partition* p = add_partition(snap.s, "batch", 4);
  EXPECT_EQ(p->time_slots, 1);  // one job per node unless the plugin says otherwise
  p->time_slots = 3;            // OverSubscribe=FORCE:3
  p->nodes[3].state = LOS_NODE_DRAINED;
  add_running(p, 7, 900, 600, {0, 1});
  add_pending(p, 9, 1, 60, 5);
  add_pending(p, 8, 2, 120, 10);
  los_partition_sort_queue(p);

  los_buf buf{};
  ASSERT_EQ(los_encode_snapshot(&buf, 3, &snap.s), 0);
  const Bytes frame(buf.data, buf.data + buf.len);
  los_buf_free(&buf);
  const auto h = los::protocol::decode_header(frame);
  EXPECT_EQ(h.type, LOS_MSG_SNAPSHOT);
  EXPECT_EQ(h.request_id, 3u);
  ASSERT_EQ(h.payload_length, frame.size() - LOS_FRAME_HEADER_SIZE);
  const auto m = los::protocol::decode_snapshot(std::span(frame).subspan(LOS_FRAME_HEADER_SIZE));
  EXPECT_EQ(m.seq, 42u);
  EXPECT_EQ(m.now, 1000);
  EXPECT_TRUE(m.resync);
  ASSERT_EQ(m.partitions.size(), 1u);
  const los::Snapshot& s = m.partitions[0];
  EXPECT_EQ(s.partition, "batch");
  EXPECT_EQ(s.time_slots, 3);
  ASSERT_EQ(s.nodes.size(), 4u);
  EXPECT_EQ(s.total_units, 3);  // one drained
  EXPECT_EQ(s.free_units, 1);   // 3 usable - 2 running
  ASSERT_EQ(s.running.size(), 1u);
  EXPECT_EQ(s.running[0].job.id, 7);
  EXPECT_EQ(s.running[0].nodes, (std::vector<int>{0, 1}));
  ASSERT_EQ(s.queue.size(), 2u);
  EXPECT_EQ(s.queue[0].id, 8);  // higher priority first
  EXPECT_EQ(s.queue[1].id, 9);
  EXPECT_EQ(s.queue[0].estimate, 120);
}

TEST(PluginCore, MigrationOptInReachesLosdPerRunningJob) {
  // The running job's flags byte: bit 0 suspended, bit 1 opted in to
  // migration; each combination decodes to the same two flags in losd.
  Snap snap;
  snap.s.now = 1000;
  los_partition* p = add_partition(snap.s, "gang", 4);
  p->time_slots = 2;
  add_running(p, 1, 900, 600, {0});
  add_running(p, 2, 900, 600, {1});
  add_running(p, 3, 900, 600, {2});
  add_running(p, 4, 900, 600, {3});
  p->running[1].migratable = 1;
  p->running[2].suspended = 1;
  p->running[3].suspended = 1;
  p->running[3].migratable = 1;
  los_buf buf{};
  ASSERT_EQ(los_encode_snapshot(&buf, 1, &snap.s), 0);
  const Bytes frame(buf.data, buf.data + buf.len);
  los_buf_free(&buf);
  const auto m = los::protocol::decode_snapshot(std::span(frame).subspan(LOS_FRAME_HEADER_SIZE));
  const auto& r = m.partitions.at(0).running;
  ASSERT_EQ(r.size(), 4u);
  EXPECT_FALSE(r[0].suspended);
  EXPECT_FALSE(r[0].job.migratable);  // the plugin's default: not opted in
  EXPECT_FALSE(r[1].suspended);
  EXPECT_TRUE(r[1].job.migratable);
  EXPECT_TRUE(r[2].suspended);
  EXPECT_FALSE(r[2].job.migratable);
  EXPECT_TRUE(r[3].suspended);
  EXPECT_TRUE(r[3].job.migratable);
  // pending jobs carry no flag: not started, nothing to migrate
}

TEST(PluginCore, DecisionsFromLosdDecode) {
  los::protocol::DecisionsMessage m;
  m.seq = 5;
  m.wakeup = 1234;  // a time slice ends: the plugin must send a snapshot by then
  m.decisions.push_back({los::Decision::Kind::Start, LOS_JOB_PENDING, "batch", 12, {"n3", "n4"}});
  m.decisions.push_back({los::Decision::Kind::Suspend, LOS_JOB_RUNNING, "gang", 13, {}});
  const Bytes frame = los::protocol::encode(m, 1);
  Decs d;
  char err[256] = "";
  ASSERT_EQ(los_decode_decisions(frame.data() + LOS_FRAME_HEADER_SIZE, frame.size() - LOS_FRAME_HEADER_SIZE, &d.d, err,
                                 sizeof err),
            0)
      << err;
  EXPECT_EQ(d.d.seq, 5u);
  EXPECT_EQ(d.d.wakeup, 1234);
  ASSERT_EQ(d.d.count, 2u);
  EXPECT_EQ(d.d.items[0].job, 12u);
  EXPECT_STREQ(d.d.items[0].partition, "batch");
  ASSERT_EQ(d.d.items[0].node_count, 2u);
  EXPECT_STREQ(d.d.items[0].nodes[1], "n4");
  EXPECT_EQ(d.d.items[1].kind, LOS_DECIDE_SUSPEND);
  EXPECT_EQ(d.d.items[1].expected, LOS_JOB_RUNNING);
}

TEST(PluginCore, GarbageDecisionsAreRefusedWithAReason) {
  los::protocol::DecisionsMessage m;
  m.seq = 5;
  m.decisions.push_back({los::Decision::Kind::Start, LOS_JOB_PENDING, "batch", 12, {"n3"}});
  const Bytes frame = los::protocol::encode(m, 1);
  const std::uint8_t* payload = frame.data() + LOS_FRAME_HEADER_SIZE;
  const std::size_t len = frame.size() - LOS_FRAME_HEADER_SIZE;
  for (std::size_t cut = 0; cut < len; ++cut) {  // every truncation fails
    Decs d;
    char err[256] = "";
    EXPECT_EQ(los_decode_decisions(payload, cut, &d.d, err, sizeof err), -1) << "cut at " << cut;
    EXPECT_NE(std::string(err), "");
  }
  Bytes extra(payload, payload + len);
  extra.push_back(0);
  Decs d;
  char err[256] = "";
  EXPECT_EQ(los_decode_decisions(extra.data(), extra.size(), &d.d, err, sizeof err), -1);
  EXPECT_NE(std::string(err).find("unexpected bytes"), std::string::npos);
  Bytes bad_kind(payload, payload + len);
  bad_kind[20] = 9;  // first decision's kind: after seq (8), wakeup (8) and the count (4)
  Decs d2;
  EXPECT_EQ(los_decode_decisions(bad_kind.data(), bad_kind.size(), &d2.d, err, sizeof err), -1);
  EXPECT_NE(std::string(err).find("unknown kind"), std::string::npos);
}

}  // namespace
