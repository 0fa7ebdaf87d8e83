// Metrics against hand-computed values: the LOS thesis's Table 1.1, the
// fairness paper's NUWT and F, paired differences with batch means.
#include <gtest/gtest.h>

#include "metrics/paired.hpp"
#include "metrics/summary.hpp"
#include "test_support.hpp"

namespace los {
namespace {

using test::job;
using test::workload;

TEST(Metrics, ThesisTable11) {
  // N = 5, all jobs at t = 0, sizes 3, 2, 4, 3 and run times 2, 4, 2, 2:
  // FCFS gives starts 0, 0, 4, 6, makespan 8 and utilization 28/40 = 0.70.
  const Workload w = workload(5, {job(1, 0, 3, 2), job(2, 0, 2, 4), job(3, 0, 4, 2), job(4, 0, 3, 2)});
  const SimResult r = test::run(w, "fcfs");
  EXPECT_EQ(test::start_of(r, 3), 4);
  EXPECT_EQ(test::start_of(r, 4), 6);
  const Summary s = summarize(r, 10);
  EXPECT_DOUBLE_EQ(s.makespan, 8);
  EXPECT_DOUBLE_EQ(s.utilization, 0.70);
  EXPECT_DOUBLE_EQ(s.mean_response, 5);
  EXPECT_DOUBLE_EQ(s.mean_wait, 2.5);
  EXPECT_DOUBLE_EQ(s.mean_slowdown, 2.25);
  // Bounded slowdown with tau = 10: every run time is below tau, so each job
  // is max(response / 10, 1) = 1.
  EXPECT_DOUBLE_EQ(s.mean_bsld, 1);
  EXPECT_DOUBLE_EQ(summarize(r, 1).mean_bsld, 2.25);
  // Percentiles by nearest rank over waits {0, 0, 4, 6}.
  EXPECT_DOUBLE_EQ(s.p50_wait, 0);
  EXPECT_DOUBLE_EQ(s.p90_wait, 6);
  // Loss of capacity: idle units while jobs wait: [2,4) 3 idle units -> 6;
  // [4,6) 1 idle -> 2; total 8 / 40.
  EXPECT_DOUBLE_EQ(s.loss_of_capacity, 8.0 / 40);
}

TEST(Metrics, UserFairness) {
  // Two units; three 2-unit, 10 s jobs at t = 0 run one after another.
  // User 1 (job 1) never waits: NUWT 0. User 2 waits 10 + 20 s over
  // 2 x 10 + 2 x 10 unit-seconds: NUWT 0.75. Mean 0.375, F = 2 x 0.375^2.
  const Workload w = workload(2, {job(1, 0, 2, 10, 10, 1), job(2, 0, 2, 10, 10, 2), job(3, 0, 2, 10, 10, 2)});
  const SimResult r = test::run(w, "fcfs");
  const auto users = user_fairness(r);
  ASSERT_EQ(users.size(), 2u);
  EXPECT_DOUBLE_EQ(users[0].nuwt, 0);
  EXPECT_DOUBLE_EQ(users[1].nuwt, 30.0 / 40);
  const Summary s = summarize(r, 10);
  const double mean = 0.375;
  EXPECT_DOUBLE_EQ(s.fairness_F, mean * mean * 2);
  EXPECT_DOUBLE_EQ(s.mean_nuwt, 0.75);  // only users with two or more jobs
}

TEST(Metrics, PairedDifferenceBatchMeans) {
  // Differences 1, 2, 3, 4 in two batches: means 1.5 and 3.5; overall 2.5;
  // sd of batch means sqrt(2); half-width t(0.95, 1) * sqrt(2) / sqrt(2) = 6.314.
  const PairedDifference d = paired_difference({1, 2, 3, 4}, {0, 0, 0, 0}, 2);
  EXPECT_DOUBLE_EQ(d.mean, 2.5);
  EXPECT_NEAR(d.half_width, 6.314, 1e-9);
  EXPECT_EQ(d.batches, 2u);
  const PairedDifference same = paired_difference({5, 6, 7}, {5, 6, 7}, 20);
  EXPECT_DOUBLE_EQ(same.mean, 0);
  EXPECT_DOUBLE_EQ(same.half_width, 0);
  EXPECT_THROW(paired_difference({1}, {1, 2}), std::invalid_argument);
}

TEST(Metrics, StudentTQuantiles) {
  EXPECT_DOUBLE_EQ(student_t_quantile(0.95, 19), 1.729);
  EXPECT_NEAR(student_t_quantile(0.95, 60), 1.671, 2e-3);
  EXPECT_NEAR(student_t_quantile(0.975, 120), 1.980, 2e-3);
  EXPECT_NEAR(student_t_quantile(0.95, 100000), 1.645, 1e-3);
}

}  // namespace
}  // namespace los
