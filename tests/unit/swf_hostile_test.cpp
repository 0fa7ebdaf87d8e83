// The SWF reader against hostile and careless input (issue 19): huge times,
// numbers that do not fit, NUL bytes, endless lines. Each is a clear error
// naming file, line and field, or a counted drop; never a silent misread.
#include <gtest/gtest.h>
#include <zlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "test_support.hpp"
#include "workload/swf.hpp"

namespace los {
namespace {

// One SWF record whose fields are given as text, so tests can write values
// no integer type holds: job submit run size estimate.
std::string record(const std::string& id, const std::string& submit, const std::string& run,
                   const std::string& size = "2", const std::string& estimate = "20") {
  return id + " " + submit + " -1 " + run + " " + size + " -1 -1 " + size + " " + estimate + " -1 1 1 1 -1 1 1 -1 -1\n";
}

const std::string kHeader = "; MaxProcs: 8\n";

std::string error_of(const std::string& text) {
  try {
    parse_swf(text, "t.swf");
  } catch (const WorkloadError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error for:\n" << text.substr(0, 200);
  return "";
}

bool has(const std::string& text, const std::string& words) { return text.find(words) != std::string::npos; }

TEST(SwfHostile, HugeTimesAreRefusedNamingLineAndField) {
  std::string e = error_of(kHeader + record("1", "0", "10") + record("2", "3000000000000000000", "10"));
  EXPECT_TRUE(has(e, "t.swf:3: field 2 (submit time)")) << e;
  EXPECT_TRUE(has(e, "exceeds 2^50 s")) << e;

  e = error_of(kHeader + record("1", "0", "9223372036854775808"));  // 2^63: was "unknown run time"
  EXPECT_TRUE(has(e, "t.swf:2: field 4 (run time)")) << e;
  EXPECT_TRUE(has(e, "does not fit a 64-bit integer")) << e;

  e = error_of(kHeader + record("1", "0", "10", "2", "1e17"));
  EXPECT_TRUE(has(e, "field 9 (requested time)")) << e;
  EXPECT_TRUE(has(e, "exceeds 2^50 s")) << e;

  e = error_of(kHeader + record("1", "1e30", "10"));  // was "negative submit time -9223372036854775808"
  EXPECT_TRUE(has(e, "field 2 (submit time)")) << e;
  EXPECT_FALSE(has(e, "negative")) << e;
  EXPECT_TRUE(has(e, "'1e30' does not fit a 64-bit integer")) << e;
}

TEST(SwfHostile, TimesUpToTheBoundAreKept) {
  const std::string max = std::to_string(kTimeMax);
  const Workload w = parse_swf(kHeader + record("1", max, max, "2", max), "t.swf");
  ASSERT_EQ(w.jobs.size(), 1u);
  EXPECT_EQ(w.jobs[0].submit, kTimeMax);
  EXPECT_EQ(w.jobs[0].runtime, kTimeMax);
  EXPECT_EQ(w.jobs[0].estimate, kTimeMax);
  const std::string past = std::to_string(kTimeMax + 1);
  EXPECT_TRUE(has(error_of(kHeader + record("1", past, "1")), "field 2 (submit time)"));
  EXPECT_TRUE(has(error_of(kHeader + record("1", "0", past)), "field 4 (run time)"));
}

TEST(SwfHostile, IntegerFieldsDoNotWrap) {
  // A job id past 2^53 stays exact (no rounding through a double).
  const Workload w = parse_swf(kHeader + record("9007199254740993", "0", "10"), "t.swf");
  ASSERT_EQ(w.jobs.size(), 1u);
  EXPECT_EQ(w.jobs[0].id, 9007199254740993LL);
  std::string e = error_of(kHeader + record("99999999999999999999", "0", "10"));
  EXPECT_TRUE(has(e, "field 1 (job number)")) << e;
  e = error_of(kHeader + "1 0 -1 10 2 -1 -1 2 20 -1 1 4294967297 1 -1 1 1 -1 -1\n");  // user id 2^32 + 1
  EXPECT_TRUE(has(e, "field 12 (user id)")) << e;
  EXPECT_TRUE(has(e, "outside [-2147483648, 2147483647]")) << e;
  e = error_of(kHeader + record("1", "0", "10", "1e300"));
  EXPECT_TRUE(has(e, "field 5 (allocated processors)")) << e;
}

TEST(SwfHostile, HugeMaxProcsIsAnError) {
  const std::string e = error_of("; MaxProcs: 99999999999999\n" + record("1", "0", "10"));
  EXPECT_TRUE(has(e, "t.swf:1: header MaxProcs:")) << e;  // was machine size 276447231
  EXPECT_TRUE(has(e, "99999999999999")) << e;
  EXPECT_TRUE(has(error_of("; MaxNodes: 2147483648\n" + record("1", "0", "10")), "MaxNodes"));
  EXPECT_EQ(parse_swf("; MaxProcs: 2147483647\n" + record("1", "0", "10"), "t.swf").units, 2147483647);
  EXPECT_EQ(parse_swf("; MaxProcs:\t64 (4 per node)\n" + record("1", "0", "10"), "t.swf").units, 64);
}

TEST(SwfHostile, UnknownSubmitTimeIsDroppedAndCounted) {
  const Workload w =
      parse_swf(kHeader + record("1", "-1", "10") + record("2", "5", "10") + record("3", "-1", "20"), "t.swf");
  ASSERT_EQ(w.jobs.size(), 1u);
  EXPECT_EQ(w.jobs[0].id, 2);
  EXPECT_EQ(w.cleaning.records, 3u);
  EXPECT_EQ(w.cleaning.dropped_unknown_submit, 2u);
  EXPECT_EQ(w.cleaning.dropped(), 2u);
  const std::string e = error_of(kHeader + record("1", "-2", "10"));
  EXPECT_TRUE(has(e, "t.swf:2: field 2 (submit time): negative submit time -2")) << e;
}

TEST(SwfHostile, NulByteIsAnErrorNotALostRecord) {
  const std::string text =
      kHeader + std::string("; a comment \0 with a NUL\n", 25) + record("1", "0", "10") + record("2", "5", "10");
  std::string e = error_of(text);
  EXPECT_TRUE(has(e, "t.swf:2: column 13: NUL byte")) << e;

  // The same bytes from a file (the reader that used to lose job 1).
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("los-nul-" + std::to_string(::getpid()) + ".swf");
  {
    std::ofstream f(path, std::ios::binary);
    f << text;
  }
  try {
    read_swf(path.string());
    ADD_FAILURE() << "a NUL byte was accepted";
  } catch (const WorkloadError& x) {
    EXPECT_TRUE(has(x.what(), ".swf:2: column 13: NUL byte")) << x.what();
  }
  std::filesystem::remove(path);
}

TEST(SwfHostile, LongLinesAreBoundedAndQuotedShort) {
  // Right at the bound: a record padded with blanks is still read.
  std::string padded = record("1", "0", "10");
  padded.pop_back();
  padded.append(kSwfMaxLineBytes - padded.size(), ' ');
  EXPECT_EQ(parse_swf(kHeader + padded + "\n", "t.swf").jobs.size(), 1u);

  std::string e = error_of(kHeader + padded + " \n");
  EXPECT_TRUE(has(e, "t.swf:2: line longer than 65536 bytes")) << e.substr(0, 300);
  EXPECT_LT(e.size(), 250u) << "the message echoes the line";

  // A huge token in a short-enough line is quoted by its first 80 bytes.
  e = error_of(kHeader + record(std::string(30000, 'x'), "0", "10"));
  EXPECT_TRUE(has(e, "not a number: '" + std::string(80, 'x') + "'... (30000 bytes)")) << e.substr(0, 300);
  EXPECT_LT(e.size(), 250u);
  // Unprintable bytes are escaped, not written to the terminal.
  e = error_of(kHeader + record("1\x1b[2J", "0", "10"));
  EXPECT_TRUE(has(e, "'1\\x1b[2J'")) << e;
}

TEST(SwfHostile, AGzipOfOneEndlessLineStopsEarly) {
  // 256 MiB of 'x' without a newline compress to about 250 KiB; the reader
  // must stop at the line bound instead of inflating it all.
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("los-long-" + std::to_string(::getpid()) + ".swf.gz");
  {
    gzFile gz = gzopen(path.c_str(), "wb9");
    ASSERT_NE(gz, nullptr);
    gzputs(gz, "; MaxProcs: 8\n");
    const std::string block(1 << 20, 'x');
    for (int i = 0; i < 256; ++i) ASSERT_EQ(gzwrite(gz, block.data(), block.size()), static_cast<int>(block.size()));
    gzclose(gz);
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::string e;
  try {
    read_swf(path.string());
  } catch (const WorkloadError& x) {
    e = x.what();
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::filesystem::remove(path);
  EXPECT_TRUE(has(e, ".swf.gz:2: line longer than 65536 bytes")) << e.substr(0, 300);
  EXPECT_LT(e.size(), 300u);
  EXPECT_LT(seconds, 0.5) << "read far past the line bound";
}

TEST(SwfHostile, TimesThatAddUpPastThePlannerStopTheSimulation) {
  // Every value is within the bound, but 1100 machine-wide jobs of 2^50 s in
  // a row carry the clock past 2^60 s: the simulator spun forever there.
  std::vector<Job> jobs;
  for (int i = 1; i <= 1100; ++i) jobs.push_back(test::job(i, 0, 4, kTimeMax));
  const Workload w = test::workload(4, jobs);
  for (const char* policy : {"fcfs", "easy", "conservative"}) {
    try {
      test::run(w, policy);
      ADD_FAILURE() << policy << ": no error";
    } catch (const SimulationError& e) {
      EXPECT_TRUE(has(e.what(), "the simulated clock passed 2^60 s")) << e.what();
    }
  }
  // Below the limit the same jobs simulate normally.
  jobs.resize(1000);
  const SimResult r = test::run(test::workload(4, jobs), "easy");
  EXPECT_EQ(test::start_of(r, 1000), 999 * kTimeMax);
}

TEST(SwfHostile, LosSimRefusesAHugeSubmitTimeQuickly) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("los-huge-" + std::to_string(::getpid()) + ".swf");
  {
    std::ofstream f(path);
    f << kHeader << record("1", "0", "10") << record("2", "3e18", "10");
  }
  for (const char* policy : {"fcfs", "easy"}) {  // fcfs spun forever, easy overflowed the heap
    const test::CommandResult r = test::run_command("timeout 20 " + std::string(LOS_BIN_DIR) + "/los-sim --policy " +
                                                    policy + " " + path.string() + " 2>&1");
    EXPECT_NE(r.status, 0) << policy;
    EXPECT_NE(r.status, 124) << policy << ": timed out";
    EXPECT_TRUE(has(r.output, ".swf:3: field 2 (submit time)")) << r.output;
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace los
