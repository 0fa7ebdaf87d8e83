// losd's /metrics as operators read it (docs/losd.md, "Metrics"): the build
// info, the plugin-fallback gauge, the latest snapshot's time, job waits and
// bounded slowdowns, per-user gauges capped at the top users, histogram sums
// that never decrease, and a replaced policy's series gone. A real losd over
// its Unix sockets, scraped over HTTP.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <map>
#include <optional>
#include <sstream>
#include <thread>

#include "losd_process.hpp"
#include "protocol/client.hpp"
#include "test_support.hpp"

namespace los {
namespace {

using protocol::Client;

const std::string kLosd = std::string(LOS_BIN_DIR) + "/losd";

// The value of one series, written exactly as exposed (name{labels}).
std::optional<double> value_of(const std::string& text, const std::string& series) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.size() > series.size() && line.compare(0, series.size(), series) == 0 && line[series.size()] == ' ') {
      return std::stod(line.substr(series.size() + 1));
    }
  }
  return std::nullopt;
}

// Every histogram's _sum series: series -> value.
std::map<std::string, double> histogram_sums(const std::string& text) {
  std::map<std::string, double> sums;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const std::size_t space = line.rfind(' ');
    if (line.empty() || line[0] == '#' || space == std::string::npos) continue;
    const std::string series = line.substr(0, space);
    const std::string name = series.substr(0, series.find('{'));
    if (name.size() > 4 && name.compare(name.size() - 4, 4, "_sum") == 0) sums[series] = std::stod(line.substr(space));
  }
  return sums;
}

struct Running {
  JobId id;
  int user;
  Time submit;
  Time start;
  int size;
};
struct Pending {
  JobId id;
  int user;
  Time submit;
  int size;
};

// One partition "p" of 4 nodes: the running jobs on the first nodes.
protocol::SnapshotMessage snapshot(std::uint64_t seq, Time now, const std::vector<Running>& running,
                                   const std::vector<Pending>& pending, bool after_fallback = false) {
  protocol::SnapshotMessage m;
  m.seq = seq;
  m.now = now;
  m.after_fallback = after_fallback;
  Snapshot p;
  p.partition = "p";
  // std::string("n").append(), not "n" + ...: GCC 12 warns (-Wrestrict, a false positive) on the latter here.
  for (int i = 0; i < 4; ++i) p.nodes.push_back({std::string("n").append(std::to_string(i)), Node::State::Idle});
  int next = 0;
  for (const Running& r : running) {
    RunningJob j;
    j.job = test::job(r.id, r.submit, r.size, 100, -1, r.user);
    j.start = r.start;
    for (int k = 0; k < r.size; ++k) {
      j.nodes.push_back(next);
      p.nodes[next++].state = Node::State::Allocated;
    }
    p.running.push_back(j);
  }
  for (const Pending& q : pending) p.queue.push_back(test::job(q.id, q.submit, q.size, 100, -1, q.user));
  m.partitions.push_back(std::move(p));
  return m;
}

