// The SWF reader: real-trace dirt is cleaned and counted; malformed input is
// an error naming file, line and field.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "workload/swf.hpp"
#include "workload/transform.hpp"

namespace los {
namespace {

// One SWF line: job submit wait run alloc cpu mem req_procs req_time req_mem status user group exe queue part prec think
std::string line(long long id, long long submit, long long run, long long alloc, long long req_procs,
                 long long req_time, int status = 1, int user = 1) {
  std::ostringstream o;
  o << id << " " << submit << " -1 " << run << " " << alloc << " -1 -1 " << req_procs << " " << req_time << " -1 "
    << status << " " << user << " 1 -1 1 1 -1 -1\n";
  return o.str();
}

std::string expect_error(const std::string& text) {
  try {
    parse_swf(text, "t.swf");
  } catch (const WorkloadError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error for:\n" << text;
  return "";
}

TEST(Swf, HeaderGivesMachineSize) {
  Workload w = parse_swf("; MaxNodes: 64\n; MaxProcs: 128\n" + line(1, 0, 10, 4, 4, 20), "t.swf");
  EXPECT_EQ(w.units, 128);  // MaxProcs wins: sizes count processors
  w = parse_swf("; MaxNodes: 64\n" + line(1, 0, 10, 4, 4, 20), "t.swf");
  EXPECT_EQ(w.units, 64);
  SwfReadOptions o;
  o.units = 16;
  w = parse_swf("; MaxProcs: 128\n" + line(1, 0, 10, 4, 4, 20), "t.swf", o);
  EXPECT_EQ(w.units, 16);  // --nodes overrides
  EXPECT_NE(expect_error(line(1, 0, 10, 4, 4, 20)).find("machine size is unknown"), std::string::npos);
}

TEST(Swf, CleansRealTraceDirt) {
  const std::string text = "; MaxProcs: 8\n" + line(1, 0, 100, 4, -1, 200) +  // requested -1: use allocated
                           line(2, 5, 100, 0, 0, 200) +                       // size 0: dropped
                           line(3, 6, 100, 16, 16, 200) +                     // larger than the machine: dropped
                           line(4, 7, 300, 2, 2, 200) +                       // runs past its estimate
                           line(5, 8, 50, 2, 2, -1) +                         // no estimate: the run time
                           line(6, 3, 0, 2, 2, 60) +                          // out of order; cancelled (run 0)
                           line(7, 9, -1, -1, 2, 60, 5) +                     // cancelled before running: dropped
                           line(8, 9, -1, 2, 2, 60, 1);                       // unknown run time: dropped
  const Workload w = parse_swf(text, "t.swf");
  const CleaningReport& c = w.cleaning;
  EXPECT_EQ(c.records, 8u);
  EXPECT_EQ(c.size_from_allocated, 1u);
  EXPECT_EQ(c.dropped_zero_size, 1u);
  EXPECT_EQ(c.dropped_oversize, 1u);
  EXPECT_EQ(c.dropped_unknown_runtime, 1u);
  EXPECT_EQ(c.dropped_cancelled, 1u);
  EXPECT_EQ(c.dropped(), 4u);
  EXPECT_EQ(c.runtime_over_estimate, 1u);
  EXPECT_EQ(c.estimate_from_runtime, 1u);
  EXPECT_EQ(c.cancelled, 1u);
  EXPECT_EQ(c.out_of_order, 1u);
  ASSERT_EQ(w.jobs.size(), 4u);
  // Sorted by submit time, stable.
  std::vector<JobId> ids;
  for (const Job& j : w.jobs) ids.push_back(j.id);
  EXPECT_EQ(ids, (std::vector<JobId>{1, 6, 4, 5}));
  EXPECT_EQ(w.jobs[0].size, 4);
  EXPECT_EQ(w.jobs[2].runtime, 300);
  EXPECT_EQ(w.jobs[2].estimate, 200);
  EXPECT_EQ(w.jobs[3].estimate, 50);
  // Killed at the estimate by default: the effective run time.
  EXPECT_EQ(effective_runtime(w.jobs[2], true), 200);
  EXPECT_EQ(effective_runtime(w.jobs[2], false), 300);
}

// A record cancelled before it ran (run time -1, status 5) used no
// processors: dropped and counted by default, kept as a zero-length waiting
// job on request. Only that record: a status-5 job that ran is kept as is.
TEST(Swf, CancelledBeforeRunningIsDroppedUnlessKept) {
  const std::string text = "; MaxProcs: 8\n" + line(1, 0, 100, 2, 2, 200) +  // ran
                           line(2, 5, -1, -1, 4, 600, 5) +                   // cancelled while waiting
                           line(3, 6, 30, 2, 2, 200, 5) +                    // cancelled while running: ran 30 s
                           line(4, 7, -1, 2, 2, 200, 0);                     // failed, run time unknown
  const Workload dropped = parse_swf(text, "t.swf");
  EXPECT_EQ(dropped.cleaning.records, 4u);
  EXPECT_EQ(dropped.cleaning.dropped_cancelled, 1u);
  EXPECT_EQ(dropped.cleaning.dropped_unknown_runtime, 1u);
  EXPECT_EQ(dropped.cleaning.dropped(), 2u);
  ASSERT_EQ(dropped.jobs.size(), 2u);
  EXPECT_EQ(dropped.jobs[0].id, 1);
  EXPECT_EQ(dropped.jobs[1].id, 3);
  EXPECT_EQ(dropped.jobs[1].runtime, 30);

  SwfReadOptions keep;
  keep.cancelled = CancelledRecords::Keep;
  const Workload kept = parse_swf(text, "t.swf", keep);
  EXPECT_EQ(kept.cleaning.dropped_cancelled, 0u);
  EXPECT_EQ(kept.cleaning.dropped(), 1u);
  EXPECT_EQ(kept.cleaning.cancelled, 1u);
  ASSERT_EQ(kept.jobs.size(), 3u);
  EXPECT_EQ(kept.jobs[1].id, 2);
  EXPECT_EQ(kept.jobs[1].runtime, 0);
  EXPECT_EQ(kept.jobs[1].size, 4);
  EXPECT_EQ(kept.jobs[1].estimate, 600);
}

// --cancelled=withdraw: a record cancelled before it ran keeps its size and
// estimate, run time 0, and its wait field as the cancel lag; with wait -1
// (its cancel time unknown) it is dropped under its own count.
TEST(Swf, CancelledBeforeRunningWithdrawnKeepsItsCancelTime) {
  auto with_wait = [](std::string record, long long wait) {
    const std::size_t a = record.find(' '), b = record.find(' ', a + 1), c = record.find(' ', b + 1);
    return record.replace(b + 1, c - b - 1, std::to_string(wait));
  };
  const std::string text = "; MaxProcs: 8\n" + line(1, 0, 100, 2, 2, 200) +  // ran
                           with_wait(line(2, 5, -1, -1, 4, 600, 5), 250) +   // cancelled after 250 s
                           with_wait(line(3, 6, -1, -1, 2, 300, 5), -1) +    // cancel time unknown
                           with_wait(line(4, 7, 30, 2, 2, 200, 5), 40);      // ran 30 s: kept as is
  SwfReadOptions withdraw;
  withdraw.cancelled = CancelledRecords::Withdraw;
  const Workload w = parse_swf(text, "t.swf", withdraw);
  EXPECT_EQ(w.cleaning.dropped_cancelled, 0u);
  EXPECT_EQ(w.cleaning.dropped_cancel_time_unknown, 1u);
  EXPECT_EQ(w.cleaning.dropped(), 1u);
  EXPECT_EQ(w.cleaning.withdrawn, 1u);
  EXPECT_EQ(w.cleaning.cancelled, 0u);
  ASSERT_EQ(w.jobs.size(), 3u);
  EXPECT_EQ(w.jobs[0].cancel_lag, -1);
  EXPECT_EQ(w.jobs[1].id, 2);
  EXPECT_EQ(w.jobs[1].cancel_lag, 250);
  EXPECT_EQ(w.jobs[1].runtime, 0);
  EXPECT_EQ(w.jobs[1].size, 4);
  EXPECT_EQ(w.jobs[1].estimate, 600);
  EXPECT_EQ(w.jobs[2].id, 4);
  EXPECT_EQ(w.jobs[2].cancel_lag, -1);
  EXPECT_EQ(w.jobs[2].runtime, 30);
  // The default reading ignores the wait field; withdraw refuses a bad one.
  EXPECT_EQ(parse_swf(text, "t.swf").jobs.size(), 2u);
  try {
    parse_swf("; MaxProcs: 8\n" + with_wait(line(2, 5, -1, -1, 4, 600, 5), -7), "t.swf", withdraw);
    ADD_FAILURE() << "no error for wait -7";
  } catch (const WorkloadError& e) {
    EXPECT_NE(std::string(e.what()).find("field 3 (wait time): negative wait time -7"), std::string::npos) << e.what();
  }
}

TEST(Swf, MalformedInputNamesFileLineAndField) {
  const std::string h = "; MaxProcs: 8\n";
  std::string e = expect_error(h + line(1, 0, 10, 2, 2, 20) + "2 5 -1 abc 2 -1 -1 2 20 -1 1 1 1 -1 1 1 -1 -1\n");
  EXPECT_NE(e.find("t.swf:3: field 4 (run time): not a number: 'abc'"), std::string::npos) << e;
  e = expect_error(h + "1 0 -1 10 2 -1 -1 2 20\n");
  EXPECT_NE(e.find("t.swf:2: expected 18 fields, found 9"), std::string::npos) << e;
  e = expect_error(h + line(1, 0, 10, 2, -4, 20));
  EXPECT_NE(e.find("t.swf:2: field 8 (requested processors): negative size -4"), std::string::npos) << e;
  e = expect_error(h + line(1, -5, 10, 2, 2, 20));
  EXPECT_NE(e.find("t.swf:2: field 2 (submit time)"), std::string::npos) << e;
  e = expect_error(h + line(1, 0, 10, 2, 2, 20) + line(1, 3, 10, 2, 2, 20));
  EXPECT_NE(e.find("t.swf:3: field 1 (job number): job 1 appears twice"), std::string::npos) << e;
}

class SwfFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("los-swf-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write_gz(const std::string& name, const std::string& text) {
    const std::string p = (dir_ / name).string();
    gzFile f = gzopen(p.c_str(), "wb");
    gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
    gzclose(f);
    return p;
  }
  std::filesystem::path dir_;
};

TEST_F(SwfFiles, ReadsPlainAndGzip) {
  std::string text = "; MaxProcs: 32\n";
  for (int i = 1; i <= 500; ++i) text += line(i, i * 10, 100, 1 + i % 32, 1 + i % 32, 200);
  const std::string gz = write_gz("t.swf.gz", text);
  const std::string plain = (dir_ / "t.swf").string();
  std::ofstream(plain) << text;
  const Workload a = read_swf(gz), b = read_swf(plain);
  EXPECT_EQ(a.jobs.size(), 500u);
  EXPECT_EQ(b.jobs.size(), 500u);
  EXPECT_EQ(a.units, 32);
  EXPECT_EQ(a.jobs.back().submit, 5000);
}

TEST_F(SwfFiles, TruncatedGzipIsAnError) {
  std::string text = "; MaxProcs: 32\n";
  for (int i = 1; i <= 20000; ++i) text += line(i, i * 10, 100 + i, 1 + i % 32, 1 + i % 32, 20000);
  const std::string gz = write_gz("full.swf.gz", text);
  const auto size = std::filesystem::file_size(gz);
  std::filesystem::resize_file(gz, size / 2);
  try {
    read_swf(gz);
    FAIL() << "a truncated gzip file was read without error";
  } catch (const WorkloadError& e) {
    EXPECT_NE(std::string(e.what()).find("truncated or corrupt gzip"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(gz + ":"), std::string::npos) << e.what();
  }
}

TEST_F(SwfFiles, MissingFileIsAnError) {
  try {
    read_swf((dir_ / "nope.swf").string());
    FAIL();
  } catch (const WorkloadError& e) {
    EXPECT_NE(std::string(e.what()).find("nope.swf: cannot open"), std::string::npos) << e.what();
  }
}

TEST(Swf, WriterRoundTrips) {
  Workload w =
      parse_swf("; MaxProcs: 8\n" + line(1, 0, 100, 4, 4, 200, 1, 7) + line(2, 5, 30, 2, 2, 60, 1, 9), "t.swf");
  std::vector<SwfRecord> recs;
  for (const Job& j : w.jobs) recs.push_back(swf_record(j));
  std::ostringstream out;
  write_swf(out, {"MaxProcs: 8"}, recs);
  const Workload back = parse_swf(out.str(), "back.swf");
  ASSERT_EQ(back.jobs.size(), 2u);
  EXPECT_EQ(back.units, 8);
  EXPECT_EQ(back.jobs[1].user, 9);
  EXPECT_EQ(back.jobs[1].runtime, 30);
  EXPECT_EQ(back.jobs[1].estimate, 60);
}

TEST(Transform, LoadScalingAndWindows) {
  // 4 units, jobs of 2 units x 100 s every 100 s: load = 2*100*5 / (4*400) = 0.625.
  std::string text = "; MaxProcs: 4\n";
  for (int i = 0; i < 5; ++i) text += line(i + 1, i * 100, 100, 2, 2, 100);
  Workload w = parse_swf(text, "t.swf");
  EXPECT_DOUBLE_EQ(offered_load(w, true), 0.625);
  const double f = scale_to_load(w, 1.25, true);
  EXPECT_DOUBLE_EQ(f, 0.5);
  EXPECT_EQ(w.jobs.back().submit, 200);
  EXPECT_DOUBLE_EQ(offered_load(w, true), 1.25);
  scale_runtimes(w, 1.5);
  EXPECT_EQ(w.jobs[0].runtime, 150);
  EXPECT_EQ(w.jobs[0].estimate, 150);
  cut_window(w, 1, 2);
  ASSERT_EQ(w.jobs.size(), 2u);
  EXPECT_EQ(w.jobs[0].id, 2);
  EXPECT_EQ(w.jobs[1].id, 3);
}

TEST(Transform, SizesMoveToASmallerMachineRoundedToTheNearestAtLeastOne) {
  // 128 units to 32: x 0.25. 1 -> 0.25 -> 1 (at least one), 2 -> 0.5 -> 1
  // (halves up), 6 -> 1.5 -> 2, 7 -> 1.75 -> 2, 100 -> 25, 128 -> 32.
  std::string text = "; MaxProcs: 128\n";
  const int sizes[] = {1, 2, 6, 7, 100, 128};
  for (int i = 0; i < 6; ++i) text += line(i + 1, i * 10, 100, sizes[i], sizes[i], 100);
  Workload w = parse_swf(text, "t.swf");
  scale_sizes(w, 32);
  EXPECT_EQ(w.units, 32);
  const int want[] = {1, 1, 2, 2, 25, 32};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(w.jobs[i].size, want[i]) << "size " << sizes[i];
  // Up to a larger machine: 32 -> 64 doubles, and never past the machine.
  scale_sizes(w, 64);
  EXPECT_EQ(w.jobs[5].size, 64);
  EXPECT_EQ(w.jobs[0].size, 2);
  EXPECT_THROW(scale_sizes(w, 0), WorkloadError);
}

TEST(Transform, JitterAddsUpToItsBoundToEverySubmitAndKeepsTheJobsSorted) {
  // 50 jobs one second apart, jittered by [0, 30): many overtake each other.
  std::string text = "; MaxProcs: 4\n";
  for (int i = 0; i < 50; ++i) text += line(i + 1, 1000 + i, 100, 2, 2, 100);
  const Workload original = parse_swf(text, "t.swf");
  Workload w = original;
  jitter_submits(w, 30, 7);
  ASSERT_EQ(w.jobs.size(), original.jobs.size());
  bool reordered = false;
  std::set<Time> offsets;
  for (std::size_t k = 0; k < w.jobs.size(); ++k) {
    const Job& j = w.jobs[k];
    const Time offset = j.submit - original.jobs[static_cast<std::size_t>(j.id - 1)].submit;
    EXPECT_GE(offset, 0) << "job " << j.id;
    EXPECT_LT(offset, 30) << "job " << j.id;
    offsets.insert(offset);
    if (k > 0) {
      EXPECT_LE(w.jobs[k - 1].submit, j.submit);
    }
    reordered = reordered || j.id != static_cast<JobId>(k + 1);
  }
  EXPECT_TRUE(reordered);
  EXPECT_GT(offsets.size(), 15u);  // not one shift for all
  // The same seed gives the same jobs; another seed other submit times.
  Workload again = original;
  jitter_submits(again, 30, 7);
  Workload other = original;
  jitter_submits(other, 30, 8);
  bool differs = false;
  for (std::size_t k = 0; k < w.jobs.size(); ++k) {
    EXPECT_EQ(again.jobs[k].id, w.jobs[k].id);
    EXPECT_EQ(again.jobs[k].submit, w.jobs[k].submit);
    differs = differs || other.jobs[k].submit != w.jobs[k].submit;
  }
  EXPECT_TRUE(differs);
  // Equal submit times keep the workload's order (a stable sort), and a bound
  // of 0 or 1 changes nothing.
  Workload same = original;
  jitter_submits(same, 1, 7);
  jitter_submits(same, 0, 7);
  for (std::size_t k = 0; k < same.jobs.size(); ++k) EXPECT_EQ(same.jobs[k].submit, original.jobs[k].submit);
  std::string ties = "; MaxProcs: 4\n";
  for (int i = 0; i < 20; ++i) ties += line(i + 1, 500, 100, 2, 2, 100);
  Workload tied = parse_swf(ties, "t.swf");
  jitter_submits(tied, 1, 3);
  for (std::size_t k = 0; k < tied.jobs.size(); ++k) EXPECT_EQ(tied.jobs[k].id, static_cast<JobId>(k + 1));
}

}  // namespace
}  // namespace los
