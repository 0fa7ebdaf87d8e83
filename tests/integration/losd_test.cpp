// losd over its real Unix sockets, as a child process: decisions equal to
// the simulator's policy on recorded snapshots, bad frames, many clients,
// read-only queries, reloads, the command line.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <thread>
#include <unordered_map>

#include "losd_process.hpp"
#include "policy/live_decisions.hpp"
#include "policy/registry.hpp"
#include "protocol/client.hpp"
#include "sim/forecast.hpp"
#include "test_support.hpp"
#include "workload/transform.hpp"

namespace los {
namespace {

using protocol::Bytes;
using protocol::Client;

const std::string kLosd = std::string(LOS_BIN_DIR) + "/losd";

// Every step of a simulation: the snapshot the policy saw and what it decided.
class Recorder : public SimObserver {
 public:
  void after_step(const Snapshot& s, const StepResult& r, const Policy&) override {
    Snapshot copy = s;
    copy.events.clear();
    wakeups.push_back(r.wakeup > s.now ? r.wakeup : kTimeInfinity);
    snapshots.push_back(std::move(copy));
    decisions.push_back(r.decisions);
  }
  std::vector<Snapshot> snapshots;
  std::vector<std::vector<Decision>> decisions;
  std::vector<Time> wakeups;
};

// Acts as the Slurm plugin: turns a simulator snapshot into a live one with
// named nodes, placing each running job where losd said (or, for a job it
// never saw start, on the first free nodes).
class FakeCluster {
 public:
  explicit FakeCluster(int units) : used_(units, 0) {
    // Built by append: GCC 12 warns (-Wrestrict, a false positive) on "n" + to_string(i).
    for (int i = 0; i < units; ++i) names_.push_back(std::string("n").append(std::to_string(i)));
  }

  protocol::SnapshotMessage snapshot(const Snapshot& s, std::uint64_t seq) {
    std::unordered_map<JobId, bool> alive;
    for (const RunningJob& r : s.running) alive[r.job.id] = true;
    for (auto it = placed_.begin(); it != placed_.end();) {
      if (!alive.count(it->first)) {
        for (int n : it->second) used_[n] = 0;
        it = placed_.erase(it);
      } else {
        ++it;
      }
    }
    protocol::SnapshotMessage m;
    m.seq = seq;
    m.now = s.now;
    Snapshot p;
    p.partition = "sim";
    // Configured for time sharing (OverSubscribe=FORCE:64 >= every mpl):
    // losd refuses a gang policy on a partition with one slot.
    p.time_slots = 64;
    for (const RunningJob& r : s.running) {
      RunningJob w = r;
      auto& nodes = placed_[r.job.id];
      // A time-sharing policy places jobs itself (rows of a gang matrix
      // share nodes): the simulator's placement is the cluster's.
      if (!r.nodes.empty()) nodes = r.nodes;
      if (nodes.empty()) {
        for (int i = 0; i < static_cast<int>(used_.size()) && static_cast<int>(nodes.size()) < r.job.size; ++i) {
          if (!used_[i]) {
            used_[i] = 1;
            nodes.push_back(i);
          }
        }
      }
      w.nodes = nodes;
      p.running.push_back(w);
    }
    std::vector<char> executing(used_.size(), 0);
    for (const RunningJob& r : p.running) {
      for (int n : r.nodes) executing[n] = executing[n] || !r.suspended;
    }
    for (int i = 0; i < static_cast<int>(used_.size()); ++i) {
      p.nodes.push_back({names_[i], used_[i] || executing[i] ? Node::State::Allocated : Node::State::Idle});
    }
    p.queue = s.queue;
    m.partitions.push_back(std::move(p));
    return m;
  }

  // Where losd put a started job; false if a node is unknown or taken.
  bool place(JobId job, const std::vector<std::string>& nodes) {
    std::vector<int> idx;
    for (const std::string& n : nodes) {
      const auto it = std::find(names_.begin(), names_.end(), n);
      if (it == names_.end()) return false;
      const int i = static_cast<int>(it - names_.begin());
      if (used_[i]) return false;
      idx.push_back(i);
    }
    for (int i : idx) used_[i] = 1;
    placed_[job] = idx;
    return true;
  }

