// The command-line tools as users run them: one parser's conventions
// (--opt=value, --version, exit 2 naming a bad option), losctl --json and
// user names, and sa-submit's choice (JSON, #SBATCH lines, sbatch options,
// shell-quoted dry run) against a real losd.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "losd_process.hpp"
#include "protocol/client.hpp"
#include "test_support.hpp"

namespace los {
namespace {

const std::string kBin = std::string(LOS_BIN_DIR) + "/";

// One 16-node partition "batch" at time `now`: a 12-node job runs, and jobs
// of root (uid 0) and of uid 424242 (no such user, surely) wait.
protocol::SnapshotMessage snapshot(Time now) {
  protocol::SnapshotMessage m;
  m.seq = 1;
  m.now = now;
  Snapshot p;
  p.partition = "batch";
  for (int i = 0; i < 16; ++i) p.nodes.push_back({std::string("n") + std::to_string(i), Node::State::Idle});
  RunningJob r;
  r.job = test::job(1, now - 100, 12, 3600);
  r.start = now - 50;
  for (int i = 0; i < 12; ++i) {
    r.nodes.push_back(i);
    p.nodes[i].state = Node::State::Allocated;
  }
  p.running.push_back(r);
  p.queue.push_back(test::job(2, now - 20, 16, 600, -1, 0));
  p.queue.push_back(test::job(3, now - 10, 8, 600, -1, 424242));
  m.partitions.push_back(std::move(p));
  return m;
}

class ToolsCli : public ::testing::Test {
 protected:
  ToolsCli() : losd_(kBin + "losd", "default_policy: conservative\n"), plugin_(losd_.plugin_socket()) {
    plugin_.hello("plugin", "", "22.05.8");
    plugin_.request(protocol::encode(snapshot(static_cast<Time>(::time(nullptr)))));
  }
  test::CommandResult losctl(const std::string& args) {
    return test::run_command(kBin + "losctl --socket=" + losd_.query_socket() + " --admin-socket " +
                             losd_.admin_socket() + " " + args);
  }
  test::LosdProcess losd_;
  protocol::Client plugin_;
};

TEST(ToolsCommandLine, EveryToolHasTheOneVersionAndNamesABadOption) {
  std::string version;
  for (const std::string tool : {"losd", "losctl", "los-sim", "sa-submit", "sa-experiments"}) {
    test::CommandResult r = test::run_command(kBin + tool + " --version");
    EXPECT_EQ(r.status, 0) << tool;
    std::smatch m;
    ASSERT_TRUE(std::regex_match(r.output, m, std::regex(tool + " \\(LOS\\) ([0-9]+\\.[0-9]+\\.[0-9]+)\n")))
        << tool << ": " << r.output;
    if (version.empty()) version = m[1];
    EXPECT_EQ(m[1], version) << tool;

    r = test::run_command(kBin + tool + " --frobnicate=3");
    EXPECT_EQ(r.status, 2) << tool << ": " << r.output;
    EXPECT_NE(r.output.find(tool + ": unknown option '--frobnicate"), std::string::npos) << r.output;

    r = test::run_command(kBin + tool + " --help");
    EXPECT_EQ(r.status, 0) << tool;
    for (const char* section : {"NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "--version"}) {
      EXPECT_NE(r.output.find(section), std::string::npos) << tool << " --help lacks " << section;
    }
  }
  // Both value forms, and a bad value named.
  EXPECT_EQ(test::run_command(kBin + "los-sim --list-policies --format=markdown").status, 0);
  test::CommandResult r = test::run_command(kBin + "los-sim --jobs=x w.swf");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("--jobs: expected a whole number, got 'x'"), std::string::npos) << r.output;
}

TEST_F(ToolsCli, LosctlPrintsJsonAndUserNames) {
  test::CommandResult r = losctl("--json status");
  ASSERT_EQ(r.status, 0) << r.output;
  nlohmann::json j = nlohmann::json::parse(r.output);
  EXPECT_TRUE(j["plugin_connected"].get<bool>());
  EXPECT_EQ(j["slurm_version"], "22.05.8");
  EXPECT_EQ(j["latest_snapshot"]["seq"], 1);
  ASSERT_EQ(j["partitions"].size(), 1u);
  EXPECT_EQ(j["partitions"][0]["name"], "batch");
  EXPECT_EQ(j["partitions"][0]["nodes"], 16);
  EXPECT_EQ(j["partitions"][0]["free"], 4);
  EXPECT_EQ(j["partitions"][0]["pending"], 2);

  r = losctl("plan batch --json");
  ASSERT_EQ(r.status, 0) << r.output;
  j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["policy"], "conservative");
  EXPECT_TRUE(j["has_plan"].get<bool>());
  ASSERT_FALSE(j["slots"].empty());
  EXPECT_TRUE(j["slots"].back()["end"].is_null());
  EXPECT_EQ(j["reservations"].size(), 2u);

