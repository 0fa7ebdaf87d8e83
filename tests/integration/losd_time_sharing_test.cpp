// losd refuses a time-sharing policy (Capabilities::time_sharing: gang,
// bgs, mgs, mbgs, pect, pect-search) on a partition whose snapshot says Slurm
// lets it hold fewer jobs per node than the policy places
// (time_slots < Capabilities::jobs_per_node: the gang family's mpl, pect's 3;
// time_slots is 1 without OverSubscribe=FORCE:N or with Slurm's own
// PreemptMode=GANG): an ERROR naming the partition, what it has and what it
// needs, and the easy fallback for that partition, until a snapshot shows it
// configured (docs/gang-live.md). The real losd on real sockets.
#include <gtest/gtest.h>

#include <string>

#include "losd_process.hpp"
#include "protocol/client.hpp"

namespace los {
namespace {

using protocol::Client;
using std::chrono::seconds;

const std::string kLosd = std::string(LOS_BIN_DIR) + "/losd";

// Partition "gangp" of two idle nodes, two 2-node jobs queued.
protocol::SnapshotMessage snapshot(std::uint64_t seq, int time_slots) {
  protocol::SnapshotMessage m;
  m.seq = seq;
  m.now = 10000 + static_cast<Time>(seq);
  Snapshot p;
  p.partition = "gangp";
  p.time_slots = time_slots;
  p.nodes = {{"a", Node::State::Idle}, {"b", Node::State::Idle}};
  p.queue.push_back(Job{.id = 1, .user = 1, .submit = 9000, .size = 2, .estimate = 600, .priority = 2});
  p.queue.push_back(Job{.id = 2, .user = 1, .submit = 9001, .size = 2, .estimate = 600, .priority = 1});
  m.partitions.push_back(p);
  return m;
}

std::string policy_of(const test::LosdProcess& losd, const std::string& partition) {
  Client q(losd.query_socket(), seconds(10));
  q.hello("test");
  for (const auto& p : protocol::decode_status(q.request(protocol::encode_query_status()).payload).partitions) {
    if (p.name == partition) return p.policy;
  }
  return "(none)";
}

TEST(LosdTimeSharing, RefusedOnAPartitionWithOneSlotThenRestoredWhenConfigured) {
  test::LosdProcess losd(kLosd, "default_policy: gang:mpl=2:slice=5\n");
  Client plugin(losd.plugin_socket(), seconds(10));
  plugin.hello("plugin");

  // One job per node: the gang policy is refused, easy decides (job 1 on
  // both nodes, no slice timer).
  protocol::DecisionsMessage d = protocol::decode_decisions(plugin.request(protocol::encode(snapshot(1, 1))).payload);
  ASSERT_TRUE(losd.wait_for_log("time-sharing policy refused"));
  const std::string log = losd.log();
  EXPECT_NE(log.find("gangp"), std::string::npos) << log;
  EXPECT_NE(log.find("OverSubscribe=FORCE:2 (or more) on PartitionName=gangp"), std::string::npos) << log;
  EXPECT_NE(log.find("time_slots=1"), std::string::npos) << log;
  EXPECT_NE(log.find("jobs_per_node=2"), std::string::npos) << log;
  EXPECT_EQ(policy_of(losd, "gangp"), "easy");
  ASSERT_EQ(d.decisions.size(), 1u);
  EXPECT_EQ(d.decisions[0].job, 1);
  EXPECT_EQ(d.wakeup, kTimeInfinity);

  // Still one slot: still easy, and no second error line.
  d = protocol::decode_decisions(plugin.request(protocol::encode(snapshot(2, 1))).payload);
  EXPECT_EQ(policy_of(losd, "gangp"), "easy");
  EXPECT_FALSE(losd.wait_for_log("time-sharing policy refused", std::chrono::milliseconds(200), 2));

  // The partition now allows two jobs per node: gang is back, with its slice timer.
  d = protocol::decode_decisions(plugin.request(protocol::encode(snapshot(3, 2))).payload);
  ASSERT_TRUE(losd.wait_for_log("its policy is back"));
  EXPECT_EQ(policy_of(losd, "gangp").rfind("gang", 0), 0u) << policy_of(losd, "gangp");
  EXPECT_NE(d.wakeup, kTimeInfinity);
  EXPECT_TRUE(losd.alive());
}

// Two slots are not enough for mpl=3: refused with what it has (2) and what
// it needs (3); back at three slots, not before.
TEST(LosdTimeSharing, RefusedWhenTheSlotsAreFewerThanTheMpl) {
  test::LosdProcess losd(kLosd, "default_policy: bgs:mpl=3:slice=5\n");
  Client plugin(losd.plugin_socket(), seconds(10));
  plugin.hello("plugin");

  protocol::DecisionsMessage d = protocol::decode_decisions(plugin.request(protocol::encode(snapshot(1, 2))).payload);
  ASSERT_TRUE(losd.wait_for_log("time-sharing policy refused"));
  const std::string log = losd.log();
  EXPECT_NE(log.find("partition=gangp"), std::string::npos) << log;
  EXPECT_NE(log.find("time_slots=2"), std::string::npos) << log;
  EXPECT_NE(log.find("jobs_per_node=3"), std::string::npos) << log;
  EXPECT_NE(log.find("OverSubscribe=FORCE:3 (or more) on PartitionName=gangp"), std::string::npos) << log;
  EXPECT_EQ(policy_of(losd, "gangp"), "easy");
  EXPECT_EQ(d.wakeup, kTimeInfinity);

  // Still 2 of 3: still held back.
  d = protocol::decode_decisions(plugin.request(protocol::encode(snapshot(2, 2))).payload);
  EXPECT_EQ(policy_of(losd, "gangp"), "easy");
  EXPECT_FALSE(losd.wait_for_log("its policy is back", std::chrono::milliseconds(200)));

  d = protocol::decode_decisions(plugin.request(protocol::encode(snapshot(3, 3))).payload);
  ASSERT_TRUE(losd.wait_for_log("its policy is back"));
  EXPECT_EQ(policy_of(losd, "gangp").rfind("bgs", 0), 0u) << policy_of(losd, "gangp");
  EXPECT_TRUE(losd.alive());
}

// mpl=1 places one job per node: it runs on a partition with one slot.
TEST(LosdTimeSharing, MplOneNeedsOneSlot) {
  test::LosdProcess losd(kLosd, "default_policy: gang:mpl=1:slice=5\n");
  Client plugin(losd.plugin_socket(), seconds(10));
  plugin.hello("plugin");
  const protocol::DecisionsMessage d =
      protocol::decode_decisions(plugin.request(protocol::encode(snapshot(1, 1))).payload);
  ASSERT_EQ(d.decisions.size(), 1u);
  EXPECT_EQ(policy_of(losd, "gangp").rfind("gang", 0), 0u) << policy_of(losd, "gangp");
  EXPECT_EQ(losd.log().find("time-sharing policy refused"), std::string::npos);
}

// pect holds up to one job of each of its three classes on a node.
TEST(LosdTimeSharing, PectNeedsThreeSlots) {
  test::LosdProcess losd(kLosd, "default_policy: pect\n");
  Client plugin(losd.plugin_socket(), seconds(10));
  plugin.hello("plugin");
  plugin.request(protocol::encode(snapshot(1, 2)));
  ASSERT_TRUE(losd.wait_for_log("time-sharing policy refused"));
  const std::string log = losd.log();
  EXPECT_NE(log.find("jobs_per_node=3"), std::string::npos) << log;
  EXPECT_EQ(policy_of(losd, "gangp"), "easy");
}

TEST(LosdTimeSharing, SpaceSharingPoliciesIgnoreTheSlots) {
  test::LosdProcess losd(kLosd, "default_policy: easy\n");
  Client plugin(losd.plugin_socket(), seconds(10));
  plugin.hello("plugin");
  const protocol::DecisionsMessage d =
      protocol::decode_decisions(plugin.request(protocol::encode(snapshot(1, 1))).payload);
  ASSERT_EQ(d.decisions.size(), 1u);
  EXPECT_EQ(policy_of(losd, "gangp"), "easy");
  EXPECT_EQ(losd.log().find("time-sharing policy refused"), std::string::npos);
}

}  // namespace
}  // namespace los