 private:
  std::vector<std::string> names_;
  std::vector<char> used_;
  std::unordered_map<JobId, std::vector<int>> placed_;
};

std::string describe(const std::vector<std::pair<int, JobId>>& ds) {
  std::string s;
  for (const auto& [k, id] : ds) s += std::to_string(k) + ":" + std::to_string(id) + " ";
  return s;
}

// Replays every recorded step through losd; returns the number of steps.
std::size_t expect_same_decisions(const Workload& w, const std::string& policy) {
  PolicyPtr p = make_policy(policy);
  Recorder rec;
  simulate(w, *p, {}, &rec);

  test::LosdProcess losd(kLosd, "default_policy: \"" + policy + "\"\n");
  Client plugin(losd.plugin_socket());
  plugin.hello("test-plugin", "", "23.11");
  bool time_sharing = false;
  for (const auto& ds : rec.decisions) {
    for (const Decision& x : ds) time_sharing = time_sharing || x.kind != Decision::Kind::Start || !x.nodes.empty();
  }
  FakeCluster cluster(w.units);
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < rec.snapshots.size(); ++i) {
    const protocol::SnapshotMessage m = cluster.snapshot(rec.snapshots[i], i + 1);
    const protocol::Frame reply = plugin.request(protocol::encode(m, static_cast<std::uint32_t>(i)));
    EXPECT_EQ(reply.header.type, LOS_MSG_DECISIONS);
    EXPECT_EQ(reply.header.request_id, i);
    const protocol::DecisionsMessage d = protocol::decode_decisions(reply.payload);
    EXPECT_EQ(d.seq, i + 1);
    EXPECT_EQ(d.wakeup, rec.wakeups[i]) << "step " << i;
    std::vector<std::pair<int, JobId>> got, want;
    for (const auto& x : d.decisions) {
      got.push_back({static_cast<int>(x.kind), x.job});
      EXPECT_EQ(x.partition, "sim");
      if (x.kind == Decision::Kind::Start) {
        EXPECT_EQ(x.expected_state, LOS_JOB_PENDING);
        const auto job = std::find_if(rec.snapshots[i].queue.begin(), rec.snapshots[i].queue.end(),
                                      [&](const Job& j) { return j.id == x.job; });
        if (job != rec.snapshots[i].queue.end()) {
          EXPECT_EQ(static_cast<int>(x.nodes.size()), job->size);
        }
        if (!time_sharing) {
          EXPECT_TRUE(cluster.place(x.job, x.nodes)) << "job " << x.job << " placed on busy or unknown nodes";
        }
      }
    }
    // as losd sends them live: a migration is a requeue (docs/gang-live.md)
    for (const auto& x : live_decisions(rec.snapshots[i], rec.decisions[i], policy))
      want.push_back({static_cast<int>(x.kind), x.job});
    if (got != want && ++mismatches < 5) {
      ADD_FAILURE() << policy << " step " << i << " t=" << rec.snapshots[i].now << ": losd " << describe(got)
                    << " vs los-sim " << describe(want);
    }
  }
  EXPECT_EQ(mismatches, 0u) << policy;
  EXPECT_TRUE(losd.alive());
  return rec.snapshots.size();
}

Workload random_workload(unsigned seed, int units, int jobs) {
  std::mt19937 rng(seed);
  std::vector<Job> js;
  Time t = 0;
  for (JobId id = 1; id <= jobs; ++id) {
    t += rng() % 120;
    const Time est = 10 + rng() % 2000;
    // Most jobs end before their estimate: compression and early ends matter.
    const Time run = (rng() % 4 == 0) ? est : static_cast<Time>(rng() % (est + 1));
    js.push_back(
        test::job(id, t, 1 + static_cast<int>(rng() % (units / 2)), est, run, 1 + static_cast<int>(rng() % 7)));
  }
  return test::workload(units, js);
}

class LosdDecisions : public ::testing::TestWithParam<std::string> {};

TEST_P(LosdDecisions, EqualTheSimulatorsPolicyOnRecordedSnapshots) {
  const std::size_t steps = expect_same_decisions(random_workload(17, 48, 500), GetParam());
  EXPECT_GT(steps, 300u);
}

// Wall-clock caps are off (tabu's live-limit, time-limit and plan-limit,
// conservative's, bgs's and mbgs's live-limit, pect-search's wall_ms): live they stop a search
// or a step wherever the clock says, which no simulation reproduces (under
// the sanitizers, tabu's 10 ms default cut searches short).
INSTANTIATE_TEST_SUITE_P(Policies, LosdDecisions,
                         ::testing::Values("fcfs", "easy", "conservative:live-limit=0", "aggressive", "depth:k=3",
                                           "los", "los-basic", "los:lookahead=10:traceback=selected-first", "gang",
                                           "bgs:live-limit=0", "mgs", "mbgs:live-limit=0",
                                           "tabu:live-limit=0:plan-limit=0:time-limit=0",
                                           "tabu:live-limit=0:plan-limit=0:safe:time-limit=0", "bf-fair", "pect",
                                           "pect-search:wall_ms=0"),
                         [](const auto& info) {
                           std::string n = info.param;
                           std::replace_if(
                               n.begin(), n.end(), [](char c) { return !std::isalnum(c); }, '_');
                           return n;
                         });

TEST(LosdDecisionsTrace, EqualTheSimulatorsPolicyOnATrace) {
  const std::string trace = test::shared_trace("KTH-SP2-1996-2.1-cln.swf.gz");
  if (trace.empty()) GTEST_SKIP() << "shared trace KTH-SP2 absent";
  Workload w = read_swf(trace);
  w.jobs.resize(std::min<std::size_t>(w.jobs.size(), 1500));
  EXPECT_GT(expect_same_decisions(w, "easy"), 1000u);
}

// ---- bad frames ------------------------------------------------------------

Bytes frame_with(std::uint32_t magic, std::uint16_t version, std::uint16_t type, std::uint32_t length,
                 std::size_t actual_payload) {
  Bytes f(LOS_FRAME_HEADER_SIZE + actual_payload, 0xAB);
  std::uint8_t* p = f.data();
  p = los_put_u32(p, magic);
  p = los_put_u16(p, version);
  p = los_put_u16(p, type);
  p = los_put_u32(p, 1);
  los_put_u32(p, length);
  return f;
}

std::uint16_t error_code_of(const protocol::Frame& f) {
  EXPECT_EQ(f.header.type, LOS_MSG_ERROR);
  return protocol::decode_error(f.payload).code;
}

void expect_still_serving(const test::LosdProcess& losd) {
  ASSERT_TRUE(losd.alive());
  Client c(losd.query_socket());
  c.hello("probe");
  const protocol::Frame f = c.request(protocol::encode_query_status());
  EXPECT_EQ(f.header.type, LOS_MSG_STATUS);
}

class LosdBadFrames : public ::testing::Test {
 protected:
  test::LosdProcess losd{kLosd, "limits:\n  max_payload_bytes: 65536\n  frame_timeout_seconds: 0.3\n"};
};

TEST_F(LosdBadFrames, MalformedPayloadGetsAnErrorAndTheConnectionStaysUsable) {
  Client c(losd.plugin_socket());
  c.hello("plugin");
  c.send(frame_with(LOS_PROTOCOL_MAGIC, LOS_PROTOCOL_VERSION, LOS_MSG_SNAPSHOT, 40, 40));
  const protocol::Frame reply = c.receive();
  EXPECT_EQ(error_code_of(reply), LOS_ERR_MALFORMED);
  EXPECT_NE(protocol::decode_error(reply.payload).message.find("SNAPSHOT"), std::string::npos);
  // Same connection, a good snapshot now.
  protocol::SnapshotMessage m;
  m.seq = 1;
  m.now = 100;
  Snapshot p;
  p.partition = "p";
  p.nodes = {{"a", Node::State::Idle}};
  p.queue = {test::job(1, 50, 1, 10)};
  m.partitions.push_back(p);
  const protocol::DecisionsMessage d = protocol::decode_decisions(c.request(protocol::encode(m)).payload);
  ASSERT_EQ(d.decisions.size(), 1u);
  EXPECT_EQ(d.decisions[0].nodes, (std::vector<std::string>{"a"}));
  expect_still_serving(losd);
}

TEST_F(LosdBadFrames, WrongVersionGetsAnErrorAndIsClosed) {
  Client c(losd.plugin_socket());
  c.send(frame_with(LOS_PROTOCOL_MAGIC, 99, LOS_MSG_HELLO, 0, 0));
  EXPECT_EQ(error_code_of(c.receive()), LOS_ERR_VERSION);
  EXPECT_TRUE(c.closed_by_peer(std::chrono::seconds(2)));
  expect_still_serving(losd);
}

TEST_F(LosdBadFrames, OversizeFrameGetsAnErrorAndIsClosed) {
  Client c(losd.plugin_socket());
  c.hello("plugin");
  c.send(frame_with(LOS_PROTOCOL_MAGIC, LOS_PROTOCOL_VERSION, LOS_MSG_SNAPSHOT, 65537, 0));
  const protocol::Frame reply = c.receive();
  EXPECT_EQ(error_code_of(reply), LOS_ERR_TOO_LARGE);
  EXPECT_TRUE(c.closed_by_peer(std::chrono::seconds(2)));
  expect_still_serving(losd);
}

TEST_F(LosdBadFrames, BadMagicIsClosed) {
  Client c(losd.query_socket());
  c.send(Bytes{'G', 'E', 'T', ' ', '/', ' ', 'H', 'T', 'T', 'P', '/', '1', '.', '1', '\r', '\n'});
  EXPECT_EQ(error_code_of(c.receive()), LOS_ERR_BAD_MAGIC);
  EXPECT_TRUE(c.closed_by_peer(std::chrono::seconds(2)));
  expect_still_serving(losd);
}

TEST_F(LosdBadFrames, TruncatedFramesAreDroppedAndTheDaemonKeepsServing) {
  {
    // Header promises 100 bytes, 10 come, then the client hangs up.
    Client c(losd.plugin_socket());
    c.hello("plugin");
    c.send(frame_with(LOS_PROTOCOL_MAGIC, LOS_PROTOCOL_VERSION, LOS_MSG_SNAPSHOT, 100, 10));
  }
  {
    // Half a header, then silence: closed after the frame timeout (0.3 s).
    Client c(losd.query_socket());
    c.send(Bytes{'L', 'O', 'S'});
    EXPECT_TRUE(c.closed_by_peer(std::chrono::seconds(3)));
  }
  {
    // A payload that stops short, connection kept open: closed too.
    Client c(losd.plugin_socket());
    c.hello("plugin");
    c.send(frame_with(LOS_PROTOCOL_MAGIC, LOS_PROTOCOL_VERSION, LOS_MSG_SNAPSHOT, 100, 10));
    EXPECT_TRUE(c.closed_by_peer(std::chrono::seconds(3)));
  }
  expect_still_serving(losd);
}

TEST_F(LosdBadFrames, NoHandshakeUnknownTypesAndRepliesAreRefused) {
  {
    Client c(losd.plugin_socket());
    c.send(protocol::encode_query_status());
    EXPECT_EQ(error_code_of(c.receive()), LOS_ERR_HANDSHAKE);
    EXPECT_TRUE(c.closed_by_peer(std::chrono::seconds(2)));
  }
  Client c(losd.query_socket());
  c.hello("tool");
  c.send(frame_with(LOS_PROTOCOL_MAGIC, LOS_PROTOCOL_VERSION, 777, 0, 0));
  EXPECT_EQ(error_code_of(c.receive()), LOS_ERR_UNKNOWN_TYPE);
  c.send(protocol::encode(protocol::DecisionsMessage{}));
  EXPECT_EQ(error_code_of(c.receive()), LOS_ERR_BAD_REQUEST);
  EXPECT_EQ(c.request(protocol::encode_query_status()).header.type, LOS_MSG_STATUS);
}

TEST_F(LosdBadFrames, ASlowClientDoesNotStallThePlugin) {
  // Ten clients each stuck in the middle of a frame.
  std::vector<Client> stuck;
  for (int i = 0; i < 10; ++i) {
    stuck.emplace_back(losd.query_socket());
    stuck.back().send(Bytes{'L', 'O'});
  }
  Client plugin(losd.plugin_socket());
  plugin.hello("plugin");
  protocol::SnapshotMessage m;
  m.seq = 1;
  m.now = 100;
  Snapshot p;
  p.partition = "p";
  p.nodes = {{"a", Node::State::Idle}};
  m.partitions.push_back(p);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(plugin.request(protocol::encode(m)).header.type, LOS_MSG_DECISIONS);
  // Served one by one the stuck clients would cost 10 x 0.3 s; losd serves them side by side.
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1));
}