  r = losctl("starts --json");
  ASSERT_EQ(r.status, 0) << r.output;
  j = nlohmann::json::parse(r.output);
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["job"], 2);
  EXPECT_EQ(j[0]["uid"], 0);
  EXPECT_EQ(j[0]["user"], "root");
  EXPECT_EQ(j[0]["kind"], "reserved");
  EXPECT_EQ(j[1]["user"], "424242");  // no name: the number
  EXPECT_TRUE(j[1]["start"].is_number());

  // --user by name or by uid; the table shows names.
  for (const char* user : {"root", "0"}) {
    r = losctl(std::string("starts batch --user=") + user);
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find(" root "), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("424242"), std::string::npos) << "filtered by user: " << r.output;
  }
  r = losctl("starts --user 424242");
  EXPECT_NE(r.output.find("424242"), std::string::npos) << r.output;
  r = losctl("starts --user no-such-user-here");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("--user: no user named 'no-such-user-here'"), std::string::npos) << r.output;

  r = losctl("--json set-policy batch easy");
  ASSERT_EQ(r.status, 0) << r.output;
  j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["partition"], "batch");
  EXPECT_EQ(j["policy"], "easy");
}

TEST_F(ToolsCli, SaSubmitChoiceAsJsonWithScriptPartitionAndQuotedCommand) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("sa-cli-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string script = (dir / "job.sh").string();
  // The partition comes from the script's #SBATCH block; the line after the
  // first command is not read, as sbatch does not.
  std::ofstream(script) << "#!/bin/bash\n#SBATCH --partition=batch --nodes=3  # a comment\n\necho hi\n"
                        << "#SBATCH --partition=nosuch\n";
  const std::string sa = kBin + "sa-submit --socket " + losd_.query_socket() + " --sbatch=/bin/false ";

  // 4 nodes fit now (ends in 2 min); 16 nodes wait for the running job.
  // (run_command adds 2>&1: the subshell keeps stderr out of the JSON.)
  test::CommandResult r = test::run_command("(" + sa + "--json -n -J 'my job' -o out/%j.log -s 4x2 -s 16x1 " + script +
                                            " 'a b' 2>/dev/null)");
  ASSERT_EQ(r.status, 0) << r.output;
  const nlohmann::json j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["partition"], "batch");
  EXPECT_EQ(j["partition_from"], "#SBATCH in " + script);
  EXPECT_EQ(j["policy"], "conservative");
  ASSERT_EQ(j["shapes"].size(), 2u);
  EXPECT_EQ(j["chosen"], 0);
  EXPECT_EQ(j["shapes"][0]["time_limit"], "2:00");
  EXPECT_EQ(j["shapes"][0]["start_in"], "0:00");
  EXPECT_EQ(j["shapes"][0]["end_in"], "2:00");
  EXPECT_EQ(j["shapes"][0]["end"].get<Time>() - j["shapes"][0]["start"].get<Time>(), 120);
  EXPECT_TRUE(j["shapes"][0]["chosen"].get<bool>());
  EXPECT_GT(j["shapes"][1]["start"].get<Time>(), j["now"].get<Time>());
  EXPECT_FALSE(j["submitted"].get<bool>());
  EXPECT_TRUE(j["job_id"].is_null());
  EXPECT_EQ(j["sbatch_command_line"],
            "/bin/false --partition batch --nodes 4 --time 2 '--job-name=my job' "
            "--output=out/%j.log " +
                script + " 'a b'");

  // Without --json: the choice with Slurm durations, the script's --nodes
  // replaced, and the command on stderr, ready to paste.
  r = test::run_command(sa + "--dry-run -s 4x1-0 -s 16x2-0 " + script);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("#SBATCH --nodes=3 is replaced by the shape chosen"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("* 4 nodes x 1-00:00:00: start"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("would run: /bin/false --partition batch --nodes 4 --time 1-0 " + script), std::string::npos)
      << r.output;

  // No shape fits the 16 nodes: exit 1, and the document says so.
  r = test::run_command("(" + sa + "--json -p batch -s 32x1 " + script + " 2>/dev/null)");
  EXPECT_EQ(r.status, 1);
  const nlohmann::json none = nlohmann::json::parse(r.output);
  EXPECT_TRUE(none["chosen"].is_null());
  EXPECT_TRUE(none["shapes"][0]["start"].is_null());
  EXPECT_EQ(none["partition_from"], "-p");

  // sbatch's -N/-t are the shapes' business.
  r = test::run_command(sa + "-t 10 -s 4x2 " + script);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("--time: sa-submit sets it from the shape chosen"), std::string::npos) << r.output;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace los
