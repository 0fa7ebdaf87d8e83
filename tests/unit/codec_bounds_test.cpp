// The C++ decoder bounds what a peer sends (issue 19): times past 2^50 s,
// which overflowed the planner's sums (heap-use-after-free in losd), empty
// node names, and out-of-range wake-ups and predicted starts are refused
// naming the field.
#include <gtest/gtest.h>

#include <cstring>

#include "protocol/codec.hpp"

namespace los::protocol {
namespace {

SnapshotMessage snapshot() {
  SnapshotMessage m;
  m.seq = 1;
  m.now = 1700000000;
  Snapshot p;
  p.partition = "batch";
  for (const char* name : {"n0", "n1", "n2", "n3"}) p.nodes.push_back({name, Node::State::Idle});
  p.nodes[0].state = Node::State::Allocated;
  RunningJob r;
  r.job.id = 7;
  r.job.user = 1001;
  r.job.submit = 1699990000;
  r.job.estimate = 3600;
  r.job.size = 1;
  r.start = 1699999000;
  r.nodes = {0};
  p.running.push_back(r);
  Job q;
  q.id = 8;
  q.user = 1002;
  q.submit = 1699999500;
  q.size = 2;
  q.estimate = 600;
  p.queue.push_back(q);
  m.partitions.push_back(p);
  return m;
}

std::string error_of(const SnapshotMessage& m) {
  const Bytes f = encode(m);
  try {
    decode_snapshot(std::span<const std::uint8_t>(f).subspan(LOS_FRAME_HEADER_SIZE));
  } catch (const DecodeError& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& text, const std::string& words) { return text.find(words) != std::string::npos; }

constexpr Time kHuge = 3000000000000000000;  // 3e18 s: the snapshot

TEST(CodecBounds, HugeSnapshotTimesAreRefusedNamingTheField) {
  SnapshotMessage m = snapshot();
  m.now = kHuge;
  EXPECT_TRUE(has(error_of(m), "SNAPSHOT at byte 16: now 3000000000000000000 outside [0, 2^50 s]")) << error_of(m);

  m = snapshot();
  m.partitions[0].queue[0].submit = kHuge;
  EXPECT_TRUE(has(error_of(m), "pending job 8: submit time 3000000000000000000 outside")) << error_of(m);
  m = snapshot();
  m.partitions[0].queue[0].estimate = kHuge;
  EXPECT_TRUE(has(error_of(m), "pending job 8: time limit 3000000000000000000 outside [1, 2^50 s]")) << error_of(m);
  m = snapshot();
  m.partitions[0].running[0].start = kHuge;
  EXPECT_TRUE(has(error_of(m), "running job 7: start time 3000000000000000000 outside")) << error_of(m);
  m = snapshot();
  m.partitions[0].running[0].job.submit = kTimeMax + 1;
  EXPECT_TRUE(has(error_of(m), "running job 7: submit time")) << error_of(m);
  m = snapshot();
  m.partitions[0].running[0].job.estimate = kTimeMax + 1;
  EXPECT_TRUE(has(error_of(m), "running job 7: time limit")) << error_of(m);
  m = snapshot();
  m.partitions[0].queue[0].submit = -5;
  EXPECT_TRUE(has(error_of(m), "pending job 8: submit time -5 outside")) << error_of(m);
}

TEST(CodecBounds, TimesAtTheBoundDecode) {
  SnapshotMessage m = snapshot();
  m.now = kTimeMax;
  m.partitions[0].running[0].start = kTimeMax;
  m.partitions[0].running[0].job.estimate = kTimeMax;
  m.partitions[0].queue[0].submit = kTimeMax;
  m.partitions[0].queue[0].estimate = kTimeMax;
  EXPECT_EQ(error_of(m), "");
}

// time_slots is a u16 >= 1 right after the partition name: the largest
// value decodes, 0 is refused naming the partition.
TEST(CodecBounds, TimeSlotsAreAtLeastOne) {
  SnapshotMessage m = snapshot();
  m.partitions[0].time_slots = 65535;
  const Bytes f = encode(m);
  EXPECT_EQ(decode_snapshot(std::span<const std::uint8_t>(f).subspan(LOS_FRAME_HEADER_SIZE)).partitions[0].time_slots,
            65535);
  m.partitions[0].time_slots = 0;
  EXPECT_TRUE(has(error_of(m), "partition 'batch': time slots 0")) << error_of(m);
}

TEST(CodecBounds, EmptyNodeNamesAreRefused) {
  SnapshotMessage m = snapshot();
  m.partitions[0].nodes[2].name = "";
  EXPECT_TRUE(has(error_of(m), "partition 'batch' node 2 has an empty name")) << error_of(m);

  DecisionsMessage d;
  d.decisions.push_back({Decision::Kind::Start, LOS_JOB_PENDING, "batch", 8, {"n1", ""}});
  const Bytes f = encode(d);
  try {
    decode_decisions(std::span<const std::uint8_t>(f).subspan(LOS_FRAME_HEADER_SIZE));
    ADD_FAILURE() << "an empty node name was accepted";
  } catch (const DecodeError& e) {
    EXPECT_TRUE(has(e.what(), "job 8: empty node name")) << e.what();
  }
}

TEST(CodecBounds, WakeupIsNoTimerOrABoundedTime) {
  auto round_trip = [](Time wakeup) {
    DecisionsMessage d;
    d.wakeup = wakeup;
    const Bytes f = encode(d);
    return decode_decisions(std::span<const std::uint8_t>(f).subspan(LOS_FRAME_HEADER_SIZE)).wakeup;
  };
  EXPECT_EQ(round_trip(1234), 1234);
  EXPECT_EQ(round_trip(kTimeMax), kTimeMax);
  EXPECT_EQ(round_trip(kTimeInfinity), kTimeInfinity);
  // A policy's wake-up past the bound goes out as "no timer", never as a
  // value the plugin would refuse.
  EXPECT_EQ(round_trip(kTimeMax + 1), kTimeInfinity);
  EXPECT_THROW(round_trip(-5), DecodeError);
}

// Every time that may be unknown (STARTS, PLAN) follows the wake-up's rule:
// -1 or [0, 2^50 s]. A value in between, e.g. the planner's infinity sent
// as a number, was read by losd's decoder as "unknown" and by the plugin's
// as a date 73 million years away (found by fuzz_codec_differential).
TEST(CodecBounds, PredictedStartIsUnknownOrABoundedTime) {
  auto round_trip = [](Time start) {
    PredictedStart p;
    p.partition = "batch";
    p.job = 9;
    p.size = 1;
    p.start = start;
    const Bytes f = encode(std::vector<PredictedStart>{p});
    return decode_starts(std::span<const std::uint8_t>(f).subspan(LOS_FRAME_HEADER_SIZE)).at(0).start;
  };
  EXPECT_EQ(round_trip(kTimeMax), kTimeMax);
  EXPECT_EQ(round_trip(kTimeInfinity), kTimeInfinity);
  EXPECT_EQ(round_trip(kTimeMax + 1), kTimeInfinity);
  // The same message with the start patched to a number past the bound.
  PredictedStart p;
  p.partition = "batch";
  p.job = 9;
  p.size = 1;
  p.start = 1234;
  Bytes f = encode(std::vector<PredictedStart>{p});
  const std::int64_t past = kTimeInfinity;
  // The start is the entry's last i64, before the reserved flag.
  std::memcpy(f.data() + f.size() - 9, &past, sizeof past);
  try {
    decode_starts(std::span<const std::uint8_t>(f).subspan(LOS_FRAME_HEADER_SIZE));
    FAIL() << "a predicted start past 2^50 s was accepted";
  } catch (const DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("predicted start"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace los::protocol