// ---- queries ---------------------------------------------------------------

protocol::SnapshotMessage busy_snapshot(std::uint64_t seq, Time now) {
  protocol::SnapshotMessage m;
  m.seq = seq;
  m.now = now;
  for (const char* name : {"batch", "debug"}) {
    Snapshot p;
    p.partition = name;
    for (int i = 0; i < 16; ++i) p.nodes.push_back({std::string(name) + std::to_string(i), Node::State::Idle});
    RunningJob r;
    r.job = test::job(seq * 1000 + (name[0] == 'b' ? 1 : 2), now - 100, 12, 3600);
    r.start = now - 50;
    for (int i = 0; i < 12; ++i) {
      r.nodes.push_back(i);
      p.nodes[i].state = Node::State::Allocated;
    }
    p.running.push_back(r);
    for (int j = 0; j < 30; ++j)
      p.queue.push_back(test::job(10 + j, now - 60 + j, 1 + (j * 7) % 16, 60 + j * 37, -1, 1000 + j % 3));
    m.partitions.push_back(std::move(p));
  }
  return m;
}

// A step's budget, live: losd answers a long queue's first snapshot with
// part of the plan and a wakeup a second later; snapshots at the same
// instant (the plugin's next cycles, nothing else happening) carry the plan
// on, and with stopped=wait it ends in the very starts and reservations of a
// losd without the budget (stopped=fill, the default, starts what fits at
// once: tests/unit/step_budget_test.cpp). The tiny live-limit makes every
// step cut, whatever the build.
// Moves waiting job `id` to the running set at s.now, as the plugin's start
// would; false if it is not waiting.
bool start_waiting(Snapshot& s, JobId id) {
  const auto it = std::find_if(s.queue.begin(), s.queue.end(), [&](const Job& j) { return j.id == id; });
  if (it == s.queue.end()) return false;
  RunningJob r;
  r.job = *it;
  r.start = s.now;
  s.running.push_back(r);
  s.queue.erase(it);
  return true;
}

struct BudgetRun {
  std::set<JobId> started;
  std::vector<std::pair<JobId, Time>> reservations;
  int steps = 0;
};

BudgetRun run_until_planned(const std::string& policy, const Workload& w, Time now) {
  test::LosdProcess losd(kLosd, "default_policy: \"" + policy + "\"\n");
  Client plugin(losd.plugin_socket());
  plugin.hello("plugin", "", "23.11");
  FakeCluster cluster(w.units);
  Snapshot s;
  s.now = now;
  s.total_units = w.units;
  s.queue = w.jobs;
  BudgetRun out;
  for (std::uint64_t seq = 1;; ++seq) {
    const protocol::DecisionsMessage d =
        protocol::decode_decisions(plugin.request(protocol::encode(cluster.snapshot(s, seq))).payload);
    ++out.steps;
    for (const protocol::WireDecision& x : d.decisions) {
      EXPECT_TRUE(cluster.place(x.job, x.nodes)) << "job " << x.job;
      EXPECT_TRUE(start_waiting(s, x.job)) << "job " << x.job << " is not waiting";
      out.started.insert(x.job);
    }
    if (d.wakeup == kTimeInfinity) break;
    EXPECT_EQ(d.wakeup, now + 1) << "step " << out.steps;
    if (out.steps > 10000) {
      ADD_FAILURE() << policy << ": no end to the steps";
      break;
    }
  }
  Client q(losd.query_socket());
  q.hello("losctl");
  const protocol::Plan plan = protocol::decode_plan(q.request(protocol::encode_query_plan("sim")).payload);
  for (const auto& r : plan.reservations) out.reservations.push_back({r.job, r.start});
  EXPECT_TRUE(losd.alive());
  return out;
}

TEST(LosdBudget, AStepCutByTheLiveLimitGoesOnInTheNextSnapshotsAndEndsInTheWholePlan) {
  std::mt19937 rng(7);
  std::vector<Job> jobs;
  for (JobId id = 1; id <= 6000; ++id) {
    const Time est = 60 + static_cast<Time>(rng() % 20000);
    jobs.push_back(test::job(id, 0, 1 + static_cast<int>(rng() % 24), est, est));
  }
  const Workload w = test::workload(64, std::move(jobs));
  const BudgetRun whole = run_until_planned("conservative:live-limit=0", w, 1000);
  const BudgetRun cut = run_until_planned("conservative:live-limit=0.0005:stopped=wait", w, 1000);
  EXPECT_EQ(whole.steps, 1);
  EXPECT_GT(cut.steps, 2);
  EXPECT_FALSE(whole.started.empty());
  EXPECT_EQ(cut.started, whole.started);
  EXPECT_GT(whole.reservations.size(), 5000u);
  EXPECT_EQ(cut.reservations, whole.reservations);
}

