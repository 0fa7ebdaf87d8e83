// sa-experiments as scripts/results/sa.sh runs it: the real binary on a small
// machine, its records checked for internal consistency, and its usage errors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace los {
namespace {

test::CommandResult sa_experiments(const std::string& args) {
  return test::run_command(std::string(LOS_BIN_DIR) + "/sa-experiments " + args);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) out.push_back(cur);
  return out;
}

std::vector<long long> numbers(const std::string& s) {
  std::vector<long long> out;
  for (const std::string& x : split(s, ',')) out.push_back(std::stoll(x));
  return out;
}

TEST(SaExperimentsCli, RecordsAreConsistent) {
  if (!std::filesystem::exists(std::string(LOS_BIN_DIR) + "/sa-experiments")) GTEST_SKIP() << "not built";
  const test::CommandResult r = sa_experiments("--jobs 400 --nodes 64 --workloads 2 --targets 5 --out -");
  ASSERT_EQ(r.status, 0) << r.output;
  int targets = 0, workloads = 0;
  for (const std::string& line : split(r.output, '\n')) {
    if (line.rfind("target\t", 0) == 0) {
      const std::vector<std::string> f = split(line, '\t');
      ASSERT_EQ(f.size(), 19u) << line;
      const std::size_t v = std::stoul(f[5]), user = std::stoul(f[6]), sa = std::stoul(f[7]);
      const std::vector<long long> tt = numbers(f[13]), bound = numbers(f[14]);
      ASSERT_EQ(tt.size(), v);
      ASSERT_EQ(bound.size(), v);
      ASSERT_LT(user, v);
      ASSERT_LT(sa, v);
      const long long submit = std::stoll(f[4]);
      for (std::size_t k = 0; k < v; ++k) {
        EXPECT_GT(tt[k], 0) << line;
        EXPECT_LE(submit + tt[k], bound[k]) << "shape " << k << " ended after its reservation: " << line;
      }
      // SA's choice has the earliest completion bound of all shapes.
      EXPECT_EQ(bound[sa], *std::min_element(bound.begin(), bound.end())) << line;
      EXPECT_GT(std::stoll(f[16]), 0);  // tt of SA in the adaptive workload
      EXPECT_GT(std::stoll(f[17]), 0);  // tt of the user request there
      ++targets;
    } else if (line.rfind("workload\t", 0) == 0) {
      ++workloads;
    }
  }
  EXPECT_EQ(targets, 10);
  EXPECT_EQ(workloads, 2);
  // Deterministic: the same arguments give the same records.
  EXPECT_EQ(sa_experiments("--jobs 400 --nodes 64 --workloads 2 --targets 5 --out -").output, r.output);
}

TEST(SaExperimentsCli, BadUsageExitsWithTwoAndNamesTheOption) {
  if (!std::filesystem::exists(std::string(LOS_BIN_DIR) + "/sa-experiments")) GTEST_SKIP() << "not built";
  test::CommandResult r = sa_experiments("--workloads 2");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("--out"), std::string::npos) << r.output;
  r = sa_experiments("--out - --targets 0");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("--targets"), std::string::npos) << r.output;
  r = sa_experiments("--out - --policy nosuch");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("nosuch"), std::string::npos) << r.output;
  r = sa_experiments("--out /nonexistent-dir/x.tsv --jobs 10 --nodes 8 --targets 1");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("/nonexistent-dir/x.tsv"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace los
