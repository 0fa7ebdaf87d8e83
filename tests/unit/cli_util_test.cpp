// What the tools print: Slurm durations and shell-quoted commands.
#include <gtest/gtest.h>

#include "util/cli.hpp"

namespace los {
namespace {

TEST(SlurmDuration, AsSqueuePrintsIt) {
  EXPECT_EQ(slurm_duration(0), "0:00");
  EXPECT_EQ(slurm_duration(42), "0:42");
  EXPECT_EQ(slurm_duration(12 * 60), "12:00");
  EXPECT_EQ(slurm_duration(3600), "1:00:00");
  EXPECT_EQ(slurm_duration(86399), "23:59:59");
  EXPECT_EQ(slurm_duration(86400), "1-00:00:00");
  EXPECT_EQ(slurm_duration(2 * 86400 + 3 * 3600 + 4 * 60 + 5), "2-03:04:05");
  EXPECT_EQ(slurm_duration(-90), "-1:30");
}

TEST(ShellQuote, PlainWordsStayAndOthersAreQuoted) {
  EXPECT_EQ(shell_quote("--output=/x/%j.out"), "--output=/x/%j.out");
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote(""), "''");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote("$HOME"), "'$HOME'");
  EXPECT_EQ(shell_quote("~/x"), "'~/x'");
  EXPECT_EQ(shell_quote("a*"), "'a*'");
  EXPECT_EQ(shell_command({"sbatch", "--job-name=my job", "job.sh", "x;y"}), "sbatch '--job-name=my job' job.sh 'x;y'");
}

TEST(ShellQuote, WhatTheShellReadsBackIsTheWord) {
  for (const std::string word : {"a b", "it's", "'", "\"q\"", "$(rm -rf /)", "back\\slash", "tab\there", "%1"}) {
    FILE* f = ::popen(("printf '%s' " + shell_quote(word)).c_str(), "r");
    ASSERT_TRUE(f);
    char buf[256];
    const std::size_t n = std::fread(buf, 1, sizeof buf, f);
    ::pclose(f);
    EXPECT_EQ(std::string(buf, n), word);
  }
}

}  // namespace
}  // namespace los