// While a step's budget leaves jobs without a promise (a long queue's first
// steps), STARTS answers from the promises alone: the jobs the plan has not
// reached, and a job wider than the partition, have no prediction, and no
// forecast replays the queue (a replay would predict the unplanned ones, at
// the cost of a whole-queue replay each cycle). Once the plan is whole
// every job but the wide one holds a promise or is starting.
TEST(LosdBudget, StartsAnswersFromThePromisesWhileThePlanCatchesUp) {
  std::mt19937 rng(11);
  std::vector<Job> jobs;
  for (JobId id = 1; id <= 6000; ++id) {
    const Time est = 60 + static_cast<Time>(rng() % 20000);
    jobs.push_back(test::job(id, 0, 1 + static_cast<int>(rng() % 24), est, est));
  }
  const JobId wide = 6001;
  jobs.push_back(test::job(wide, 0, 65, 100, 100));  // wider than the 64 units
  const Workload w = test::workload(64, std::move(jobs));
  test::LosdProcess losd(kLosd, "default_policy: \"conservative:live-limit=0.0005\"\n");
  Client plugin(losd.plugin_socket());
  plugin.hello("plugin", "", "23.11");
  Client q(losd.query_socket());
  q.hello("losctl");
  FakeCluster cluster(w.units);
  Snapshot s;
  s.now = 1000;
  s.total_units = w.units;
  s.queue = w.jobs;
  std::size_t unknown_while_catching_up = 0;
  for (std::uint64_t seq = 1;; ++seq) {
    const protocol::DecisionsMessage d =
        protocol::decode_decisions(plugin.request(protocol::encode(cluster.snapshot(s, seq))).payload);
    std::set<JobId> starting;
    for (const protocol::WireDecision& x : d.decisions) {
      EXPECT_TRUE(cluster.place(x.job, x.nodes)) << "job " << x.job;
      starting.insert(x.job);
    }
    const protocol::Plan plan = protocol::decode_plan(q.request(protocol::encode_query_plan("sim")).payload);
    std::unordered_map<JobId, Time> reserved;
    for (const auto& r : plan.reservations) reserved[r.job] = r.start;
    const auto predicted = protocol::decode_starts(q.request(protocol::encode_query_starts("sim")).payload);
    EXPECT_EQ(predicted.size(), s.queue.size());
    std::size_t unknown = 0;
    for (const auto& p : predicted) {
      if (p.reserved) {
        ASSERT_TRUE(reserved.count(p.job)) << "job " << p.job;
        EXPECT_EQ(p.start, reserved[p.job]) << "job " << p.job;
      } else if (starting.count(p.job)) {
        EXPECT_EQ(p.start, s.now) << "job " << p.job;
      } else {
        EXPECT_EQ(p.start, kTimeInfinity) << "job " << p.job << " (seq " << seq << ") is predicted by a forecast";
        ++unknown;
      }
    }
    // Apply the starts, as the plugin would.
    for (JobId id : starting) ASSERT_TRUE(start_waiting(s, id)) << "job " << id;
    if (d.wakeup == kTimeInfinity) {
      EXPECT_EQ(unknown, 1u) << "once the plan is whole only the wide job has no prediction";
      break;
    }
    if (seq == 1) unknown_while_catching_up = unknown;
    ASSERT_LT(seq, 10000u) << "no end to the steps";
  }
  EXPECT_GT(unknown_while_catching_up, 1000u);
  EXPECT_TRUE(losd.alive());
}

TEST(LosdQueries, StatusPlanAndPredictedStartsFromTheRunningPolicy) {
  test::LosdProcess losd(kLosd, "default_policy: easy\npartitions:\n  debug:\n    policy: conservative\n");
  Client plugin(losd.plugin_socket());
  plugin.hello("plugin", "", "23.11.1");
  const protocol::SnapshotMessage m = busy_snapshot(1, 10000);
  plugin.request(protocol::encode(m));

  Client q(losd.query_socket());
  q.hello("losctl");
  const protocol::Status st = protocol::decode_status(q.request(protocol::encode_query_status()).payload);
  EXPECT_TRUE(st.plugin_connected);
  EXPECT_EQ(st.slurm_version, "23.11.1");
  EXPECT_EQ(st.last_seq, 1u);
  ASSERT_EQ(st.partitions.size(), 2u);
  EXPECT_EQ(st.partitions[0].name, "batch");
  EXPECT_EQ(st.partitions[0].policy, "easy");
  EXPECT_EQ(st.partitions[1].policy, "conservative");
  EXPECT_EQ(st.partitions[1].nodes, 16u);

  const protocol::Plan plan = protocol::decode_plan(q.request(protocol::encode_query_plan("debug")).payload);
  EXPECT_TRUE(plan.has_plan);
  EXPECT_EQ(plan.now, 10000);
  EXPECT_FALSE(plan.slots.empty());
  EXPECT_FALSE(plan.reservations.empty());

  // Predictions equal a forecast of the same snapshot under the same policy,
  // minus the jobs the step just started.
  const auto starts = protocol::decode_starts(q.request(protocol::encode_query_starts("batch")).payload);
  Snapshot batch = m.partitions[0];
  batch.now = 10000;
  batch.total_units = 16;
  batch.free_units = 4;
  const std::vector<Time> expected = forecast_starts(batch, "easy");
  std::size_t checked = 0;
  for (const auto& s : starts) {
    const auto it = std::find_if(batch.queue.begin(), batch.queue.end(), [&](const Job& j) { return j.id == s.job; });
    ASSERT_NE(it, batch.queue.end());
    EXPECT_EQ(s.start, expected[it - batch.queue.begin()]) << "job " << s.job;
    EXPECT_EQ(s.partition, "batch");
    ++checked;
  }
  EXPECT_GT(checked, 20u);
  // All partitions at once.
  EXPECT_GT(protocol::decode_starts(q.request(protocol::encode_query_starts("")).payload).size(), checked);

  // Under conservative every waiting job holds a promise: the predictions are
  // the plan's reservations (no forecast is computed), and a job the step
  // just started is predicted to start now.
  std::unordered_map<JobId, Time> reserved;
  for (const auto& r : plan.reservations) reserved[r.job] = r.start;
  std::size_t promised = 0, starting = 0;
  for (const auto& s : protocol::decode_starts(q.request(protocol::encode_query_starts("debug")).payload)) {
    EXPECT_EQ(s.partition, "debug");
    if (s.reserved) {
      ASSERT_TRUE(reserved.count(s.job)) << "job " << s.job;
      EXPECT_EQ(s.start, reserved[s.job]) << "job " << s.job;
      ++promised;
    } else {
      EXPECT_EQ(s.start, 10000) << "job " << s.job << " is neither promised nor starting";
      ++starting;
    }
  }
  EXPECT_EQ(promised, reserved.size());
  EXPECT_GT(promised, 10u);
  EXPECT_GT(starting, 0u);

  try {
    q.request(protocol::encode_query_plan("nope"));
    FAIL();
  } catch (const protocol::RemoteError& e) {
    EXPECT_EQ(e.code(), LOS_ERR_NOT_FOUND);
  }
}

// STARTS replays the queue with what the live policy learned: under bf-fair,
// user 7's finished job waited 1,000 s, user 5 has none, so user 7's next
// job goes first though user 5 submitted earlier, and user 5's job is
// predicted after it. A replay from a blank policy (no finished jobs) would
// predict queue order: user 5's job at once.
TEST(LosdQueries, PredictedStartsKeepWhatTheLivePolicyLearned) {
  test::LosdProcess losd(kLosd, "default_policy: bf-fair\n");
  Client plugin(losd.plugin_socket());
  plugin.hello("plugin");
  Client q(losd.query_socket());
  q.hello("losctl");
  FakeCluster cluster(16);
  Snapshot s = test::idle_partition(16, 1000, {test::job(1, 0, 16, 100, -1, 7)});
  auto step = [&](std::uint64_t seq) {
    std::vector<JobId> started;
    const auto d = protocol::decode_decisions(plugin.request(protocol::encode(cluster.snapshot(s, seq))).payload);
    for (const protocol::WireDecision& x : d.decisions) {
      EXPECT_TRUE(cluster.place(x.job, x.nodes)) << "job " << x.job;
      started.push_back(x.job);
    }
    return started;
  };
  ASSERT_EQ(step(1), (std::vector<JobId>{1}));
  ASSERT_TRUE(start_waiting(s, 1));
  s.free_units = 0;
  ASSERT_TRUE(step(2).empty());
  s.now = 1100;  // job 1 ended after its 100 s
  s.running.clear();
  s.free_units = 16;
  s.queue = {test::job(2, 1050, 16, 100, -1, 5), test::job(3, 1060, 16, 100, -1, 7)};
  ASSERT_EQ(step(3), (std::vector<JobId>{3}));
  std::unordered_map<JobId, Time> predicted;
  for (const auto& p : protocol::decode_starts(q.request(protocol::encode_query_starts("sim")).payload)) {
    predicted[p.job] = p.start;
  }
  EXPECT_EQ(predicted[3], 1100);
  EXPECT_EQ(predicted[2], 1200) << "a blank policy's replay predicts 1100";
  EXPECT_TRUE(losd.alive());
}

