// The wire codec: round trips, the C helpers against the C++ codec, and
// every way a peer can get a frame wrong.
#include "protocol/codec.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace los::protocol {
namespace {

SnapshotMessage sample_snapshot() {
  SnapshotMessage m;
  m.seq = 42;
  m.now = 1700000000;
  m.resync = true;
  Snapshot p;
  p.partition = "batch";
  p.time_slots = 4;  // OverSubscribe=FORCE:4
  for (int i = 0; i < 6; ++i) p.nodes.push_back({"node" + std::to_string(i), Node::State::Idle});
  p.nodes[0].state = Node::State::Allocated;
  p.nodes[1].state = Node::State::Allocated;
  p.nodes[4].state = Node::State::Drained;
  p.nodes[5].state = Node::State::Down;
  RunningJob r;
  r.job.id = 7;
  r.job.user = 1001;
  r.job.submit = 1699990000;
  r.job.estimate = 3600;
  r.job.size = 2;
  r.start = 1699999000;
  r.nodes = {0, 1};
  p.running.push_back(r);
  Job q;
  q.id = 8;
  q.user = 1002;
  q.submit = 1699999500;
  q.size = 3;
  q.estimate = 600;
  q.priority = 12345;
  p.queue.push_back(q);
  m.partitions.push_back(p);
  Snapshot empty;
  empty.partition = "debug";
  m.partitions.push_back(empty);
  return m;
}

std::span<const std::uint8_t> payload_of(const Bytes& frame) {
  return std::span<const std::uint8_t>(frame).subspan(LOS_FRAME_HEADER_SIZE);
}

TEST(ProtocolCodec, HeaderLayoutIsLittleEndianAndNamed) {
  const Bytes f = encode_query_status(0x01020304);
  ASSERT_EQ(f.size(), LOS_FRAME_HEADER_SIZE);
  EXPECT_EQ(std::string(f.begin(), f.begin() + 4), "LOS1");
  EXPECT_EQ(f[4], LOS_PROTOCOL_VERSION);
  EXPECT_EQ(f[5], 0);
  EXPECT_EQ(f[6], LOS_MSG_QUERY_STATUS);
  EXPECT_EQ(f[8], 0x04);
  EXPECT_EQ(f[11], 0x01);
  const FrameHeader h = decode_header(f);
  EXPECT_EQ(h.type, LOS_MSG_QUERY_STATUS);
  EXPECT_EQ(h.request_id, 0x01020304u);
  EXPECT_EQ(h.payload_length, 0u);
}

// The worked example of docs/protocol.md, byte for byte.
TEST(ProtocolCodec, DocumentedQueryPlanExample) {
  const Bytes expected = {0x4c, 0x4f, 0x53, 0x31, 0x01, 0x00, 0x22, 0x00, 0x07, 0x00, 0x00,
                          0x00, 0x05, 0x00, 0x00, 0x00, 0x03, 0x00, 0x67, 0x70, 0x75};
  EXPECT_EQ(encode_query_plan("gpu", 7), expected);
}

TEST(ProtocolCodec, SnapshotRoundTripDerivesUnits) {
  const SnapshotMessage m = sample_snapshot();
  const Bytes f = encode(m, 9);
  EXPECT_EQ(decode_header(f).payload_length, f.size() - LOS_FRAME_HEADER_SIZE);
  const SnapshotMessage d = decode_snapshot(payload_of(f));
  EXPECT_EQ(d.seq, 42u);
  EXPECT_EQ(d.now, 1700000000);
  EXPECT_TRUE(d.resync);
  ASSERT_EQ(d.partitions.size(), 2u);
  const Snapshot& p = d.partitions[0];
  EXPECT_EQ(p.partition, "batch");
  EXPECT_EQ(p.time_slots, 4);
  EXPECT_EQ(d.partitions[1].time_slots, 1);  // the default: one job per node
  EXPECT_EQ(p.now, 1700000000);
  ASSERT_EQ(p.nodes.size(), 6u);
  EXPECT_EQ(p.nodes[4].state, Node::State::Drained);
  EXPECT_EQ(p.total_units, 4);  // drained and down nodes are not usable
  EXPECT_EQ(p.free_units, 2);   // 4 usable - 2 held by job 7
  ASSERT_EQ(p.running.size(), 1u);
  EXPECT_EQ(p.running[0].job.id, 7);
  EXPECT_EQ(p.running[0].job.user, 1001);
  EXPECT_EQ(p.running[0].start, 1699999000);
  EXPECT_EQ(p.running[0].job.estimate, 3600);
  EXPECT_EQ(p.running[0].nodes, (std::vector<int>{0, 1}));
  ASSERT_EQ(p.queue.size(), 1u);
  EXPECT_EQ(p.queue[0].id, 8);
  EXPECT_EQ(p.queue[0].size, 3);
  EXPECT_EQ(p.queue[0].estimate, 600);
  EXPECT_EQ(p.queue[0].priority, 12345);
  EXPECT_EQ(d.partitions[1].partition, "debug");
  EXPECT_EQ(d.partitions[1].total_units, 0);
}

// losd diffs each decoded snapshot with the ids the decoder built while it
// checked them (SnapshotIds): they must be those of the decoded snapshot, so
// the events equal those of a diff that builds its own.
TEST(ProtocolCodec, TheDecodersIdsAreTheSnapshotsAndDiffAlike) {
  std::mt19937_64 rng(17);
  const auto random_snapshot = [&rng](std::uint64_t seq, JobId first_id) {
    SnapshotMessage m;
    m.seq = seq;
    m.now = 1700000000 + static_cast<Time>(seq);
    Snapshot p;
    p.partition = "batch";
    for (int i = 0; i < 64; ++i) p.nodes.push_back({"node" + std::to_string(i), Node::State::Idle});
    JobId id = first_id;
    for (int k = 0; k < 24; ++k) {
      RunningJob r;
      r.job.id = id += 1 + rng() % 3;
      r.job.user = 1;
      r.job.submit = 1690000000;
      r.job.estimate = 600;
      r.job.size = 1;
      r.start = 1690000100;
      r.nodes = {k};
      p.running.push_back(r);
    }
    for (int k = 0; k < 300; ++k) {
      Job q;
      // mostly consecutive ids, a few far outside the bitmap's window
      q.id = rng() % 10 == 0 ? static_cast<JobId>(rng() % (JobId{1} << 62)) : (id += 1 + rng() % 3);
      q.user = static_cast<int>(rng() % 5);
      q.submit = 1690000000;
      q.size = 1 + static_cast<int>(rng() % 8);
      q.estimate = 60 + static_cast<Time>(rng() % 600);
      p.queue.push_back(q);
    }
    std::shuffle(p.queue.begin(), p.queue.end(), rng);
    m.partitions.push_back(p);
    return decode_snapshot(payload_of(encode(m, 1)));
  };
  const SnapshotMessage a = random_snapshot(1, 1000);
  const SnapshotMessage b = random_snapshot(2, 1100);  // overlaps a's ids
  for (const SnapshotMessage* m : {&a, &b}) {
    ASSERT_EQ(m->ids.size(), m->partitions.size());
    const Snapshot& s = m->partitions[0];
    const SnapshotIds built = SnapshotIds::of(s);
    const SnapshotIds& decoded = m->ids[0];
    EXPECT_EQ(decoded.pending, built.pending);
    for (const Snapshot* other : {&a.partitions[0], &b.partitions[0]}) {
      for (const Job& j : other->queue) EXPECT_EQ(decoded.pending_set.contains(j.id), built.pending_set.contains(j.id));
      for (const RunningJob& r : other->running) {
        EXPECT_EQ(decoded.running.find(r.job.id), built.running.find(r.job.id));
        EXPECT_EQ(decoded.pending_set.contains(r.job.id), built.pending_set.contains(r.job.id));
      }
    }
  }
  const std::vector<JobId> started = {b.partitions[0].running[0].job.id, a.partitions[0].queue[0].id};
  const std::vector<SnapshotEvent> with_decoded =
      diff_snapshots(a.partitions[0], a.ids[0], b.partitions[0], b.ids[0], started);
  const std::vector<SnapshotEvent> rebuilt = diff_snapshots(a.partitions[0], b.partitions[0], started);
  ASSERT_EQ(with_decoded.size(), rebuilt.size());
  EXPECT_GT(with_decoded.size(), 100u);
  for (std::size_t i = 0; i < rebuilt.size(); ++i) {
    EXPECT_EQ(with_decoded[i].kind, rebuilt[i].kind) << i;
    EXPECT_EQ(with_decoded[i].job, rebuilt[i].job) << i;
  }
}

TEST(ProtocolCodec, NodesHeldByAnotherPartitionAreNotFree) {
  SnapshotMessage m = sample_snapshot();
  m.partitions[0].nodes[2].state = Node::State::Allocated;  // no job here holds node 2
  const SnapshotMessage d = decode_snapshot(payload_of(encode(m)));
  EXPECT_EQ(d.partitions[0].total_units, 4);
  EXPECT_EQ(d.partitions[0].free_units, 1);
  // A suspended job's nodes stay allocated in Slurm but are free to the policy.
  m = sample_snapshot();
  m.partitions[0].running[0].suspended = true;
  EXPECT_EQ(decode_snapshot(payload_of(encode(m))).partitions[0].free_units, 4);
}

TEST(ProtocolCodec, RunningJobFlagsCarrySuspendedAndMigratable) {
  for (const bool susp : {false, true}) {
    for (const bool mig : {false, true}) {
      SnapshotMessage m = sample_snapshot();
      m.partitions[0].running[0].suspended = susp;
      m.partitions[0].running[0].job.migratable = mig;
      const SnapshotMessage d = decode_snapshot(payload_of(encode(m)));
      const RunningJob& r = d.partitions[0].running[0];
      EXPECT_EQ(r.suspended, susp);
      EXPECT_EQ(r.job.migratable, mig);
    }
  }
}

TEST(ProtocolCodec, UnknownRunningJobFlagBitsAreRefused) {
  // the flags byte of the first running job: find it by encoding two
  // snapshots that differ only there
  SnapshotMessage m = sample_snapshot();
  m.partitions[0].running[0].suspended = false;
  m.partitions[0].running[0].job.migratable = false;
  Bytes a = encode(m);
  m.partitions[0].running[0].suspended = true;
  const Bytes b = encode(m);
  ASSERT_EQ(a.size(), b.size());
  std::size_t at = 0;
  while (at < a.size() && a[at] == b[at]) ++at;
  ASSERT_LT(at, a.size());
  a[at] = 0x04;
  try {
    decode_snapshot(payload_of(a));
    FAIL() << "flag bit 2 accepted";
  } catch (const DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown flag bits 4"), std::string::npos) << e.what();
  }
}

TEST(ProtocolCodec, EveryTruncationIsRejected) {
  const Bytes f = encode(sample_snapshot());
  const auto payload = payload_of(f);
  for (std::size_t n = 0; n < payload.size(); ++n) {
    EXPECT_THROW(decode_snapshot(payload.first(n)), DecodeError) << "truncated to " << n;
  }
  Bytes longer(payload.begin(), payload.end());
  longer.push_back(0);
  try {
    decode_snapshot(longer);
    FAIL() << "trailing byte accepted";
  } catch (const DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("unexpected bytes"), std::string::npos) << e.what();
  }
}

