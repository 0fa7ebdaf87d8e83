// The Lublin-Feitelson generator against the statistics the spec lists
// (../shared/specs/pect-search.md, sections 10.2 and 11): the typeless job mix
// of the published synthetic workloads (Table 5), the size model's serial and
// power-of-two shares, the size-runtime correlation and the daily cycle.
#include "workload/lublin.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "test_support.hpp"
#include "workload/models.hpp"

namespace los {
namespace {

constexpr std::size_t kLargeSample = 200000;

// Runtime classes of the spec: short < 600 s, medium 600-10800 s, long above.
int runtime_class(Time runtime) { return runtime < 600 ? 0 : (runtime <= 10800 ? 1 : 2); }

struct ClassStats {
  double jobs_pct[3] = {0, 0, 0};
  double work_pct[3] = {0, 0, 0};
  double mean_size[3] = {0, 0, 0};
  double mean_interarrival = 0;
};

ClassStats class_stats(const Workload& w) {
  double n[3] = {0, 0, 0}, work[3] = {0, 0, 0}, size[3] = {0, 0, 0};
  for (const Job& j : w.jobs) {
    const int c = runtime_class(j.runtime);
    n[c] += 1;
    work[c] += static_cast<double>(j.runtime) * j.size;
    size[c] += j.size;
  }
  ClassStats s;
  const double total_n = n[0] + n[1] + n[2];
  const double total_work = work[0] + work[1] + work[2];
  for (int c = 0; c < 3; ++c) {
    s.jobs_pct[c] = 100 * n[c] / total_n;
    s.work_pct[c] = 100 * work[c] / total_work;
    s.mean_size[c] = size[c] / n[c];
  }
  s.mean_interarrival = static_cast<double>(w.jobs.back().submit - w.jobs.front().submit) / (w.jobs.size() - 1);
  return s;
}

LublinWorkload large(std::uint64_t seed, LublinParameters p = LublinParameters::Typeless) {
  LublinOptions o;
  o.jobs = kLargeSample;
  o.seed = seed;
  o.parameters = p;
  return generate_lublin(o);
}

// Table 5 (five 10 000-job workloads, M = 128): 63-65% / 19-20% / 16-17% of
// jobs short / medium / long; 0.4-0.5% / 25-27% / 72.5-74.5% of the work;
// sizes 8-9 / 16-18 / 19-21. A 200 000-job sample has a standard error of
// about 0.1 point on a share, so the bands below are the table's, widened only
// where its rounding to whole numbers demands.
TEST(Lublin, TypelessJobMixMatchesThePublishedWorkloads) {
  for (std::uint64_t seed : {71u, 31u}) {
    const ClassStats s = class_stats(large(seed).workload);
    EXPECT_GE(s.jobs_pct[0], 63.0) << seed;
    EXPECT_LE(s.jobs_pct[0], 65.0) << seed;
    EXPECT_GE(s.jobs_pct[1], 19.0) << seed;
    EXPECT_LE(s.jobs_pct[1], 20.0) << seed;
    EXPECT_GE(s.jobs_pct[2], 16.0) << seed;
    EXPECT_LE(s.jobs_pct[2], 17.0) << seed;
    EXPECT_NEAR(s.work_pct[0], 0.5, 0.15) << seed;
    EXPECT_GE(s.work_pct[1], 24.5) << seed;
    EXPECT_LE(s.work_pct[1], 27.5) << seed;
    EXPECT_GE(s.work_pct[2], 72.0) << seed;
    EXPECT_LE(s.work_pct[2], 75.0) << seed;
    EXPECT_GE(s.mean_size[0], 8.0) << seed;
    EXPECT_LE(s.mean_size[0], 9.5) << seed;
    EXPECT_GE(s.mean_size[1], 15.5) << seed;
    EXPECT_LE(s.mean_size[1], 18.0) << seed;
    EXPECT_GE(s.mean_size[2], 19.0) << seed;
    EXPECT_LE(s.mean_size[2], 21.5) << seed;
    // The spec's calibration: mean inter-arrival 819-1020 s over seeds (the
    // thesis's own workloads, 797-859 s, were slightly more loaded).
    EXPECT_GE(s.mean_interarrival, 800) << seed;
    EXPECT_LE(s.mean_interarrival, 1030) << seed;
  }
}

TEST(Lublin, SizesAreSerialPowerOfTwoOrOther) {
  const Workload w = large(5).workload;
  double serial = 0, pow2 = 0;
  int largest = 0;
  for (const Job& j : w.jobs) {
    ASSERT_GE(j.size, 1);
    ASSERT_LE(j.size, 128);
    serial += j.size == 1;
    pow2 += (j.size & (j.size - 1)) == 0;
    largest = std::max(largest, j.size);
  }
  const double n = static_cast<double>(w.jobs.size());
  // Parallel jobs have at least 2^0.8 -> 2 nodes, so every size-1 job is a serial draw.
  EXPECT_NEAR(serial / n, 0.244, 0.004);
  // 24.4% serial + 57.6% power-of-two draws, plus the other draws that round onto a power of two.
  EXPECT_GE(pow2 / n, 0.244 + 0.576);
  EXPECT_LE(pow2 / n, 0.90);
  EXPECT_EQ(largest, 128);
}

TEST(Lublin, SizeParametersFollowTheMachineSize) {
  for (int nodes : {100, 1024}) {
    LublinOptions o;
    o.jobs = 50000;
    o.nodes = nodes;
    const Workload w = generate_lublin(o).workload;
    int largest = 0;
    double mean = 0;
    for (const Job& j : w.jobs) {
      largest = std::max(largest, j.size);
      mean += j.size;
    }
    mean /= static_cast<double>(w.jobs.size());
    EXPECT_LE(largest, nodes);
    EXPECT_GE(largest, nodes / 2);
    // log2 sizes shift with log2(M): the mean size scales roughly with M.
    EXPECT_NEAR(mean / nodes, 13.0 / 128, 0.03) << nodes;
  }
}

TEST(Lublin, RuntimeGrowsWithSize) {
  const Workload w = large(9).workload;
  double log_rt[2] = {0, 0}, count[2] = {0, 0}, long_jobs[2] = {0, 0};
  Time longest = 0;
  for (const Job& j : w.jobs) {
    ASSERT_GE(j.runtime, 1);
    ASSERT_EQ(j.estimate, j.runtime);
    longest = std::max(longest, j.runtime);
    const int g = j.size == 1 ? 0 : (j.size >= 32 ? 1 : -1);
    if (g < 0) continue;
    log_rt[g] += std::log(static_cast<double>(j.runtime));
    count[g] += 1;
    long_jobs[g] += runtime_class(j.runtime) == 2;
  }
  // p = clamp(-0.0054 n + 0.78): 77% short-component draws at n = 1, 61% at n = 32, fewer above.
  EXPECT_GT(log_rt[1] / count[1], log_rt[0] / count[0] + 1.0);
  EXPECT_GT(long_jobs[1] / count[1], 1.5 * long_jobs[0] / count[0]);
  EXPECT_LE(longest, static_cast<Time>(std::exp(12.0)));  // longer draws are redrawn
}

// Arrivals fall in half-hour bucket b with probability weight[b] / 48: heavy
// buckets pass slowly. Compared over 3-hour blocks of the day.
TEST(Lublin, ArrivalsFollowTheDailyCycle) {
  for (int start_hour : {0, 13}) {
    LublinOptions o;
    o.jobs = kLargeSample;
    o.start_hour = start_hour;
    const Workload w = generate_lublin(o).workload;
    const std::vector<double> weight = lublin_bucket_weights(lublin_typeless());
    double expected[8] = {0}, seen[8] = {0};
    for (int b = 0; b < 48; ++b) expected[b / 6] += weight[b] / 48;
    for (const Job& j : w.jobs) {
      const Time clock = (j.submit + start_hour * 3600) % 86400;
      seen[clock / 10800] += 1.0 / static_cast<double>(w.jobs.size());
    }
    for (int k = 0; k < 8; ++k) {
      EXPECT_NEAR(seen[k], expected[k], 0.05 * expected[k] + 0.002) << "block " << k << " start " << start_hour;
    }
  }
}

TEST(Lublin, DailyCycleWeightsPeakInTheAfternoon) {
  const std::vector<double> w = lublin_bucket_weights(lublin_typeless());
  ASSERT_EQ(w.size(), 48u);
  double sum = 0;
  for (double x : w) sum += x;
  EXPECT_NEAR(sum / 48, 1.0, 1e-12);
  const auto peak = std::max_element(w.begin(), w.end()) - w.begin();
  const auto trough = std::min_element(w.begin(), w.end()) - w.begin();
  EXPECT_GE(peak, 20);  // 10:00
  EXPECT_LE(peak, 32);  // 16:00
  EXPECT_GE(trough, 4);
  EXPECT_LE(trough, 16);
  EXPECT_GT(w[peak], 5 * w[trough]);
}

TEST(Lublin, BatchAndInteractiveStreams) {
  const LublinWorkload lw = large(71, LublinParameters::BatchInteractive);
  double batch = 0;
  int largest_interactive = 0;
  for (std::size_t i = 0; i < lw.workload.jobs.size(); ++i) {
    ASSERT_TRUE(lw.type[i] == kLublinBatch || lw.type[i] == kLublinInteractive);
    if (lw.type[i] == kLublinBatch) {
      batch += 1;
    } else {
      largest_interactive = std::max(largest_interactive, lw.workload.jobs[i].size);
    }
    if (i > 0) {
      ASSERT_LE(lw.workload.jobs[i - 1].submit, lw.workload.jobs[i].submit);
    }
  }
  const double n = static_cast<double>(lw.workload.jobs.size());
  EXPECT_GT(batch / n, 0.05);
  EXPECT_LT(batch / n, 0.5);
  EXPECT_LE(largest_interactive, 64);  // 2^5.5 = 45, or 2^6 for a power-of-two draw
  // Far more short jobs than the typeless fit (the spec measured 86.4% for seed 71).
  const ClassStats s = class_stats(lw.workload);
  EXPECT_GT(s.jobs_pct[0], 80.0);
}

TEST(Lublin, ArrivalScaleScalesInterArrivalTimes) {
  LublinOptions o;
  o.jobs = 50000;
  const double base = class_stats(generate_lublin(o).workload).mean_interarrival;
  o.arrival_scale = 0.5;
  const double half = class_stats(generate_lublin(o).workload).mean_interarrival;
  EXPECT_NEAR(half / base, 0.5, 0.05);
}

TEST(Lublin, SameSeedSameJobsOtherSeedOtherJobs) {
  LublinOptions o;
  o.jobs = 2000;
  o.seed = 12;
  const Workload a = generate_lublin(o).workload;
  const Workload b = generate_lublin(o).workload;
  ASSERT_EQ(a.jobs.size(), 2000u);
  for (std::size_t i = 0; i < a.jobs.size(); ++i) {
    ASSERT_EQ(a.jobs[i].id, static_cast<JobId>(i + 1));
    ASSERT_EQ(a.jobs[i].submit, b.jobs[i].submit);
    ASSERT_EQ(a.jobs[i].size, b.jobs[i].size);
    ASSERT_EQ(a.jobs[i].runtime, b.jobs[i].runtime);
    if (i > 0) {
      ASSERT_LE(a.jobs[i - 1].submit, a.jobs[i].submit);
    }
  }
  EXPECT_GT(a.jobs.front().submit, 0);  // the first job arrives at its first generated time
  o.seed = 13;
  const Workload c = generate_lublin(o).workload;
  std::size_t same = 0;
  for (std::size_t i = 0; i < a.jobs.size(); ++i) same += a.jobs[i].runtime == c.jobs[i].runtime;
  EXPECT_LT(same, a.jobs.size() / 10);
}

// Two-sample Kolmogorov-Smirnov distance.
double ks_distance(std::vector<double> a, std::vector<double> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  double worst = 0;
  std::size_t i = 0, k = 0;
  while (i < a.size() && k < b.size()) {
    const double v = std::min(a[i], b[k]);
    while (i < a.size() && a[i] == v) ++i;
    while (k < b.size() && b[k] == v) ++k;
    worst = std::max(worst, std::fabs(static_cast<double>(i) / a.size() - static_cast<double>(k) / b.size()));
  }
  return worst;
}

struct Columns {
  std::vector<double> runtime, size, interarrival;
};

Columns columns(const Workload& w) {
  Columns c;
  for (std::size_t i = 0; i < w.jobs.size(); ++i) {
    c.runtime.push_back(static_cast<double>(w.jobs[i].runtime));
    c.size.push_back(w.jobs[i].size);
    if (i > 0) c.interarrival.push_back(static_cast<double>(w.jobs[i].submit - w.jobs[i - 1].submit));
  }
  return c;
}

// lublin_256 is 10 000 jobs from the reference implementation (typeless
// parameters, 256 nodes). A large sample of ours must have the same run-time,
// size and inter-arrival distributions. The 1% Kolmogorov-Smirnov critical
// value for 10 000 against 200 000 samples is 0.0167; sizes are discrete,
// which only makes the test conservative. (Hour-of-day is not compared: the
// reference truncates its clock to whole seconds at every job, so its clock
// falls about 0.5 s per job behind its own daily cycle, about 1.4 h by the
// end of the trace.)
TEST(Lublin, MatchesTheReferenceImplementationsTrace) {
  const std::string path = test::shared_trace("lublin_256.swf.gz");
  if (path.empty()) GTEST_SKIP() << "shared trace lublin_256.swf.gz absent";
  const Workload reference = read_swf(path);
  ASSERT_EQ(reference.units, 256);
  LublinOptions o;
  o.jobs = kLargeSample;
  o.nodes = 256;
  o.seed = 9;
  const Workload ours = generate_lublin(o).workload;
  const Columns r = columns(reference);
  const Columns m = columns(ours);
  EXPECT_LT(ks_distance(r.runtime, m.runtime), 0.0167);
  EXPECT_LT(ks_distance(r.size, m.size), 0.0167);
  EXPECT_LT(ks_distance(r.interarrival, m.interarrival), 0.0167);
  const ClassStats rs = class_stats(reference);
  const ClassStats ms = class_stats(ours);
  for (int c = 0; c < 3; ++c) {
    EXPECT_NEAR(ms.jobs_pct[c], rs.jobs_pct[c], 1.5) << "class " << c;
    EXPECT_NEAR(ms.mean_size[c] / rs.mean_size[c], 1.0, 0.1) << "class " << c;
  }
}

// Each open choice is an option; these are its documented defaults
// (docs/workload-models.md).
TEST(Lublin, DefaultsAreTheDocumentedOnes) {
  const LublinOptions o;
  EXPECT_EQ(o.jobs, 10000u);
  EXPECT_EQ(o.nodes, 128);
  EXPECT_EQ(o.seed, 1u);
  EXPECT_EQ(o.parameters, LublinParameters::Typeless);
  EXPECT_EQ(o.arrival_scale, 1.0);
  EXPECT_EQ(o.start_hour, 0);
  const GeneratedWorkload g = generate_model(parse_model_spec("lublin:jobs=10"));
  EXPECT_EQ(g.spec, "lublin:arrival-scale=1:estimates=exact:jobs=10:max-estimate=172800:nodes=128:parameters=typeless:phi=0.2:seed=1:start-hour=0");
  // The typeless parameters are those of the reference implementation.
  const LublinStream t = lublin_typeless();
  EXPECT_EQ(t.serial_prob, 0.244);
  EXPECT_EQ(t.pow2_prob, 0.576);
  EXPECT_EQ(t.uhi, 7);
  EXPECT_EQ(t.umed, 4.5);
  EXPECT_EQ(t.pa, -0.0054);
  EXPECT_EQ(t.aarr, 10.2303);
}

TEST(Lublin, BadOptionsAreRejected) {
  LublinOptions o;
  o.nodes = 1;
  EXPECT_THROW(generate_lublin(o), std::invalid_argument);
  o = LublinOptions{};
  o.jobs = 0;
  EXPECT_THROW(generate_lublin(o), std::invalid_argument);
  o = LublinOptions{};
  o.start_hour = 24;
  EXPECT_THROW(generate_lublin(o), std::invalid_argument);
  o = LublinOptions{};
  o.arrival_scale = 0;
  EXPECT_THROW(generate_lublin(o), std::invalid_argument);
}

}  // namespace
}  // namespace los