// A partition (or reservation view "batch@R1") the plugin no longer sends is
// dropped: STATUS, PLAN and STARTS forget it, and one log line says so.
TEST(LosdQueries, PartitionsThatLeaveTheSnapshotAreDropped) {
  test::LosdProcess losd(kLosd, "default_policy: easy\n");
  Client plugin(losd.plugin_socket());
  plugin.hello("plugin");
  protocol::SnapshotMessage m = busy_snapshot(1, 10000);
  m.partitions[1].partition = "batch@R1";
  plugin.request(protocol::encode(m));
  Client q(losd.query_socket());
  q.hello("losctl");
  auto names = [&] {
    std::vector<std::string> out;
    for (const auto& p : protocol::decode_status(q.request(protocol::encode_query_status()).payload).partitions)
      out.push_back(p.name);
    return out;
  };
  EXPECT_EQ(names(), (std::vector<std::string>{"batch", "batch@R1"}));
  m.seq = 2;
  m.now = 10010;
  m.partitions.pop_back();  // R1 ended
  plugin.request(protocol::encode(m));
  EXPECT_EQ(names(), (std::vector<std::string>{"batch"}));
  EXPECT_TRUE(losd.wait_for_log("partition dropped")) << losd.log();
  EXPECT_NE(losd.log().find("batch@R1"), std::string::npos);
  for (const auto& s : protocol::decode_starts(q.request(protocol::encode_query_starts("")).payload))
    EXPECT_EQ(s.partition, "batch");
  try {
    q.request(protocol::encode_query_plan("batch@R1"));
    FAIL() << "the dropped view still has a plan";
  } catch (const protocol::RemoteError& e) {
    EXPECT_EQ(e.code(), LOS_ERR_NOT_FOUND);
  }
  // back in a later snapshot: a fresh scheduler
  m.seq = 3;
  m.now = 10020;
  m.partitions.push_back(busy_snapshot(3, 10020).partitions[1]);
  m.partitions[1].partition = "batch@R1";
  plugin.request(protocol::encode(m));
  EXPECT_EQ(names(), (std::vector<std::string>{"batch", "batch@R1"}));
}

TEST(LosdQueries, TheQuerySocketCannotChangeAnything) {
  test::LosdProcess losd(kLosd, "default_policy: easy\n");
  Client plugin(losd.plugin_socket());
  plugin.hello("plugin");
  plugin.request(protocol::encode(busy_snapshot(1, 10000)));

  Client q(losd.query_socket());
  q.hello("tool");
  for (const Bytes& change :
       {protocol::encode(protocol::SetPolicy{"batch", "fcfs"}), protocol::encode(busy_snapshot(2, 10001)),
        protocol::encode(protocol::Report{LOS_REPORT_FALLBACK, "batch", 0, "x"})}) {
    try {
      q.request(change);
      FAIL() << "a change was accepted on the query socket";
    } catch (const protocol::RemoteError& e) {
      EXPECT_EQ(e.code(), LOS_ERR_NOT_ALLOWED);
    }
  }
  const protocol::Status st = protocol::decode_status(q.request(protocol::encode_query_status()).payload);
  EXPECT_EQ(st.partitions[0].policy, "easy");
  EXPECT_EQ(st.last_seq, 1u);

  // The admin socket can.
  Client admin(losd.admin_socket());
  admin.hello("losctl");
  const auto ok = protocol::decode_set_policy_ok(
      admin.request(protocol::encode(protocol::SetPolicy{"batch", "depth:k=2"})).payload);
  EXPECT_EQ(ok.policy, "depth:k=2");
  try {
    admin.request(protocol::encode(protocol::SetPolicy{"batch", "nonsense"}));
    FAIL();
  } catch (const protocol::RemoteError& e) {
    EXPECT_EQ(e.code(), LOS_ERR_BAD_REQUEST);
    EXPECT_NE(std::string(e.what()).find("unknown policy 'nonsense'"), std::string::npos) << e.what();
  }
  EXPECT_EQ(protocol::decode_status(q.request(protocol::encode_query_status()).payload).partitions[0].policy,
            "depth:k=2");
  // And the plugin keeps getting decisions from the new policy.
  EXPECT_EQ(plugin.request(protocol::encode(busy_snapshot(2, 10010))).header.type, LOS_MSG_DECISIONS);
}

TEST(LosdQueries, HundredConcurrentQueryClients) {
  test::LosdProcess losd(kLosd, "default_policy: conservative\n");
  Client plugin(losd.plugin_socket());
  plugin.hello("plugin");
  plugin.request(protocol::encode(busy_snapshot(1, 10000)));

  std::atomic<int> ok{0};
  std::atomic<int> failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 100; ++t) {
    threads.emplace_back([&, t] {
      try {
        Client c(losd.query_socket(), std::chrono::seconds(30));
        c.hello("client" + std::to_string(t));
        for (int round = 0; round < 3; ++round) {
          if (c.request(protocol::encode_query_status()).header.type != LOS_MSG_STATUS)
            throw std::runtime_error("status");
          if (protocol::decode_starts(c.request(protocol::encode_query_starts("")).payload).size() != 60) {
            throw std::runtime_error("starts");
          }
          if (c.request(protocol::encode_query_plan("batch")).header.type != LOS_MSG_PLAN)
            throw std::runtime_error("plan");
        }
        ++ok;
      } catch (const std::exception&) {
        ++failed;
      }
    });
  }
  // Meanwhile the plugin is served.
  for (std::uint64_t seq = 2; seq < 20; ++seq) {
    EXPECT_EQ(plugin.request(protocol::encode(busy_snapshot(seq, 10000 + seq))).header.type, LOS_MSG_DECISIONS);
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 100);
  EXPECT_EQ(failed.load(), 0);
  expect_still_serving(losd);
}

// ---- configuration -----------------------------------------------------------

std::string policy_of(const test::LosdProcess& losd, const std::string& partition) {
  Client q(losd.query_socket());
  q.hello("tool");
  for (const auto& p : protocol::decode_status(q.request(protocol::encode_query_status()).payload).partitions) {
    if (p.name == partition) return p.policy;
  }
  return "";
}