class LosdMetricsTest : public ::testing::Test {
 protected:
  std::string metrics_config() const { return "metrics:\n  listen: \"127.0.0.1:" + std::to_string(port_) + "\"\n"; }
  std::string scrape() const { return test::http_get(port_, "/metrics"); }
  // Scrapes until `series` has `value` (losd notices a closed connection
  // asynchronously); the last scrape's value.
  std::optional<double> await(const std::string& series, double value) const {
    std::optional<double> v;
    for (int i = 0; i < 100; ++i) {
      v = value_of(scrape(), series);
      if (v == value) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return v;
  }

  const int port_ = test::free_tcp_port();
};

TEST_F(LosdMetricsTest, BuildInfoAndTheLatestSnapshotsTime) {
  test::LosdProcess losd(kLosd, metrics_config() + "default_policy: easy\n");
  const test::CommandResult version = test::run_command(kLosd + " --version");
  ASSERT_EQ(version.status, 0);
  std::istringstream words(version.output);
  std::string number;
  for (std::string word; words >> word;) number = word;  // "losd (LOS) X.Y.Z": the last word
  ASSERT_FALSE(number.empty()) << version.output;
  ASSERT_EQ(await("los_plugin_fallback", 1), 1) << "/metrics is up";
  std::string text = scrape();
  EXPECT_EQ(value_of(text, "los_build_info{protocol=\"" + std::to_string(LOS_PROTOCOL_VERSION) + "\",version=\"" +
                               number + "\"}"),
            1)
      << text;
  EXPECT_EQ(value_of(text, "los_last_snapshot_timestamp_seconds"), std::nullopt) << "no snapshot yet:\n" << text;

  Client plugin(losd.plugin_socket());
  plugin.hello("plugin");
  plugin.request(protocol::encode(snapshot(1, 1'700'000'123, {}, {})));
  EXPECT_EQ(value_of(scrape(), "los_last_snapshot_timestamp_seconds"), 1'700'000'123);
  plugin.request(protocol::encode(snapshot(2, 1'700'000'140, {}, {})));
  EXPECT_EQ(value_of(scrape(), "los_last_snapshot_timestamp_seconds"), 1'700'000'140);
}

TEST_F(LosdMetricsTest, PluginFallbackGaugeFollowsTheConnectionAndTheSnapshotsFlag) {
  test::LosdProcess losd(kLosd, metrics_config() + "default_policy: easy\n");
  EXPECT_EQ(await("los_plugin_fallback", 1), 1) << "no plugin connected";
  {
    Client plugin(losd.plugin_socket());
    plugin.hello("plugin");
    plugin.request(protocol::encode(snapshot(1, 1000, {}, {})));
    std::string text = scrape();
    EXPECT_EQ(value_of(text, "los_plugin_connections"), 1) << text;
    EXPECT_EQ(value_of(text, "los_plugin_fallback"), 0) << text;
    // The plugin says its previous cycle was its fallback's (losd too slow).
    plugin.request(protocol::encode(snapshot(2, 1001, {}, {}, true)));
    EXPECT_EQ(value_of(scrape(), "los_plugin_fallback"), 1);
    plugin.request(protocol::encode(snapshot(3, 1002, {}, {})));
    EXPECT_EQ(value_of(scrape(), "los_plugin_fallback"), 0);
  }
  EXPECT_EQ(await("los_plugin_fallback", 1), 1) << "the plugin disconnected";
  EXPECT_EQ(value_of(scrape(), "los_plugin_connections"), 0);
}

TEST_F(LosdMetricsTest, WaitsSlowdownsAndTheTopUsers) {
  test::LosdProcess losd(kLosd, metrics_config() + "default_policy: fcfs\n");
  Client plugin(losd.plugin_socket());
  plugin.hello("plugin");
  // 13 users: user 6 runs a job, users 100..111 have one pending job each.
  std::vector<Pending> queue;
  for (int u = 100; u < 112; ++u) queue.push_back({u, u, 990, 4});
  // Job 1 was running before losd looked: neither its wait nor its end count.
  plugin.request(protocol::encode(snapshot(1, 1000, {{1, 5, 900, 950, 1}}, queue)));
  std::vector<Pending> with_2 = queue;
  with_2.push_back({2, 6, 990, 1});
  plugin.request(protocol::encode(snapshot(2, 1010, {{1, 5, 900, 950, 1}}, with_2)));
  // Job 2 started at 1050 (waited 60 s); job 1 ended by 1100: wait 50, run
  // 150, bounded slowdown (50 + 150) / 150.
  plugin.request(protocol::encode(snapshot(3, 1100, {{2, 6, 990, 1050, 1}}, queue)));
  std::string text = scrape();
  EXPECT_EQ(value_of(text, "los_job_wait_seconds_count{partition=\"p\"}"), 1) << text;
  EXPECT_EQ(value_of(text, "los_job_wait_seconds_sum{partition=\"p\"}"), 60) << text;
  EXPECT_EQ(value_of(text, "los_job_wait_seconds_bucket{partition=\"p\",le=\"60\"}"), 1) << text;
  EXPECT_EQ(value_of(text, "los_job_wait_seconds_bucket{partition=\"p\",le=\"30\"}"), 0) << text;
  EXPECT_EQ(value_of(text, "los_job_bounded_slowdown_count{partition=\"p\"}"), 1) << text;
  EXPECT_NEAR(value_of(text, "los_job_bounded_slowdown_sum{partition=\"p\"}").value_or(0), 200.0 / 150.0, 1e-9) << text;
  // The top 10 by nodes, then pending jobs, then uid: 6 and 100..108; 109,
  // 110 and 111 are "other".
  EXPECT_EQ(value_of(text, "los_user_running_nodes{partition=\"p\",user=\"6\"}"), 1) << text;
  EXPECT_EQ(value_of(text, "los_user_pending_jobs{partition=\"p\",user=\"100\"}"), 1) << text;
  EXPECT_EQ(value_of(text, "los_user_pending_jobs{partition=\"p\",user=\"108\"}"), 1) << text;
  EXPECT_EQ(value_of(text, "los_user_pending_jobs{partition=\"p\",user=\"109\"}"), std::nullopt) << text;
  EXPECT_EQ(value_of(text, "los_user_pending_jobs{partition=\"p\",user=\"other\"}"), 3) << text;
  EXPECT_EQ(value_of(text, "los_user_running_nodes{partition=\"p\",user=\"other\"}"), 0) << text;

  // Users who leave the partition leave /metrics.
  plugin.request(protocol::encode(snapshot(4, 1200, {}, {{111, 111, 990, 4}})));
  text = scrape();
  EXPECT_EQ(value_of(text, "los_user_pending_jobs{partition=\"p\",user=\"111\"}"), 1) << text;
  EXPECT_EQ(value_of(text, "los_user_pending_jobs{partition=\"p\",user=\"other\"}"), 0) << text;
  EXPECT_EQ(text.find("user=\"6\""), std::string::npos) << text;
  EXPECT_EQ(text.find("user=\"100\""), std::string::npos) << text;
  EXPECT_EQ(value_of(text, "los_job_bounded_slowdown_count{partition=\"p\"}"), 2) << "job 2 ended:\n" << text;
}

TEST_F(LosdMetricsTest, NoHistogramSumDecreases) {
  test::LosdProcess losd(kLosd, metrics_config() + "default_policy: easy\n");
  Client plugin(losd.plugin_socket());
  plugin.hello("plugin");
  // Early and late starts against easy's reservation (job 1 runs past its
  // estimate of 100 s, then ends early), and a start before the submit time
  // (a clock step on the controller): every observation that could be
  // negative.
  const std::vector<protocol::SnapshotMessage> steps = {
      snapshot(1, 1000, {{1, 5, 900, 990, 4}}, {{2, 6, 995, 4}}),
      snapshot(2, 1200, {{1, 5, 900, 990, 4}}, {{2, 6, 995, 4}}),
      snapshot(3, 1300, {{2, 6, 995, 1300, 4}}, {{3, 7, 1250, 4}}),
      snapshot(4, 1310, {{3, 7, 1250, 1305, 4}}, {{4, 8, 2000, 4}}),
      snapshot(5, 1320, {{4, 8, 2000, 1320, 4}}, {}),
      snapshot(6, 1330, {}, {}),
  };
  std::map<std::string, double> before = histogram_sums(scrape());
  std::size_t compared = 0;
  for (const auto& s : steps) {
    plugin.request(protocol::encode(s));
    const std::map<std::string, double> now = histogram_sums(scrape());
    for (const auto& [series, value] : now) {
      EXPECT_GE(value, 0) << series << " at snapshot " << s.seq;
      const auto old = before.find(series);
      if (old == before.end()) continue;
      EXPECT_GE(value, old->second) << series << " decreased at snapshot " << s.seq;
      ++compared;
    }
    before = now;
  }
  const std::string text = scrape();
  EXPECT_GT(compared, 10u) << text;
  // The observations the steps were built for were made.
  EXPECT_EQ(value_of(text, "los_job_wait_seconds_count{partition=\"p\"}"), 3) << text;
  EXPECT_EQ(value_of(text, "los_job_bounded_slowdown_count{partition=\"p\"}"), 4) << text;
}

TEST_F(LosdMetricsTest, AReplacedPolicysSeriesDisappear) {
  test::LosdProcess losd(kLosd, metrics_config() + "default_policy: easy\n");
  Client plugin(losd.plugin_socket());
  plugin.hello("plugin");
  std::uint64_t seq = 0;
  auto step = [&] {
    ++seq;
    plugin.request(protocol::encode(
        snapshot(seq, 1000 + static_cast<Time>(seq), {{1, 5, 900, 990, 3}}, {{2, 6, 995, 4}, {3, 6, 996, 1}})));
  };
  step();
  std::string text = scrape();
  EXPECT_NE(text.find("los_decision_latency_seconds_count{partition=\"p\",policy=\"easy\"} 1"), std::string::npos)
      << text;
  EXPECT_NE(text.find("los_reservations_held{partition=\"p\",policy=\"easy\"}"), std::string::npos) << text;

  // losctl set-policy: easy's series go at once; fcfs's come with its first step.
  Client admin(losd.admin_socket());
  admin.hello("losctl");
  admin.request(protocol::encode(protocol::SetPolicy{"p", "fcfs"}));
  text = scrape();
  EXPECT_EQ(text.find("policy=\"easy\""), std::string::npos) << text;
  EXPECT_EQ(value_of(text, "los_policy_switches_total{partition=\"p\"}"), 1) << text;
  step();
  text = scrape();
  EXPECT_EQ(text.find("policy=\"easy\""), std::string::npos) << text;
  EXPECT_NE(text.find("los_decision_latency_seconds_count{partition=\"p\",policy=\"fcfs\"} 1"), std::string::npos)
      << text;

  // A reload that gives the partition another policy: fcfs's series go at
  // once, and it is not counted as a losctl switch.
  losd.write_config(metrics_config() + "default_policy: easy\npartitions:\n  p:\n    policy: conservative\n");
  losd.signal(SIGHUP);
  ASSERT_EQ(await("los_config_reloads_total{result=\"ok\"}", 1), 1) << losd.log();
  text = scrape();
  EXPECT_EQ(text.find("policy=\"fcfs\""), std::string::npos) << text;
  EXPECT_EQ(value_of(text, "los_policy_switches_total{partition=\"p\"}"), 1) << text;
  step();
  text = scrape();
  EXPECT_EQ(text.find("policy=\"fcfs\""), std::string::npos) << text;
  EXPECT_EQ(text.find("policy=\"easy\""), std::string::npos) << text;
  EXPECT_NE(text.find("los_decision_latency_seconds_count{partition=\"p\",policy=\"conservative\"} 1"),
            std::string::npos)
      << text;
}

// los_steps_cut_total counts the steps a policy's step budget stopped: with
// conservative:searches=1 (a count, so the cut does not depend on the
// machine) each step reserves one more waiting job until all hold one; the
// steps answered with a wakeup a second later are the ones counted, and the
// count stays once the plan is whole. A policy without a budget shows 0.
TEST_F(LosdMetricsTest, StepsCutByTheBudgetAreCounted) {
  test::LosdProcess losd(kLosd, metrics_config() + "default_policy: \"conservative:searches=1\"\n");
  Client plugin(losd.plugin_socket());
  plugin.hello("plugin");
  const std::string series = "los_steps_cut_total{partition=\"p\",policy=\"conservative:searches=1\"}";
  // The running job holds every node; six jobs wait.
  const std::vector<Pending> waiting = {{2, 6, 995, 4}, {3, 6, 996, 1}, {4, 7, 997, 2},
                                        {5, 7, 998, 3}, {6, 8, 999, 1}, {7, 8, 999, 4}};
  int continued = 0;
  int steps = 0;
  for (std::uint64_t seq = 1; seq <= 12; ++seq) {
    const Time now = 1000 + static_cast<Time>(seq);
    const protocol::DecisionsMessage d = protocol::decode_decisions(
        plugin.request(protocol::encode(snapshot(seq, now, {{1, 5, 900, 990, 4}}, waiting))).payload);
    EXPECT_TRUE(d.decisions.empty());
    ++steps;
    if (d.wakeup != now + 1) break;
    ++continued;
    EXPECT_EQ(value_of(scrape(), series), continued) << "step " << seq;
  }
  EXPECT_GE(continued, 3);
  EXPECT_LT(steps, 12) << "the plan should be whole within 12 steps";
  std::string text = scrape();
  EXPECT_EQ(value_of(text, series), continued) << text;
  EXPECT_EQ(value_of(text, "los_reservations_held{partition=\"p\",policy=\"conservative:searches=1\"}"), 6) << text;

  Client admin(losd.admin_socket());
  admin.hello("losctl");
  admin.request(protocol::encode(protocol::SetPolicy{"p", "easy"}));
  plugin.request(protocol::encode(snapshot(20, 1100, {{1, 5, 900, 990, 4}}, waiting)));
  text = scrape();
  EXPECT_EQ(text.find("policy=\"conservative:searches=1\""), std::string::npos) << text;
  EXPECT_EQ(value_of(text, "los_steps_cut_total{partition=\"p\",policy=\"easy\"}"), 0) << text;
}

TEST_F(LosdMetricsTest, APartitionThatLeavesTheSnapshotTakesItsSeriesAlong) {
  test::LosdProcess losd(kLosd, metrics_config() + "default_policy: easy\n");
  Client plugin(losd.plugin_socket());
  plugin.hello("plugin");
  // Partition p with a running and two pending jobs, then only partition q.
  plugin.request(protocol::encode(snapshot(1, 1000, {{1, 5, 900, 990, 3}}, {{2, 6, 995, 4}, {3, 6, 996, 1}})));
  std::string text = scrape();
  for (const char* series : {"los_pending_jobs{partition=\"p\"}", "los_user_pending_jobs{partition=\"p\",user=\"6\"}",
                             "los_decision_latency_seconds_count{partition=\"p\",policy=\"easy\"}"}) {
    EXPECT_TRUE(value_of(text, series).has_value()) << series << "\n" << text;
  }
  protocol::SnapshotMessage only_q = snapshot(2, 1001, {}, {{4, 7, 1000, 1}});
  only_q.partitions[0].partition = "q";
  plugin.request(protocol::encode(only_q));
  text = scrape();
  EXPECT_EQ(text.find("partition=\"p\""), std::string::npos) << text;
  EXPECT_TRUE(value_of(text, "los_pending_jobs{partition=\"q\"}").has_value()) << text;
  EXPECT_NE(losd.log().find("partition dropped"), std::string::npos) << losd.log();
}

}  // namespace
}  // namespace los
