// The user-estimate model (Tsafrir, Etsion, Feitelson, JSSPP 2005): its
// histogram statistics and the assignment of estimates to jobs.
#include "workload/estimates.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>

#include "workload/models.hpp"

namespace los {
namespace {

constexpr Time kHour = 3600;

std::size_t total_jobs(const std::vector<EstimateBin>& d) {
  return std::accumulate(d.begin(), d.end(), std::size_t{0},
                         [](std::size_t s, const EstimateBin& b) { return s + b.jobs; });
}

std::vector<EstimateBin> by_popularity(std::vector<EstimateBin> d) {
  std::stable_sort(d.begin(), d.end(), [](const EstimateBin& x, const EstimateBin& y) { return x.jobs > y.jobs; });
  return d;
}

TEST(ModalEstimates, BinCountFollowsThePapersPoints) {
  EXPECT_EQ(modal_estimate_bin_count(20), 10u);
  EXPECT_EQ(modal_estimate_bin_count(200), 20u);
  EXPECT_EQ(modal_estimate_bin_count(1000), 35u);
  EXPECT_EQ(modal_estimate_bin_count(10000), 90u);
  EXPECT_EQ(modal_estimate_bin_count(70000), 340u);
  EXPECT_EQ(modal_estimate_bin_count(250000), 565u);
  EXPECT_EQ(modal_estimate_bin_count(1000000), 565u);
  EXPECT_EQ(modal_estimate_bin_count(40000), 215u);  // halfway between 10,000 and 70,000
}

TEST(ModalEstimates, HeadIsTheMaximumThenRoundValues) {
  const std::vector<Time> head = modal_head_estimates(48 * kHour);
  ASSERT_EQ(head.size(), 20u);
  EXPECT_EQ(head[0], 48 * kHour);
  EXPECT_TRUE(std::is_sorted(head.begin() + 1, head.end()));
  for (std::size_t i = 1; i < head.size(); ++i) {
    EXPECT_LT(head[i], head[0]);
    EXPECT_EQ(head[i] % (5 * 60), 0) << head[i];  // whole multiples of 5 minutes
  }
  // The values common to all four traces come first; 18 h is one of them.
  EXPECT_NE(std::find(head.begin(), head.end(), 18 * kHour), head.end());
  // A one-hour maximum still gets a head of round values below it.
  const std::vector<Time> small = modal_head_estimates(kHour);
  EXPECT_EQ(small[0], kHour);
  EXPECT_GE(small.size(), 10u);
  for (std::size_t i = 1; i < small.size(); ++i) EXPECT_LT(small[i], kHour);
}

TEST(ModalEstimates, HistogramHasThePapersShape) {
  for (std::size_t jobs : {10000u, 100000u}) {
    Random rng(7);
    ModalEstimateOptions o;  // 48 h maximum, 89% in the head
    const std::vector<EstimateBin> d = modal_estimate_distribution(jobs, o, rng);
    EXPECT_EQ(total_jobs(d), jobs);
    EXPECT_TRUE(std::is_sorted(d.begin(), d.end(),
                               [](const EstimateBin& x, const EstimateBin& y) { return x.estimate < y.estimate; }));
    // Distinct values: the model's count, less at most a few dropped on collisions.
    EXPECT_LE(d.size(), modal_estimate_bin_count(jobs));
    EXPECT_GE(d.size(), modal_estimate_bin_count(jobs) * 95 / 100);
    for (const EstimateBin& b : d) {
      EXPECT_GT(b.estimate, 0);
      EXPECT_LE(b.estimate, o.max_estimate);
      EXPECT_GE(b.jobs, 1u);
    }
    const std::vector<EstimateBin> popular = by_popularity(d);
    // The maximum is the most popular value: 89% less the fitted shares of ranks 2..20 (21.7%).
    EXPECT_EQ(popular[0].estimate, o.max_estimate);
    EXPECT_NEAR(100.0 * popular[0].jobs / jobs, 21.7, 0.3);
    // The 20 most popular values hold the head share.
    std::size_t head = 0;
    for (std::size_t i = 0; i < 20; ++i) head += popular[i].jobs;
    EXPECT_NEAR(100.0 * head / jobs, 89.0, 0.5);
    // Second rank: 14.0491 e^(-0.177531 * 2) + 0.462513 = 10.31%.
    EXPECT_NEAR(100.0 * popular[1].jobs / jobs, 10.31, 0.2);
  }
}

TEST(ModalEstimates, SameSeedSameHistogramOtherSeedOtherMatching) {
  ModalEstimateOptions o;
  Random a(3), b(3), c(4);
  const auto da = modal_estimate_distribution(10000, o, a);
  const auto db = modal_estimate_distribution(10000, o, b);
  const auto dc = modal_estimate_distribution(10000, o, c);
  ASSERT_EQ(da.size(), db.size());
  for (std::size_t i = 0; i < da.size(); ++i) {
    EXPECT_EQ(da[i].estimate, db[i].estimate);
    EXPECT_EQ(da[i].jobs, db[i].jobs);
  }
  bool differs = da.size() != dc.size();
  for (std::size_t i = 0; !differs && i < da.size(); ++i) differs = da[i].jobs != dc[i].jobs;
  EXPECT_TRUE(differs) << "the value-to-popularity matching should be random";
}

TEST(ModalEstimates, EveryJobGetsAnEstimateAtLeastItsRunTimeFromTheHistogram) {
  std::vector<Job> jobs;
  Random draw(11);
  for (int i = 0; i < 20000; ++i) {
    Job j;
    j.id = i + 1;
    j.size = 1;
    j.runtime = static_cast<Time>(std::exp(draw.uniform(0.0, 11.5)));  // up to ~27 h, log-uniform
    j.estimate = j.runtime;
    jobs.push_back(j);
  }
  Random rng(5);
  ModalEstimateOptions o;
  const std::vector<EstimateBin> d = modal_estimate_distribution(jobs.size(), o, rng);
  assign_estimates(jobs, d, rng);
  std::map<Time, std::size_t> used;
  double accuracy = 0;
  for (const Job& j : jobs) {
    ASSERT_GE(j.estimate, j.runtime) << "job " << j.id;
    ++used[j.estimate];
    accuracy += static_cast<double>(j.runtime) / static_cast<double>(j.estimate);
  }
  // Exactly the histogram's values, each as often as it says.
  ASSERT_EQ(used.size(), d.size());
  for (const EstimateBin& b : d) EXPECT_EQ(used[b.estimate], b.jobs) << b.estimate;
  // Estimates are loose, as real ones are: mean run time / estimate well below 1.
  accuracy /= static_cast<double>(jobs.size());
  EXPECT_GT(accuracy, 0.05);
  EXPECT_LT(accuracy, 0.6);
}

TEST(ModalEstimates, RunTimesAboveWhatTheHistogramOffersAreAClearError) {
  std::vector<Job> jobs(100);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    jobs[i].id = static_cast<JobId>(i + 1);
    jobs[i].runtime = 2 * kHour;  // every job runs 2 h; only about 22% of estimates are that long with a 2 h maximum
  }
  Random rng(1);
  ModalEstimateOptions o;
  o.max_estimate = 2 * kHour;
  try {
    draw_modal_estimates(jobs, o, rng);
    FAIL() << "expected an error";
  } catch (const EstimateModelError& e) {
    EXPECT_NE(std::string(e.what()).find("raise max-estimate"), std::string::npos) << e.what();
  }
  o.max_estimate = 30 * 60;
  EXPECT_THROW(modal_estimate_distribution(10, o, rng), EstimateModelError);
}

TEST(ModalEstimates, LublinModelKeyKeepsTheJobsAndAddsEstimates) {
  const GeneratedWorkload exact = generate_model(parse_model_spec("lublin:jobs=3000:nodes=256:seed=9"));
  const GeneratedWorkload modal = generate_model(parse_model_spec("lublin:jobs=3000:nodes=256:seed=9:estimates=modal"));
  ASSERT_EQ(exact.workload.jobs.size(), modal.workload.jobs.size());
  std::size_t longer = 0;
  for (std::size_t i = 0; i < exact.workload.jobs.size(); ++i) {
    const Job& a = exact.workload.jobs[i];
    const Job& b = modal.workload.jobs[i];
    EXPECT_EQ(a.submit, b.submit);
    EXPECT_EQ(a.size, b.size);
    EXPECT_EQ(a.runtime, b.runtime);
    EXPECT_EQ(a.estimate, a.runtime);
    EXPECT_GE(b.estimate, b.runtime);
    EXPECT_LE(b.estimate, 48 * kHour);
    longer += b.estimate > b.runtime;
    EXPECT_EQ(modal.records[i].req_time, b.estimate);
    EXPECT_EQ(exact.records[i].req_time, -1);
  }
  EXPECT_GT(longer, exact.workload.jobs.size() * 9 / 10);
}

}  // namespace
}  // namespace los