TEST(LosdConfig, SighupReloadsAGoodConfigAndKeepsTheOldOnABadOne) {
  const int port = test::free_tcp_port();
  const std::string metrics = "metrics:\n  listen: \"127.0.0.1:" + std::to_string(port) + "\"\n";
  test::LosdProcess losd(kLosd, metrics + "default_policy: easy\n");
  Client plugin(losd.plugin_socket());
  plugin.hello("plugin");
  plugin.request(protocol::encode(busy_snapshot(1, 10000)));
  EXPECT_EQ(policy_of(losd, "batch"), "easy");

  losd.write_config(metrics +
                    "default_policy: easy\npartitions:\n  batch:\n    policy: depth\n    parameters:\n      k: 3\n");
  losd.signal(SIGHUP);
  ASSERT_TRUE(losd.wait_for_log("configuration reloaded")) << losd.log();
  EXPECT_EQ(policy_of(losd, "batch"), "depth:k=3");
  EXPECT_EQ(policy_of(losd, "debug"), "easy");

  losd.write_config(metrics +
                    "default_policy: easy\npartitions:\n  batch:\n    policy: depth\n    parameters:\n      k: -1\n");
  losd.signal(SIGHUP);
  ASSERT_TRUE(losd.wait_for_log("reload failed")) << losd.log();
  EXPECT_NE(losd.log().find("partitions.batch.policy"), std::string::npos) << losd.log();
  EXPECT_EQ(policy_of(losd, "batch"), "depth:k=3");

  losd.write_raw_config("this: [is not: valid");
  losd.signal(SIGHUP);
  ASSERT_TRUE(losd.wait_for_log("reload failed", std::chrono::seconds(10), 2)) << losd.log();
  EXPECT_EQ(policy_of(losd, "batch"), "depth:k=3");
  EXPECT_EQ(plugin.request(protocol::encode(busy_snapshot(2, 10010))).header.type, LOS_MSG_DECISIONS);

  const std::string text = test::http_get(port, "/metrics");
  EXPECT_NE(text.find("los_config_reloads_total{result=\"ok\"} 1"), std::string::npos) << text;
  EXPECT_NE(text.find("los_config_reloads_total{result=\"failed\"} 2"), std::string::npos) << text;
  EXPECT_NE(text.find("los_decision_latency_seconds_count{partition=\"batch\",policy=\"depth:k=3\"} 1"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("los_pending_jobs{partition=\"debug\"} 30"), std::string::npos) << text;
  EXPECT_NE(text.find("los_jobs_started_total"), std::string::npos) << text;
  EXPECT_EQ(text.find("job=\""), std::string::npos) << "no per-job labels";
}

TEST(LosdMetrics, PredictionErrorsReportsAndProtocolErrorsAreCounted) {
  const int port = test::free_tcp_port();
  test::LosdProcess losd(kLosd,
                         "metrics:\n  listen: \"127.0.0.1:" + std::to_string(port) + "\"\ndefault_policy: easy\n");
  Client plugin(losd.plugin_socket());
  plugin.hello("plugin");
  auto snapshot = [](std::uint64_t seq, Time now, bool a_running, bool b_running) {
    protocol::SnapshotMessage m;
    m.seq = seq;
    m.now = now;
    Snapshot p;
    p.partition = "p";
    for (int i = 0; i < 4; ++i)
      p.nodes.push_back({std::string(1, 'n') + static_cast<char>('0' + i), Node::State::Idle});
    RunningJob r;
    if (a_running) {
      r.job = test::job(1, 0, 4, 100);
      r.start = 990;  // expected to end at 1090
      r.nodes = {0, 1, 2, 3};
      p.running.push_back(r);
    }
    if (b_running) {
      r.job = test::job(2, 900, 4, 50);
      r.start = 1030;
      r.nodes = {0, 1, 2, 3};
      p.running.push_back(r);
    } else {
      p.queue.push_back(test::job(2, 900, 4, 50));
    }
    for (const auto& run : p.running) {
      for (int n : run.nodes) p.nodes[n].state = Node::State::Allocated;
    }
    m.partitions.push_back(std::move(p));
    return m;
  };
  // Job 2 is promised 1090; job 1 ends early at 1030 and 2 starts then: 60 s early.
  EXPECT_TRUE(protocol::decode_decisions(plugin.request(protocol::encode(snapshot(1, 1000, true, false))).payload)
                  .decisions.empty());
  const auto d = protocol::decode_decisions(plugin.request(protocol::encode(snapshot(2, 1030, false, false))).payload);
  ASSERT_EQ(d.decisions.size(), 1u);
  EXPECT_EQ(d.decisions[0].job, 2);
  plugin.request(protocol::encode(snapshot(3, 1031, false, true)));
  plugin.send(protocol::encode(protocol::Report{LOS_REPORT_FALLBACK, "p", 0, "losd timed out"}));
  plugin.send(frame_with(LOS_PROTOCOL_MAGIC, LOS_PROTOCOL_VERSION, LOS_MSG_SNAPSHOT, 3, 3));
  EXPECT_EQ(error_code_of(plugin.receive()), LOS_ERR_MALFORMED);

  const std::string text = test::http_get(port, "/metrics");
  EXPECT_NE(
      text.find("los_start_prediction_error_seconds_count{direction=\"early\",partition=\"p\",policy=\"easy\"} 1"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("los_start_prediction_error_seconds_sum{direction=\"early\",partition=\"p\",policy=\"easy\"} 60"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("los_plugin_reports_total{kind=\"fallback\",partition=\"p\"} 1"), std::string::npos) << text;
  EXPECT_NE(text.find("los_protocol_errors_total{code=\"malformed\",socket=\"plugin\"} 1"), std::string::npos) << text;
  EXPECT_NE(text.find("los_jobs_started_total{partition=\"p\",policy=\"easy\"} 1"), std::string::npos) << text;
  EXPECT_NE(text.find("los_nodes{partition=\"p\",state=\"allocated\"} 4"), std::string::npos) << text;
  EXPECT_NE(text.find("los_utilization_ratio{partition=\"p\"} 1"), std::string::npos) << text;
  EXPECT_NE(text.find("los_plugin_connections 1"), std::string::npos) << text;
  EXPECT_TRUE(losd.wait_for_log("plugin report")) << losd.log();
}

TEST(LosdConfig, CheckConfigNamesTheKeyAndLine) {
  char dir[] = "/tmp/losd-check-XXXXXX";
  ASSERT_TRUE(::mkdtemp(dir));
  const std::string path = std::string(dir) + "/losd.yaml";
  auto check = [&](const std::string& text) {
    std::ofstream(path) << text;
    return test::run_command(kLosd + " --check-config --config " + path);
  };
  test::CommandResult r = check("default_policy: easy\npartitions:\n  batch:\n    policy: conservative\n");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("partition batch: conservative"), std::string::npos) << r.output;

  r = check("default_policy: easy\nlimits:\n  max_query_clientz: 5\n");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find(path + ":3: limits.max_query_clientz: unknown key"), std::string::npos) << r.output;

  r = check("limits:\n  max_query_clients: lots\n");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find(":2: limits.max_query_clients: 'lots' is not an integer"), std::string::npos) << r.output;

  r = check("partitions:\n  batch:\n    parameters:\n      k: 2\n");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find(":3: partitions.batch.policy: missing required key"), std::string::npos) << r.output;

  r = check("default_policy: \"depth:k=0:q=1\"\n");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find(":1: default_policy:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("'q'"), std::string::npos) << r.output;

  r = check("plugin_socket:\n  mode: \"0999\"\n");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find(":2: plugin_socket.mode:"), std::string::npos) << r.output;

  // Complex keys ("? a: b", found by fuzz_config in CI): a clear error, never an abort.
  r = check("limits:\n? maxlien: 0\n");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find(":2: (top level): a key must be a plain name"), std::string::npos) << r.output;
  r = check("partitions:\n  ? [a, b]\n  : {policy: easy}\n");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("partitions: a partition name must be a plain name"), std::string::npos) << r.output;
  r = check("limits:\n  ? {x: 1}\n  : 2\n");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find(":2: limits: a key must be a plain name"), std::string::npos) << r.output;

  r = check("query_socket:\n  path: /run/los/plugin.sock\n");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("must differ"), std::string::npos) << r.output;

  r = check("plugin_socket:\n  allowed_users: [slurm-user-that-does-not-exist]\n");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find(":2: plugin_socket.allowed_users[0]: no such user"), std::string::npos) << r.output;

  r = check("partitions:\n  gpu:\n    policy: \"depth:k=2\"\n    parameters:\n      k: 3\n");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("not both"), std::string::npos) << r.output;

  r = check("");  // empty: every default
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("default policy easy"), std::string::npos) << r.output;

  r = test::run_command(kLosd + " --check-config --config " + std::string(dir) + "/missing.yaml");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("missing.yaml: cannot read"), std::string::npos) << r.output;

  r = test::run_command(kLosd + " --frobnicate");
  EXPECT_EQ(r.status, 2);

  // The shipped example is valid.
  const auto example = std::filesystem::path(__FILE__).parent_path() / ".." / ".." / "conf" / "losd.yaml";
  r = test::run_command(kLosd + " --check-config --config " + example.string());
  EXPECT_EQ(r.status, 0) << r.output;
  std::filesystem::remove_all(dir);
}