TEST(ProtocolCodec, RandomBytesNeverCrashTheDecoders) {
  std::mt19937 rng(7);
  const Bytes good = encode(sample_snapshot());
  for (int round = 0; round < 3000; ++round) {
    Bytes p(good.begin() + LOS_FRAME_HEADER_SIZE, good.end());
    const int flips = 1 + round % 4;
    for (int k = 0; k < flips; ++k) p[rng() % p.size()] = static_cast<std::uint8_t>(rng());
    try {
      const SnapshotMessage m = decode_snapshot(p);
      for (const Snapshot& s : m.partitions) {
        for (const RunningJob& r : s.running) {
          for (int n : r.nodes) ASSERT_LT(static_cast<std::size_t>(n), s.nodes.size());
        }
      }
    } catch (const DecodeError&) {
    }
  }
}

TEST(ProtocolCodec, InvalidContentIsNamed) {
  auto expect_error = [](SnapshotMessage m, const std::string& words) {
    const Bytes f = encode(m);
    try {
      decode_snapshot(payload_of(f));
      FAIL() << "accepted; expected an error about " << words;
    } catch (const DecodeError& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  SnapshotMessage m = sample_snapshot();
  m.partitions[0].running[0].nodes = {0, 6};
  expect_error(m, "node index 6 outside");
  m = sample_snapshot();
  m.partitions[0].queue[0].id = 7;
  expect_error(m, "pending job 7 appears twice");
  m = sample_snapshot();
  m.partitions[1].partition = "batch";
  expect_error(m, "partition 'batch' appears twice");
  m = sample_snapshot();
  m.partitions[0].queue[0].estimate = 0;
  expect_error(m, "time limit 0 is not positive");
  m = sample_snapshot();
  m.partitions[0].queue[0].size = 0;
  expect_error(m, "size = 0 outside");
  m = sample_snapshot();
  m.partitions[1].time_slots = 0;
  expect_error(m, "partition 'debug': time slots 0");
}

TEST(ProtocolCodec, HugeCountsAreRejectedBeforeAllocating) {
  Bytes p(8 + 8 + 1, 0);
  p.insert(p.end(), {0xff, 0xff, 0xff, 0xff});  // 4 billion partitions in 0 bytes
  try {
    decode_snapshot(p);
    FAIL();
  } catch (const DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("partition count = 4294967295"), std::string::npos) << e.what();
  }
}

TEST(ProtocolCodec, DecisionsAndQueriesRoundTrip) {
  DecisionsMessage d;
  d.seq = 5;
  d.wakeup = 12345;
  d.decisions.push_back({Decision::Kind::Start, LOS_JOB_PENDING, "batch", 11, {"n1", "n2"}});
  d.decisions.push_back({Decision::Kind::Suspend, LOS_JOB_RUNNING, "gang", 12, {}});
  const DecisionsMessage back = decode_decisions(payload_of(encode(d)));
  ASSERT_EQ(back.decisions.size(), 2u);
  EXPECT_EQ(back.seq, 5u);
  EXPECT_EQ(back.wakeup, 12345);
  EXPECT_EQ(decode_decisions(payload_of(encode(DecisionsMessage{}))).wakeup, kTimeInfinity);
  EXPECT_EQ(back.decisions[0].nodes, (std::vector<std::string>{"n1", "n2"}));
  EXPECT_EQ(back.decisions[1].kind, Decision::Kind::Suspend);
  EXPECT_EQ(back.decisions[1].expected_state, LOS_JOB_RUNNING);

  Plan plan;
  plan.partition = "batch";
  plan.policy = "easy";
  plan.now = 100;
  plan.has_plan = true;
  plan.slots = {{100, 200, 3}, {200, kTimeInfinity, 8}};
  plan.reservations = {{9, 200}};
  const Plan pb = decode_plan(payload_of(encode(plan)));
  ASSERT_EQ(pb.slots.size(), 2u);
  EXPECT_EQ(pb.slots[1].end, kTimeInfinity);
  EXPECT_EQ(pb.reservations[0].job, 9);

  std::vector<PredictedStart> starts = {{"batch", 3, 1000, 4, 50, kTimeInfinity, false},
                                        {"batch", 4, 1000, 1, 60, 70, true}};
  const auto sb = decode_starts(payload_of(encode(starts)));
  ASSERT_EQ(sb.size(), 2u);
  EXPECT_EQ(sb[0].start, kTimeInfinity);
  EXPECT_EQ(sb[1].start, 70);
  EXPECT_TRUE(sb[1].reserved);

  Hello h{LOS_PROTOCOL_VERSION, "cl", "23.11.4", "plugin"};
  const Hello hb = decode_hello(payload_of(encode(h)));
  EXPECT_EQ(hb.slurm_version, "23.11.4");
  EXPECT_EQ(decode_query_partition(payload_of(encode_query_plan("gpu"))), "gpu");
  EXPECT_EQ(decode_set_policy(payload_of(encode(SetPolicy{"gpu", "depth:k=2"}))).spec, "depth:k=2");
}

// The plugin encodes with the C helpers: the C++ decoder must read them.
TEST(ProtocolCodec, CHelpersSpeakTheSameBytes) {
  std::uint8_t buf[256];
  std::uint8_t* p = buf + LOS_FRAME_HEADER_SIZE;
  p = los_put_u16(p, LOS_PROTOCOL_VERSION);
  p = los_put_str(p, "cluster1", 8);
  p = los_put_str(p, "24.05", 5);
  p = los_put_str(p, "c-plugin", 8);
  const auto len = static_cast<std::uint32_t>(p - buf - LOS_FRAME_HEADER_SIZE);
  los_put_header(buf, LOS_MSG_HELLO, 77, len);
  const FrameHeader h = decode_header(std::span<const std::uint8_t>(buf, LOS_FRAME_HEADER_SIZE));
  EXPECT_EQ(h.type, LOS_MSG_HELLO);
  EXPECT_EQ(h.request_id, 77u);
  const Hello hello = decode_hello(std::span<const std::uint8_t>(buf + LOS_FRAME_HEADER_SIZE, len));
  EXPECT_EQ(hello.cluster, "cluster1");
  EXPECT_EQ(hello.client, "c-plugin");

  // And the C cursor reads what the C++ encoder wrote, stopping at the end.
  DecisionsMessage d;
  d.seq = 0x1122334455667788ULL;
  d.decisions.push_back({Decision::Kind::Start, LOS_JOB_PENDING, "p", 99, {"n7"}});
  const Bytes f = encode(d);
  los_cursor c{f.data() + LOS_FRAME_HEADER_SIZE, f.data() + f.size(), 0};
  EXPECT_EQ(los_get_u64(&c), 0x1122334455667788ULL);
  EXPECT_EQ(los_get_i64(&c), LOS_START_UNKNOWN);  // no wakeup
  EXPECT_EQ(los_get_u32(&c), 1u);
  EXPECT_EQ(los_get_u8(&c), LOS_DECIDE_START);
  EXPECT_EQ(los_get_u8(&c), LOS_JOB_PENDING);
  std::uint16_t n = 0;
  const char* s = los_get_str(&c, &n);
  EXPECT_EQ(std::string(s, n), "p");
  EXPECT_EQ(los_get_u64(&c), 99u);
  EXPECT_EQ(los_get_u32(&c), 1u);
  s = los_get_str(&c, &n);
  EXPECT_EQ(std::string(s, n), "n7");
  EXPECT_EQ(c.failed, 0);
  EXPECT_EQ(c.p, c.end);
  los_get_u8(&c);
  EXPECT_EQ(c.failed, 1);
}

}  // namespace
}  // namespace los::protocol
