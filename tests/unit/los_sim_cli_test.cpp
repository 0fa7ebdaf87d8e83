// los-sim as a user runs it: the real binary, its exit codes and outputs.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include "test_support.hpp"
#include "workload/swf.hpp"

namespace los {
namespace {

test::CommandResult los_sim(const std::string& args) {
  return test::run_command(std::string(LOS_BIN_DIR) + "/los-sim " + args);
}

class LosSimCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("los-cli-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    // 16 units, 200 jobs: sizes 1..16, run times up to 1000 s, arrivals every 60 s.
    std::ofstream f(path("w.swf"));
    f << "; MaxProcs: 16\n";
    for (int i = 1; i <= 200; ++i) {
      const int size = 1 + (i * 7) % 16;
      const int run = 50 + (i * 131) % 950;
      f << i << " " << i * 60 << " -1 " << run << " " << size << " -1 -1 " << size << " " << run * 2 << " -1 1 "
        << 1 + i % 5 << " 1 -1 1 1 -1 -1\n";
    }
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::filesystem::path dir_;
};

TEST_F(LosSimCli, HelpIsAManPage) {
  const test::CommandResult r = los_sim("--help");
  EXPECT_EQ(r.status, 0);
  for (const char* section : {"NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "--bsld-tau"}) {
    EXPECT_NE(r.output.find(section), std::string::npos) << section;
  }
}

TEST_F(LosSimCli, ReplayDryRunShowsTheSlurmRequestsOfTheScaledJobs) {
  // w.swf's job 1: 8 of 16 units, 181 s, estimate 362 s; on 8 nodes at x 30:
  // 4 nodes, ceil(362 / 30 / 60) = 1 minute, sleep 181 / 30 = 6.033 s, submitted
  // 60 s / 30 = 2 s after job 0 ... the first job is job 1 at t = 0.
  const std::string exact = "replay --dry-run --quiet --time-grain exact --cluster-nodes 8 --compress 30 ";
  const test::CommandResult r = los_sim(exact + "--jobs 3 -p batch " + path("w.swf"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("at +0.000 s: sbatch --parsable -J los-replay-"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" -N 4 -t 1 -o /dev/null -p batch --wrap 'sleep 6.033'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("at +2.000 s: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("predicted: easy"), std::string::npos) << r.output;
  // A job of estimate 1,900 s at x 30: ceil(1900 / 1800) = 2 minutes.
  std::ofstream(path("long.swf")) << "; MaxProcs: 8\n1 0 -1 1000 8 -1 -1 8 1900 -1 1 1 1 -1 1 1 -1 -1\n";
  const test::CommandResult l = los_sim(exact + path("long.swf"));
  ASSERT_EQ(l.status, 0) << l.output;
  EXPECT_NE(l.output.find("-N 8 -t 2 -o /dev/null --wrap 'sleep 33.333'"), std::string::npos) << l.output;
}

TEST_F(LosSimCli, ReplayRoundsSubmitAndRunTimesToWholeRealSecondsByDefault) {
  // At x 30: run 1000 s -> 33.3 real s -> 33 s; run 1016 s -> 33.9 -> 34 s;
  // submits 0, 44 s (1.47 real s -> 1 s) and 46 s (1.53 -> 2 s). The
  // prediction is given the rounded jobs: 990 s and 1020 s of run time.
  std::ofstream(path("grain.swf")) << "; MaxProcs: 8\n"
                                      "1 0 -1 1000 8 -1 -1 8 1900 -1 1 1 1 -1 1 1 -1 -1\n"
                                      "2 44 -1 1016 8 -1 -1 8 1900 -1 1 1 1 -1 1 1 -1 -1\n"
                                      "3 46 -1 1016 8 -1 -1 8 1900 -1 1 1 1 -1 1 1 -1 -1\n";
  const test::CommandResult r =
      los_sim("replay --dry-run --quiet --cluster-nodes 8 --compress 30 " + path("grain.swf"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("at +0.000 s: sbatch"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--wrap 'sleep 33.000'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("at +1.000 s: sbatch"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("at +2.000 s: sbatch"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("sleep 33.867"), std::string::npos) << r.output;
  const std::size_t n = r.output.find("--wrap 'sleep 34.000'");
  ASSERT_NE(n, std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--wrap 'sleep 34.000'", n + 1), std::string::npos) << r.output;
  // The rounded run times reach the prediction: 990 + 1020 + 1020 s on the
  // same 8 nodes, one job after the other, end at 3030 s (3032 unrounded).
  const std::size_t makespan = r.output.find("makespan (s)");
  ASSERT_NE(makespan, std::string::npos) << r.output;
  const std::string line = r.output.substr(makespan, r.output.find('\n', makespan) - makespan);
  EXPECT_NE(line.find(" 3030"), std::string::npos) << line;
  const test::CommandResult bad = los_sim("replay --dry-run --time-grain minute --cluster-nodes 8 " + path("w.swf"));
  EXPECT_EQ(bad.status, 2) << bad.output;
  EXPECT_NE(bad.output.find("--time-grain: expected whole or exact, got 'minute'"), std::string::npos) << bad.output;
}

TEST_F(LosSimCli, ReplayRefusesWhatSlurmCannotReplay) {
  const test::CommandResult r = los_sim("replay --dry-run --no-kill --cluster-nodes 8 " + path("w.swf"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--no-kill cannot be replayed"), std::string::npos) << r.output;
  const test::CommandResult c = los_sim("replay --dry-run --compress 0 --cluster-nodes 8 " + path("w.swf"));
  EXPECT_EQ(c.status, 2) << c.output;
  EXPECT_NE(c.output.find("--compress"), std::string::npos) << c.output;
}

TEST_F(LosSimCli, JsonHasOneObjectPerPolicyWithTheDocumentedKeys) {
  const test::CommandResult r = los_sim("--policy fcfs,easy,conservative --format json --quiet " + path("w.swf"));
  ASSERT_EQ(r.status, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  ASSERT_EQ(j.size(), 3u);
  for (const char* key : {"policy", "jobs", "dropped", "mean_wait_s", "p90_wait_s", "mean_response_s", "mean_slowdown",
                          "mean_bsld", "utilization", "makespan_s", "fairness_F"}) {
    EXPECT_TRUE(j[0].contains(key)) << key;
  }
  EXPECT_EQ(j[1]["policy"], "easy");
  EXPECT_EQ(j[0]["jobs"], 200);
  EXPECT_TRUE(j[0]["vs_baseline"].is_null());
  // Baseline fcfs minus easy: the paired mean difference equals the difference of means.
  const double diff = j[0]["mean_wait_s"].get<double>() - j[1]["mean_wait_s"].get<double>();
  EXPECT_NEAR(j[1]["vs_baseline"]["wait_s"]["mean"].get<double>(), diff, 1e-6);
  EXPECT_LE(j[1]["vs_baseline"]["wait_s"]["ci90_low"].get<double>(), diff);
}

TEST_F(LosSimCli, TableShowsPoliciesSideBySide) {
  const test::CommandResult r = los_sim("--policy easy,depth:k=2 --check " + path("w.swf"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("mean bounded slowdown"), std::string::npos);
  EXPECT_NE(r.output.find("depth:k=2"), std::string::npos);
  EXPECT_NE(r.output.find("90% confidence interval"), std::string::npos);
}

// Columns size to their content: a value wider than any header still has
// blanks on both sides (a fairness F of 10^10 once ran into its neighbour).
TEST_F(LosSimCli, TableColumnsSizeToWideValues) {
  // Two jobs on 2 units, the second waits 10^13 s behind the first: mean
  // slowdowns of 15 characters, wider than the 14 the table once allotted.
  std::ofstream(path("wide.swf")) << "; MaxProcs: 2\n"
                                  << "1 0 -1 10000000000000 2 -1 -1 2 10000000000000 -1 1 1 1 -1 1 1 -1 -1\n"
                                  << "2 1 -1 10 2 -1 -1 2 10 -1 1 2 1 -1 1 1 -1 -1\n";
  const test::CommandResult r = los_sim("--quiet --policy fcfs,easy,conservative " + path("wide.swf"));
  ASSERT_EQ(r.status, 0) << r.output;
  std::istringstream lines(r.output);
  std::string row;
  std::size_t metric_rows = 0;
  std::size_t widest = 0;
  bool in_table = false;
  while (std::getline(lines, row)) {
    if (row.rfind("metric", 0) == 0) in_table = true;
    if (in_table && row.empty()) break;
    if (!in_table) continue;
    // Label, then one cell per policy: the cells of the three policies are
    // separated by at least two blanks and line up with their header.
    std::istringstream cells(row.substr(row.find("  ")));
    std::vector<std::string> values{std::istream_iterator<std::string>(cells), {}};
    ASSERT_EQ(values.size(), 3u) << row;
    for (const std::string& v : values) widest = std::max(widest, v.size());
    EXPECT_EQ(row.size(), r.output.substr(r.output.find("metric")).find('\n')) << row;
    ++metric_rows;
  }
  EXPECT_GE(metric_rows, 10u);
  EXPECT_GE(widest, 15u) << r.output;
}

TEST_F(LosSimCli, CancelledBeforeRunningIsDroppedByDefaultAndKeptOnRequest) {
  std::ofstream(path("c.swf")) << "; MaxProcs: 4\n"
                               << "1 0 -1 100 2 -1 -1 2 200 -1 1 1 1 -1 1 1 -1 -1\n"
                               << "2 5 600 -1 -1 -1 -1 4 600 -1 5 1 1 -1 1 1 -1 -1\n";
  test::CommandResult r = los_sim(path("c.swf"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("dropped 1 of 2 jobs"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1 cancelled before they ran"), std::string::npos) << r.output;
  r = los_sim("--keep-cancelled --quiet --format json " + path("c.swf"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(nlohmann::json::parse(r.output)[0]["jobs"], 2);
}

// --cancelled=withdraw: the record (cancelled 600 s after its submission)
// waits behind job 1 and leaves the queue at t=605; its wait -1 sibling is
// dropped under its own count. --keep-cancelled with another --cancelled is
// a usage error; a replay refuses withdraw.
TEST_F(LosSimCli, CancelledWithdrawReportsWithdrawnRecords) {
  std::ofstream(path("w5.swf")) << "; MaxProcs: 4\n"
                                << "1 0 -1 1000 2 -1 -1 2 1000 -1 1 1 1 -1 1 1 -1 -1\n"
                                << "2 5 600 -1 -1 -1 -1 4 600 -1 5 1 1 -1 1 1 -1 -1\n"
                                << "3 6 -1 -1 -1 -1 -1 4 600 -1 5 1 1 -1 1 1 -1 -1\n";
  test::CommandResult r = los_sim("--cancelled=withdraw --check " + path("w5.swf"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("1 cancelled before they ran at an unknown time (wait -1)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1 jobs + 1 records withdrawn by their users (1 dropped)"), std::string::npos) << r.output;
  r = los_sim("--cancelled withdraw --quiet --format json --schedule-out " + path("w5-out.swf") + " " + path("w5.swf"));
  ASSERT_EQ(r.status, 0) << r.output;
  const nlohmann::json j = nlohmann::json::parse(r.output)[0];
  EXPECT_EQ(j["jobs"], 1);
  EXPECT_EQ(j["withdrawn_records"], 1);
  EXPECT_EQ(j["withdrawn_waiting"], 1);
  EXPECT_EQ(j["withdrawn_started"], 0);
  // Read back under the same reading, the schedule has the record as the trace had it.
  SwfReadOptions withdraw;
  withdraw.cancelled = CancelledRecords::Withdraw;
  const Workload back = read_swf(path("w5-out.swf"), withdraw);
  ASSERT_EQ(back.jobs.size(), 2u);
  EXPECT_EQ(back.jobs[1].cancel_lag, 600);
  // The default output has none of the withdraw keys (digests stay put).
  r = los_sim("--quiet --format json " + path("w5.swf"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_FALSE(nlohmann::json::parse(r.output)[0].contains("withdrawn_waiting")) << r.output;

  r = los_sim("--keep-cancelled --cancelled=withdraw " + path("w5.swf"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--keep-cancelled (an alias of --cancelled=keep) contradicts --cancelled=withdraw"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(los_sim("--keep-cancelled --cancelled=keep --quiet " + path("w5.swf")).status, 0);
  r = los_sim("--cancelled=sometimes " + path("w5.swf"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--cancelled: expected drop, keep or withdraw, got 'sometimes'"), std::string::npos)
      << r.output;
  r = los_sim("replay --dry-run --cluster-nodes 4 --cancelled=withdraw " + path("w5.swf"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--cancelled=withdraw cannot be replayed"), std::string::npos) << r.output;
}

TEST_F(LosSimCli, ScheduleOutIsReadableSwf) {
  const test::CommandResult r =
      los_sim("--policy easy,fcfs --quiet --schedule-out " + path("s.swf") + " " + path("w.swf"));
  ASSERT_EQ(r.status, 0) << r.output;
  const Workload easy = read_swf(path("s.easy.swf"));
  const Workload fcfs = read_swf(path("s.fcfs.swf"));
  EXPECT_EQ(easy.jobs.size(), 200u);
  EXPECT_EQ(fcfs.jobs.size(), 200u);
  EXPECT_EQ(easy.units, 16);
}

TEST_F(LosSimCli, WindowLoadAndRuntimeScale) {
  const test::CommandResult r =
      los_sim("--jobs 50 --skip 10 --load 0.9 --runtime-scale 1.5 --format json --quiet " + path("w.swf"));
  ASSERT_EQ(r.status, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j[0]["jobs"], 50);
  EXPECT_NEAR(j[0]["offered_load"].get<double>(), 0.9, 0.01);
}

TEST_F(LosSimCli, JitterMakesAReplicateOfTheWorkloadPerSeed) {
  // Every job's submit time moves by [0, 600) s after --load; the schedule
  // follows (wait = start - jittered submit), and each seed is its own replicate.
  auto schedule = [&](const std::string& jitter, const std::string& name) {
    const test::CommandResult r =
        los_sim("--quiet --policy easy --load 0.9 " + jitter + " --schedule-out " + path(name) + " " + path("w.swf"));
    EXPECT_EQ(r.status, 0) << r.output;
    return read_swf(path(name));
  };
  const Workload plain = schedule("", "plain.swf");
  const Workload one = schedule("--jitter 600 --jitter-seed 1", "one.swf");
  const Workload again = schedule("--jitter 600 --jitter-seed 1", "again.swf");
  const Workload two = schedule("--jitter 600 --jitter-seed 2", "two.swf");
  ASSERT_EQ(one.jobs.size(), plain.jobs.size());
  std::map<JobId, Time> plain_submit;
  for (const Job& j : plain.jobs) plain_submit[j.id] = j.submit;
  bool moved = false, seeds_differ = false;
  for (std::size_t k = 0; k < one.jobs.size(); ++k) {
    const Time offset = one.jobs[k].submit - plain_submit.at(one.jobs[k].id);
    EXPECT_GE(offset, 0);
    EXPECT_LT(offset, 600);
    moved = moved || offset != 0;
    EXPECT_EQ(again.jobs[k].submit, one.jobs[k].submit);
    seeds_differ = seeds_differ || two.jobs[k].submit != one.jobs[k].submit;
  }
  EXPECT_TRUE(moved);
  EXPECT_TRUE(seeds_differ);
  const test::CommandResult bad = los_sim("--jitter -5 " + path("w.swf"));
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.output.find("--jitter"), std::string::npos) << bad.output;
}

TEST_F(LosSimCli, BadInputExitsNonZeroNamingTheProblem) {
  test::CommandResult r = los_sim("--policy nosuch " + path("w.swf"));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("unknown policy 'nosuch'"), std::string::npos) << r.output;
  r = los_sim("--load abc " + path("w.swf"));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("--load: expected a number"), std::string::npos) << r.output;
  r = los_sim(path("missing.swf"));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("missing.swf: cannot open"), std::string::npos) << r.output;
  std::ofstream(path("bad.swf")) << "; MaxProcs: 4\n1 0 -1 10 2 -1 -1 2 x -1 1 1 1 -1 1 1 -1 -1\n";
  r = los_sim(path("bad.swf"));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("bad.swf:2: field 9 (requested time): not a number: 'x'"), std::string::npos) << r.output;
  // A model's machine given twice: --nodes would otherwise be ignored.
  r = los_sim("--quiet --nodes 320 --policy easy model:lublin:jobs=50:nodes=256");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("--nodes 320 and nodes= in 'model:lublin:jobs=50:nodes=256' both give the machine size"),
            std::string::npos)
      << r.output;
  r = los_sim("--quiet --nodes 320 --policy easy --format json model:lublin:jobs=50");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("\"units\": 320"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace los