TEST(Losctl, StatusPlanStartsAndSetPolicy) {
  test::LosdProcess losd(kLosd, "default_policy: easy\n");
  Client plugin(losd.plugin_socket());
  plugin.hello("plugin", "", "24.05.1");
  plugin.request(protocol::encode(busy_snapshot(1, 10000)));
  const std::string ctl = std::string(LOS_BIN_DIR) + "/losctl --socket " + losd.query_socket() + " --admin-socket " +
                          losd.admin_socket() + " ";

  test::CommandResult r = test::run_command(ctl + "status");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("plugin: connected, Slurm 24.05.1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("batch"), std::string::npos) << r.output;

  r = test::run_command(ctl + "policies");
  EXPECT_EQ(r.output, "batch easy\ndebug easy\n");

  r = test::run_command(ctl + "plan batch");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("RESERVATIONS"), std::string::npos) << r.output;

  r = test::run_command(ctl + "starts batch --user 1001");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("reserved"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find(" 1000 "), std::string::npos) << "filtered by user: " << r.output;

  r = test::run_command(ctl + "set-policy batch conservative");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(test::run_command(ctl + "policies").output, "batch conservative\ndebug easy\n");

  r = test::run_command(ctl + "set-policy batch frobnicate");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("unknown policy 'frobnicate'"), std::string::npos) << r.output;

  r = test::run_command(ctl + "plan nosuch");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("no partition 'nosuch'"), std::string::npos) << r.output;

  // Pointed at the query socket, set-policy is refused.
  r = test::run_command(std::string(LOS_BIN_DIR) + "/losctl --admin-socket " + losd.query_socket() +
                        " set-policy batch fcfs");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("not allowed on the query socket"), std::string::npos) << r.output;

  EXPECT_EQ(test::run_command(std::string(LOS_BIN_DIR) + "/losctl bogus").status, 2);
  EXPECT_EQ(test::run_command(std::string(LOS_BIN_DIR) + "/losctl --socket /nonexistent/q.sock status").status, 3);
}

// ---- resync of the gang family ----------------------------------------------------

// losd loses a gang policy's state in the middle of a run: killed and
// restarted (a new process, a new plugin connection), its policy switched
// with set-policy, or a snapshot lost (a gap in the sequence numbers). Its
// next answer comes from a fresh instance (the same one after a gap) fed the
// snapshot alone (a resync), never an error or the fallback. What holds
// across the cut: losd's decisions equal those of a simulation that does the
// same at the same step (SimOptions::resync_steps: a fresh instance of
// `after`, or after a gap the same instance marked resync); that simulation starts every job once, leaves none suspended and
// loses none (the simulator checks it), so losd does too, and the test
// counts the starts losd sent.
enum class Cut { Restart, SetPolicy, Gap };

void expect_same_decisions_across_a_cut(const Workload& w, const std::string& before, const std::string& after,
                                        Cut how) {
  // The step to cut at: the first in the run's second third with jobs both
  // executing and suspended and some waiting.
  Recorder plain;
  {
    PolicyPtr p = make_policy(before);
    simulate(w, *p, {}, &plain);
  }
  std::size_t at = 0;
  for (std::size_t i = plain.snapshots.size() / 3; i < plain.snapshots.size() && at == 0; ++i) {
    const Snapshot& s = plain.snapshots[i];
    const auto suspended =
        std::count_if(s.running.begin(), s.running.end(), [](const RunningJob& r) { return r.suspended; });
    if (suspended > 0 && suspended < static_cast<long>(s.running.size()) && !s.queue.empty()) at = i;
  }
  ASSERT_GT(at, 0u) << before << ": no step with executing, suspended and waiting jobs";

  std::vector<PolicyPtr> instances;
  instances.push_back(make_policy(before));
  SimOptions o;
  o.resync_steps = {at};
  if (how != Cut::Gap) {
    o.on_resync = [&]() -> Policy& {
      instances.push_back(make_policy(after));
      return *instances.back();
    };
  }
  Recorder rec;
  simulate(w, *instances.front(), o, &rec);
  ASSERT_EQ(instances.size(), how == Cut::Gap ? 1u : 2u);
  ASSERT_GT(rec.snapshots.size(), at);
  ASSERT_TRUE(rec.snapshots[at].resync);

  const std::string config = "default_policy: \"" + before + "\"\n";
  auto losd = std::make_unique<test::LosdProcess>(kLosd, config);
  auto plugin = std::make_unique<Client>(losd->plugin_socket());
  plugin->hello("test-plugin", "", "23.11");
  FakeCluster cluster(w.units);
  std::unordered_map<JobId, int> starts;
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < rec.snapshots.size(); ++i) {
    if (i == at && how == Cut::Restart) {
      plugin.reset();
      losd.reset();  // SIGTERM, wait, sockets gone
      losd = std::make_unique<test::LosdProcess>(kLosd, "default_policy: \"" + after + "\"\n");
      plugin = std::make_unique<Client>(losd->plugin_socket());
      plugin->hello("test-plugin", "", "23.11");
    } else if (i == at && how == Cut::SetPolicy) {
      Client admin(losd->admin_socket());
      admin.hello("losctl");
      const auto ok =
          protocol::decode_set_policy_ok(admin.request(protocol::encode(protocol::SetPolicy{"sim", after})).payload);
      EXPECT_EQ(ok.policy, make_policy(after)->name());
    }
    // A gap: snapshot number at + 1 never arrives.
    const std::uint64_t seq = i + 1 + (how == Cut::Gap && i >= at ? 1 : 0);
    const protocol::SnapshotMessage m = cluster.snapshot(rec.snapshots[i], seq);
    protocol::Frame reply;
    try {
      reply = plugin->request(protocol::encode(m, static_cast<std::uint32_t>(i)));
    } catch (const protocol::RemoteError& e) {
      FAIL() << before << " -> " << after << " step " << i << " (cut at " << at << "): losd answered " << e.what();
    }
    ASSERT_EQ(reply.header.type, LOS_MSG_DECISIONS) << "step " << i;
    const protocol::DecisionsMessage d = protocol::decode_decisions(reply.payload);
    EXPECT_EQ(d.wakeup, rec.wakeups[i]) << "step " << i << " (cut at " << at << ")";
    std::vector<std::pair<int, JobId>> got, want;
    for (const auto& x : d.decisions) {
      got.push_back({static_cast<int>(x.kind), x.job});
      starts[x.job] += x.kind == Decision::Kind::Start;
    }
    // as losd sends them live: a migration is a requeue (docs/gang-live.md)
    for (const auto& x : live_decisions(rec.snapshots[i], rec.decisions[i], after))
      want.push_back({static_cast<int>(x.kind), x.job});
    if (got != want && ++mismatches < 5) {
      ADD_FAILURE() << before << " -> " << after << " step " << i << " (cut at " << at << ") t=" << rec.snapshots[i].now
                    << ": losd " << describe(got) << " vs los-sim " << describe(want);
    }
  }
  EXPECT_EQ(mismatches, 0u);
  for (const Job& j : w.jobs) EXPECT_EQ(starts[j.id], 1) << "job " << j.id << " started " << starts[j.id] << " times";
  EXPECT_TRUE(losd->alive());
  // The resync is an ordinary step: nothing logged at level error.
  const std::string log = losd->log();
  EXPECT_EQ(log.find("level=error"), std::string::npos) << log.substr(0, 4000);
}

TEST(LosdGangResync, RestartUnderBgsKeepsTheSimulatorsDecisions) {
  // bgs's live-limit off: a step the clock cuts is not the simulation's.
  expect_same_decisions_across_a_cut(random_workload(23, 48, 300), "bgs:live-limit=0", "bgs:live-limit=0",
                                     Cut::Restart);
}

TEST(LosdGangResync, RestartUnderMbgsKeepsTheSimulatorsDecisions) {
  expect_same_decisions_across_a_cut(random_workload(29, 48, 300), "mbgs:mpl=3:plan=rebuild", "mbgs:mpl=3:plan=rebuild",
                                     Cut::Restart);
}

TEST(LosdGangResync, SetPolicyMidRunKeepsTheSimulatorsDecisions) {
  expect_same_decisions_across_a_cut(random_workload(31, 48, 300), "bgs:live-limit=0", "bgs:live-limit=0",
                                     Cut::SetPolicy);
  expect_same_decisions_across_a_cut(random_workload(37, 48, 300), "gang", "mgs:mpl=3", Cut::SetPolicy);
}

TEST(LosdGangResync, ALostSnapshotUnderBgsKeepsTheSimulatorsDecisions) {
  expect_same_decisions_across_a_cut(random_workload(41, 48, 300), "bgs:live-limit=0", "bgs:live-limit=0", Cut::Gap);
  expect_same_decisions_across_a_cut(random_workload(43, 48, 300), "mgs", "mgs", Cut::Gap);
}

// The same cuts under SCOJO-PECT and pect-search (wall_ms=0: no wall-clock
// cap, so losd's search is the simulation's, bounded by its node budget).
TEST(LosdPectResync, RestartKeepsTheSimulatorsDecisions) {
  expect_same_decisions_across_a_cut(random_workload(23, 48, 300), "pect", "pect", Cut::Restart);
  expect_same_decisions_across_a_cut(random_workload(29, 48, 300), "pect-search:wall_ms=0", "pect-search:wall_ms=0",
                                     Cut::Restart);
}

TEST(LosdPectResync, SetPolicyMidRunKeepsTheSimulatorsDecisions) {
  expect_same_decisions_across_a_cut(random_workload(31, 48, 300), "pect", "pect-search:wall_ms=0", Cut::SetPolicy);
  expect_same_decisions_across_a_cut(random_workload(37, 48, 300), "bgs:live-limit=0", "pect", Cut::SetPolicy);
}

TEST(LosdPectResync, ALostSnapshotKeepsTheSimulatorsDecisions) {
  expect_same_decisions_across_a_cut(random_workload(41, 48, 300), "pect", "pect", Cut::Gap);
  expect_same_decisions_across_a_cut(random_workload(43, 48, 300), "pect-search:wall_ms=0", "pect-search:wall_ms=0",
                                     Cut::Gap);
}

// ---- operations --------------------------------------------------------------

TEST(LosdOperations, NotifiesSystemdOfReadyReloadingAndStopping) {
  char dir[] = "/tmp/losd-notify-XXXXXX";
  ASSERT_TRUE(::mkdtemp(dir));
  const std::string path = std::string(dir) + "/notify.sock";
  const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strcpy(addr.sun_path, path.c_str());
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  std::string received;
  auto drain = [&](const std::string& until) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (received.find(until) == std::string::npos && std::chrono::steady_clock::now() < deadline) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 50) > 0) {
        char buf[512];
        const ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
        if (n > 0) received.append(buf, static_cast<std::size_t>(n)).append("\n");
      }
    }
    return received.find(until) != std::string::npos;
  };
  {
    test::LosdProcess losd(kLosd, "default_policy: easy\n", path);
    EXPECT_TRUE(drain("READY=1")) << received;
    losd.signal(SIGHUP);
    EXPECT_TRUE(drain("RELOADING=1")) << received;
    EXPECT_EQ(losd.stop(), 0);
    EXPECT_TRUE(drain("STOPPING=1")) << received;
    // The socket files are gone after a clean stop.
    EXPECT_FALSE(std::filesystem::exists(losd.plugin_socket()));
  }
  ::close(fd);
  std::filesystem::remove_all(dir);
}

TEST(LosdOperations, SocketModesAndPeerCredentialsAreLogged) {
  test::LosdProcess losd(kLosd, "default_policy: easy\n");
  struct stat st {};
  ASSERT_EQ(::stat(losd.plugin_socket().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  ASSERT_EQ(::stat(losd.admin_socket().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  ASSERT_EQ(::stat(losd.query_socket().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0666u);
  Client plugin(losd.plugin_socket());
  plugin.hello("plugin");
  EXPECT_TRUE(losd.wait_for_log("uid " + std::to_string(::geteuid()))) << losd.log();
  // A second daemon on the same sockets refuses to start.
  test::CommandResult r = test::run_command(kLosd + " --config " + losd.config_path());
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.output.find("another process is serving this socket"), std::string::npos) << r.output;
  EXPECT_TRUE(losd.alive());
}

// Connects as `uid` (a forked child that drops to it) and returns what
// happened: 0 handshake accepted, 1 refused with NOT_ALLOWED, 2 anything else.
int handshake_as(uid_t uid, const std::string& socket) {
  const pid_t child = ::fork();
  if (child == 0) {
    if (::setgid(65534) != 0 || ::setuid(uid) != 0) ::_exit(3);
    try {
      Client c(socket);
      c.hello("intruder");
      ::_exit(0);
    } catch (const protocol::RemoteError& e) {
      ::_exit(e.code() == LOS_ERR_NOT_ALLOWED ? 1 : 2);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "handshake as uid %u: %s\n", static_cast<unsigned>(uid), e.what());
      ::_exit(2);
    }
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(LosdOperations, PeerUidIsCheckedOnThePluginAndAdminSockets) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to connect as another uid";
  // Plugin socket open to everyone, so only the uid check stands in the way.
  test::LosdProcess losd(kLosd,
                         "plugin_socket:\n  path: @DIR@/plugin.sock\n  mode: \"0666\"\n  allowed_users: [65534]\n"
                         "admin_socket:\n  path: @DIR@/admin.sock\n  mode: \"0666\"\n"
                         "default_policy: easy\n");
  // mkdtemp made the directory 0700: let the other uids reach the sockets.
  std::filesystem::permissions(
      std::filesystem::path(losd.plugin_socket()).parent_path(),
      std::filesystem::perms::owner_all | std::filesystem::perms::group_exec | std::filesystem::perms::others_exec);
  EXPECT_EQ(handshake_as(65534, losd.plugin_socket()), 0) << losd.log();  // listed
  EXPECT_EQ(handshake_as(65533, losd.plugin_socket()), 1) << losd.log();  // not listed
  EXPECT_EQ(handshake_as(65534, losd.admin_socket()), 1) << losd.log();   // admin: root and losd's user only
  EXPECT_EQ(handshake_as(65533, losd.query_socket()), 0) << losd.log();   // query: anyone
  EXPECT_TRUE(losd.wait_for_log("connection refused: uid not allowed")) << losd.log();
  EXPECT_NE(losd.log().find("uid 65533"), std::string::npos) << losd.log();
}

TEST(LosdOperations, SystemdUnitVerifiesClean) {
  if (test::run_command("command -v systemd-analyze").status != 0) GTEST_SKIP() << "systemd-analyze not installed";
  const auto unit = std::filesystem::path(__FILE__).parent_path() / ".." / ".." / "systemd" / "losd.service";
  std::ifstream in(unit);
  ASSERT_TRUE(in) << unit;
  std::stringstream text;
  text << in.rdbuf();
  std::string body = text.str();
  for (const char* must : {"Type=notify", "RuntimeDirectory=los", "NoNewPrivileges=yes", "ProtectSystem=strict",
                           "ProtectHome=yes", "PrivateTmp=yes", "ExecReload=/bin/kill -HUP $MAINPID"}) {
    EXPECT_NE(body.find(must), std::string::npos) << must;
  }
  // verify checks that ExecStart exists: point it at the binary just built.
  for (std::size_t at = body.find("/usr/sbin/losd"); at != std::string::npos; at = body.find("/usr/sbin/losd", at)) {
    body.replace(at, 14, kLosd);
    at += kLosd.size();
  }
  char dir[] = "/tmp/losd-unit-XXXXXX";
  ASSERT_TRUE(::mkdtemp(dir));
  const std::string copy = std::string(dir) + "/losd.service";
  std::ofstream(copy) << body;
  const test::CommandResult r = test::run_command("systemd-analyze verify " + copy);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output, "") << "systemd-analyze verify is not clean";
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace los
