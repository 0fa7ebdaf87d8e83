// Cirne's rigid and moldable models against the statistics the spec lists
// (../shared/specs/sa-moldability.md, sections 3, 4 and 8).
#include "workload/cirne.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "workload/models.hpp"
#include "workload/sampling.hpp"

namespace los {
namespace {

constexpr std::size_t kLargeSample = 200000;

CirneOptions large(std::uint64_t seed) {
  CirneOptions o;
  o.jobs = kLargeSample;
  o.seed = seed;
  return o;
}

double hourly_mean_rate(CirneSite site, int hour) {
  double sum = 0;
  for (int m = 0; m < 60; ++m) sum += std::max(0.0, cirne_arrival_polynomial(site, hour * 60 + m + 0.5));
  return sum / 60;
}

// The corrected (reversed) coefficient order gives the spec's validation table.
TEST(CirneArrivals, PolynomialsMatchTheSpecsHourlyTable) {
  EXPECT_NEAR(hourly_mean_rate(CirneSite::ANL, 10), 0.206, 0.002);
  EXPECT_NEAR(hourly_mean_rate(CirneSite::ANL, 13), 0.153, 0.002);  // the lunchtime dip
  EXPECT_NEAR(hourly_mean_rate(CirneSite::ANL, 16), 0.227, 0.002);
  EXPECT_NEAR(hourly_mean_rate(CirneSite::CTC, 12), 0.575, 0.002);
  EXPECT_NEAR(hourly_mean_rate(CirneSite::CTC, 4), 0.042, 0.002);
  EXPECT_NEAR(hourly_mean_rate(CirneSite::KTH, 13), 0.106, 0.002);
  EXPECT_NEAR(hourly_mean_rate(CirneSite::SDSC, 13), 0.222, 0.002);
  EXPECT_NEAR(hourly_mean_rate(CirneSite::SDSC, 2), 0.067, 0.002);
  // KTH dips just below zero before dawn (clamped to 0 when sampling).
  double kth_min = 1;
  for (int m = 0; m < 1440; ++m) kth_min = std::min(kth_min, cirne_arrival_polynomial(CirneSite::KTH, m));
  EXPECT_LT(kth_min, 0.0);
  EXPECT_GT(kth_min, -0.01);
}

TEST(CirneArrivals, DailyIntegralsMatchTheSpec) {
  const std::pair<CirneSite, double> expected[] = {
      {CirneSite::ANL, 195.0}, {CirneSite::CTC, 454.8}, {CirneSite::KTH, 75.6}, {CirneSite::SDSC, 209.9}};
  for (const auto& [site, jobs_per_day] : expected) {
    double sum = 0;
    for (int i = 0; i < 14400; ++i) sum += std::max(0.0, cirne_arrival_polynomial(site, (i + 0.5) / 10)) / 10;
    EXPECT_NEAR(sum / jobs_per_day, 1.0, 0.005) << to_string(site);
  }
}

// On the site's own machine (P = O) with kappa_L = 1 the generator produces
// the polynomial's daily integral, spread over the day as the polynomial is.
TEST(CirneArrivals, GeneratedArrivalsFollowThePolynomial) {
  CirneOptions o = large(3);
  o.arrival = CirneOptions::Arrival::ANL;
  o.nodes = 120;
  const CirneWorkload w = generate_cirne(o);
  ASSERT_EQ(w.site, CirneSite::ANL);
  const double days = static_cast<double>(w.workload.jobs.back().submit) / 86400;
  EXPECT_NEAR(static_cast<double>(w.workload.jobs.size()) / days, 195.0, 195.0 * 0.01);
  double seen[24] = {0};
  for (const Job& j : w.workload.jobs) seen[(j.submit % 86400) / 3600] += 1;
  double total_rate = 0;
  for (int h = 0; h < 24; ++h) total_rate += hourly_mean_rate(CirneSite::ANL, h);
  for (int h = 0; h < 24; ++h) {
    const double expected = hourly_mean_rate(CirneSite::ANL, h) / total_rate;
    EXPECT_NEAR(seen[h] / kLargeSample, expected, 0.04 * expected) << "hour " << h;
  }
}

TEST(CirneArrivals, MachineSizeAndLoadScaleTheRate) {
  CirneOptions o;
  o.jobs = 50000;
  o.arrival = CirneOptions::Arrival::SDSC;
  o.nodes = 128;
  auto per_day = [](const CirneWorkload& w) {
    return static_cast<double>(w.workload.jobs.size()) * 86400 / static_cast<double>(w.workload.jobs.back().submit);
  };
  auto mean_request = [](const CirneWorkload& w) {
    double s = 0;
    for (const Job& j : w.workload.jobs) s += static_cast<double>(j.estimate);
    return s / static_cast<double>(w.workload.jobs.size());
  };
  const CirneWorkload base = generate_cirne(o);
  EXPECT_NEAR(per_day(base), 209.9, 209.9 * 0.015);
  o.nodes = 512;  // P/O = 4
  EXPECT_NEAR(per_day(generate_cirne(o)) / per_day(base), 4.0, 0.08);
  o.nodes = 128;
  o.load = 2;  // kappa_L doubles the rate and the requested times: 4x the load
  const CirneWorkload loaded = generate_cirne(o);
  EXPECT_NEAR(per_day(loaded) / per_day(base), 2.0, 0.04);
  EXPECT_NEAR(mean_request(loaded) / mean_request(base), 2.0, 0.08);
  o.load = 1;
  o.rate_divisor = 2;
  EXPECT_NEAR(per_day(generate_cirne(o)) / per_day(base), 0.5, 0.01);
}

TEST(CirneArrivals, OnePolynomialPerWorkloadChosenAtRandom) {
  std::set<CirneSite> seen;
  CirneOptions o;
  o.jobs = 10;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    o.seed = seed;
    seen.insert(generate_cirne(o).site);
  }
  EXPECT_EQ(seen.size(), 4u);
  // A fixed site gives the same jobs as a random pick that lands on it.
  o.seed = 1;
  const CirneWorkload random = generate_cirne(o);
  o.arrival = random.site == CirneSite::ANL   ? CirneOptions::Arrival::ANL
              : random.site == CirneSite::CTC ? CirneOptions::Arrival::CTC
              : random.site == CirneSite::KTH ? CirneOptions::Arrival::KTH
                                              : CirneOptions::Arrival::SDSC;
  const CirneWorkload fixed = generate_cirne(o);
  for (std::size_t i = 0; i < random.workload.jobs.size(); ++i) {
    EXPECT_EQ(random.workload.jobs[i].submit, fixed.workload.jobs[i].submit);
    EXPECT_EQ(random.workload.jobs[i].runtime, fixed.workload.jobs[i].runtime);
  }
}

// Partition size: uniform-log (0.12, 0.20) with ceil, then the closest power
// of two with probability 0.75: P(n = 1) = 0.20 and E[n] ~ 17.0 (spec 3.4, 3.6).
TEST(CirneRigid, PartitionSizes) {
  const CirneWorkload w = generate_cirne(large(4));
  double ones = 0, pow2 = 0, sum = 0, flagged = 0;
  for (std::size_t i = 0; i < w.workload.jobs.size(); ++i) {
    const int n = w.workload.jobs[i].size;
    ASSERT_GE(n, 1);
    ASSERT_LE(n, 128);
    const bool is_pow2 = (n & (n - 1)) == 0;
    if (w.power_of_two[i]) {
      ASSERT_TRUE(is_pow2);
    }
    ones += n == 1;
    pow2 += is_pow2;
    sum += n;
    flagged += w.power_of_two[i];
  }
  const double jobs = static_cast<double>(w.workload.jobs.size());
  EXPECT_NEAR(ones / jobs, 0.20, 0.004);
  EXPECT_NEAR(flagged / jobs, 0.75, 0.004);
  EXPECT_GT(pow2 / jobs, 0.75);
  EXPECT_NEAR(sum / jobs, 17.0, 0.4);
}

TEST(CirneRigid, PartitionSizesAreCappedAtTheMachine) {
  CirneOptions o;
  o.jobs = 20000;
  o.nodes = 40;
  const CirneWorkload w = generate_cirne(o);
  for (std::size_t i = 0; i < w.workload.jobs.size(); ++i) {
    ASSERT_LE(w.workload.jobs[i].size, w.power_of_two[i] ? 32 : 40);
  }
}

// Requested time: uniform-log (0.10, -0.75) on [181 s, 185 364 s], median 5 793 s.
// Accuracy: Gamma(0.6, scale 0.6), clipped to 1 by default: P(a = 1) = P(Gamma > 1) ~ 8.8%.
TEST(CirneRigid, RequestedTimeAndAccuracy) {
  const CirneWorkload w = generate_cirne(large(5));
  std::vector<Time> tr;
  double clipped = 0;
  for (std::size_t i = 0; i < w.workload.jobs.size(); ++i) {
    const Job& j = w.workload.jobs[i];
    tr.push_back(j.estimate);
    ASSERT_GT(w.accuracy[i], 0.0);
    ASSERT_LE(w.accuracy[i], 1.0);
    ASSERT_GE(w.model_runtime[i], 1);
    ASSERT_LE(w.model_runtime[i], j.estimate);
    clipped += w.accuracy[i] == 1.0;
  }
  std::sort(tr.begin(), tr.end());
  EXPECT_GE(tr.front(), 181);
  EXPECT_LE(tr.back(), 185365);
  EXPECT_NEAR(static_cast<double>(tr[tr.size() / 2]) / 5793, 1.0, 0.02);
  const double p_above_one = 1 - gamma_cdf(1, 0.6, 0.6);
  EXPECT_NEAR(p_above_one, 0.088, 0.001);
  EXPECT_NEAR(clipped / kLargeSample, p_above_one, 0.003);
}

TEST(CirneRigid, RejectedAccuracyGivesTheSpecsMeanRunTime) {
  CirneOptions o = large(6);
  o.accuracy = CirneOptions::Accuracy::Reject;
  const CirneWorkload w = generate_cirne(o);
  double te = 0;
  double top = 0;
  for (std::size_t i = 0; i < w.workload.jobs.size(); ++i) {
    te += static_cast<double>(w.model_runtime[i]);
    top = std::max(top, w.accuracy[i]);
  }
  EXPECT_LT(top, 1.0);
  EXPECT_NEAR(te / kLargeSample / 6605, 1.0, 0.03);  // the spec's Monte Carlo: E[te] ~ 6 605 s
}

// Cancellation: 15% of jobs; lag uniform-log (0.065, -0.32): 30.3 s to 1.30e6 s,
// median ~6 275 s, P(lag < 600 s) ~ 0.28.
TEST(CirneRigid, Cancellations) {
  const CirneWorkload w = generate_cirne(large(7));
  std::vector<Time> lags;
  for (std::size_t i = 0; i < w.workload.jobs.size(); ++i) {
    const Time lag = w.cancel_lag[i];
    if (lag < 0) {
      ASSERT_EQ(w.workload.jobs[i].runtime, w.model_runtime[i]);
      continue;
    }
    lags.push_back(lag);
    // Default cancel=truncate: the job runs until its cancellation at most.
    ASSERT_EQ(w.workload.jobs[i].runtime, std::min(w.model_runtime[i], lag));
  }
  std::sort(lags.begin(), lags.end());
  const double n = static_cast<double>(lags.size());
  EXPECT_NEAR(n / kLargeSample, 0.15, 0.003);
  EXPECT_GE(lags.front(), 30);
  EXPECT_LE(lags.back(), 1310000);
  EXPECT_NEAR(static_cast<double>(lags[lags.size() / 2]) / 6275, 1.0, 0.04);
  const double early = static_cast<double>(std::lower_bound(lags.begin(), lags.end(), 600) - lags.begin()) / n;
  EXPECT_NEAR(early, 0.28, 0.01);
}

TEST(CirneRigid, CancelIgnoreAndDrop) {
  CirneOptions o;
  o.jobs = 5000;
  o.cancel = CirneOptions::Cancel::Ignore;
  const CirneWorkload ignore = generate_cirne(o);
  std::size_t cancelled = 0;
  for (std::size_t i = 0; i < ignore.workload.jobs.size(); ++i) {
    ASSERT_EQ(ignore.workload.jobs[i].runtime, ignore.model_runtime[i]);
    cancelled += ignore.cancel_lag[i] >= 0;
  }
  EXPECT_GT(cancelled, 500u);
  o.cancel = CirneOptions::Cancel::Drop;
  const CirneWorkload drop = generate_cirne(o);
  ASSERT_EQ(drop.workload.jobs.size(), 5000u);
  for (Time lag : drop.cancel_lag) ASSERT_EQ(lag, -1);
}

TEST(CirneRigid, RoundedSizesGiveMoreSerialJobs) {
  CirneOptions o = large(8);
  o.size_rounding = CirneOptions::SizeRounding::Round;
  const CirneWorkload w = generate_cirne(o);
  double ones = 0;
  for (const Job& j : w.workload.jobs) ones += j.size == 1;
  // round(x) = 1 for x < 1.5: P = 0.20 + 0.12 log2(1.5) = 0.270.
  EXPECT_NEAR(ones / kLargeSample, 0.20 + 0.12 * std::log2(1.5), 0.004);
}

TEST(Downey, SpeedupShape) {
  for (double A : {1.0, 3.0, 17.5, 60.0, 400.0}) {
    for (double sigma : {0.0, 0.4, 1.0, 1.7, 3.5}) {
      EXPECT_NEAR(downey_speedup(1, A, sigma), 1.0, 1e-12) << A << " " << sigma;
      const double knee = downey_max_useful(A, sigma);
      EXPECT_NEAR(downey_speedup(knee, A, sigma), A, 1e-9 * A) << A << " " << sigma;
      EXPECT_EQ(downey_speedup(knee + 10, A, sigma), A);
      double previous = 0;
      for (double n = 1; n <= knee + 5; n += 0.25) {
        const double s = downey_speedup(n, A, sigma);
        ASSERT_GE(s, previous - 1e-12) << "not monotone at n = " << n;
        ASSERT_LE(s, n + 1e-12) << "superlinear at n = " << n;
        previous = s;
      }
      // Continuous at A (the sigma <= 1 branch point).
      if (sigma <= 1 && A > 1) {
        EXPECT_NEAR(downey_speedup(A - 1e-9, A, sigma), downey_speedup(A + 1e-9, A, sigma), 1e-6);
      }
    }
  }
  // sigma = 0 is linear up to A.
  EXPECT_NEAR(downey_speedup(10, 60, 0), 10, 1e-12);
}

TEST(Cirne, ClosestPowerOfTwo) {
  EXPECT_EQ(closest_power_of_two(1), 1);
  EXPECT_EQ(closest_power_of_two(3), 2);  // a tie goes to the smaller
  EXPECT_EQ(closest_power_of_two(5), 4);
  EXPECT_EQ(closest_power_of_two(6), 4);  // tie
  EXPECT_EQ(closest_power_of_two(7), 8);
  EXPECT_EQ(closest_power_of_two(48), 32);  // tie
  EXPECT_EQ(closest_power_of_two(49), 64);
  EXPECT_EQ(closest_power_of_two(102), 128);
}

// Thesis calibration targets (spec 4.6 and 8): c_min = 1 in 62.6% of jobs and
// v = 2 requests in 37.1%. The defaults (alternatives=distinct,
// joint-a=slice-at-least-cmin) were chosen because they hit the second one;
// the thesis's third figure, mean(1/v) = 0.448, no combination of the open
// choices reaches (the spec's own Monte Carlo says so too): these defaults give
// about 0.36, and that is pinned so a change is noticed.
TEST(CirneMoldable, CalibrationTargets) {
  const CirneWorkload w = generate_cirne_moldable(large(9));
  ASSERT_EQ(w.moldable.size(), kLargeSample);
  double cmin1 = 0, v1 = 0, v2 = 0, inverse = 0;
  for (const MoldableJob& m : w.moldable) {
    const std::size_t v = m.requests.size();
    cmin1 += m.c_min == 1;
    v1 += v == 1;
    v2 += v == 2;
    inverse += 1.0 / static_cast<double>(v);
  }
  const double n = kLargeSample;
  EXPECT_NEAR(cmin1 / n, 0.626, 0.006);
  EXPECT_NEAR(v2 / n, 0.371, 0.012);
  EXPECT_NEAR(inverse / n, 0.36, 0.02);
  EXPECT_GT(v1 / n, 0.04);
  EXPECT_LT(v1 / n, 0.10);
}

TEST(CirneMoldable, EveryJobsRequestsAreConsistent) {
  CirneOptions o;
  o.jobs = 30000;
  o.seed = 10;
  const CirneWorkload w = generate_cirne_moldable(o);
  for (std::size_t i = 0; i < w.workload.jobs.size(); ++i) {
    const Job& user = w.workload.jobs[i];
    const MoldableJob& m = w.moldable[i];
    ASSERT_GE(m.A, 1.0);
    ASSERT_GE(m.sigma, 0.0);
    ASSERT_GE(m.A, m.c_min);  // joint-a=slice-at-least-cmin: s_min <= s_effic
    ASSERT_GE(m.c_max, m.c_min);
    ASSERT_LE(m.c_max, o.nodes);
    ASSERT_GE(m.c_u, 1);
    ASSERT_FALSE(m.requests.empty());
    ASSERT_LE(static_cast<int>(m.requests.size()), std::max(m.c_u, 1));
    ASSERT_EQ(m.power_of_two, w.power_of_two[i]);
    bool has_user = false;
    for (std::size_t k = 0; k < m.requests.size(); ++k) {
      const MoldableRequest& q = m.requests[k];
      if (k > 0) {
        ASSERT_LT(m.requests[k - 1].nodes, q.nodes);
      }
      ASSERT_GE(q.nodes, 1);
      ASSERT_LE(q.nodes, o.nodes);
      if (m.power_of_two) {
        ASSERT_EQ(q.nodes & (q.nodes - 1), 0) << q.nodes;
      }
      ASSERT_GE(q.runtime, 1);
      ASSERT_LE(q.runtime, q.request);
      if (q.nodes == user.size) {
        has_user = true;
        ASSERT_EQ(q.request, user.estimate);
        ASSERT_EQ(q.runtime, w.model_runtime[i]);
      } else {
        // te(n) = L / S(n), the same accuracy at every size.
        const double te = m.sequential_time / downey_speedup(q.nodes, m.A, m.sigma);
        ASSERT_NEAR(static_cast<double>(q.runtime), std::max(1.0, te), 0.5 + 1e-9 * te);
        ASSERT_NEAR(static_cast<double>(q.request), std::max(1.0, te / w.accuracy[i]), 0.5 + 1e-9 * te / w.accuracy[i]);
      }
    }
    ASSERT_TRUE(has_user) << "job " << user.id;
  }
}

TEST(CirneMoldable, UserRequestsAreTheRigidWorkload) {
  CirneOptions o;
  o.jobs = 5000;
  o.seed = 11;
  const CirneWorkload rigid = generate_cirne(o);
  const CirneWorkload moldable = generate_cirne_moldable(o);
  ASSERT_EQ(rigid.workload.jobs.size(), moldable.workload.jobs.size());
  for (std::size_t i = 0; i < rigid.workload.jobs.size(); ++i) {
    ASSERT_EQ(rigid.workload.jobs[i].submit, moldable.workload.jobs[i].submit);
    ASSERT_EQ(rigid.workload.jobs[i].size, moldable.workload.jobs[i].size);
    ASSERT_EQ(rigid.workload.jobs[i].estimate, moldable.workload.jobs[i].estimate);
    ASSERT_EQ(rigid.workload.jobs[i].runtime, moldable.workload.jobs[i].runtime);
  }
  EXPECT_TRUE(rigid.moldable.empty());
}

TEST(CirneMoldable, OpenChoicesChangeTheRequests) {
  CirneOptions o;
  o.jobs = 50000;
  auto mean_v = [](const CirneWorkload& w) {
    double s = 0;
    for (const MoldableJob& m : w.moldable) s += static_cast<double>(m.requests.size());
    return s / static_cast<double>(w.moldable.size());
  };
  auto mean_sigma = [](const CirneWorkload& w) {
    double s = 0;
    for (const MoldableJob& m : w.moldable) s += m.sigma;
    return s / static_cast<double>(w.moldable.size());
  };
  const CirneWorkload base = generate_cirne_moldable(o);
  CirneOptions draws = o;
  draws.alternatives = CirneOptions::Alternatives::Draws;  // duplicates dropped, not redrawn
  EXPECT_LT(mean_v(generate_cirne_moldable(draws)), mean_v(base));
  CirneOptions wider = o;
  wider.sigma_scale = 3;
  EXPECT_GT(mean_sigma(generate_cirne_moldable(wider)), mean_sigma(base) + 1.0);
  CirneOptions clamp = o;
  clamp.negative_sigma = CirneOptions::NegativeSigma::Clamp;
  const CirneWorkload clamped = generate_cirne_moldable(clamp);
  double zero = 0;
  for (const MoldableJob& m : clamped.moldable) zero += m.sigma == 0;
  // N(1.209, 1.132) is negative with probability ~14.2%.
  EXPECT_NEAR(zero / static_cast<double>(clamped.moldable.size()), 0.142, 0.01);
  CirneOptions slice = o;
  slice.joint_a = CirneOptions::JointA::Slice;
  double below = 0;
  for (const MoldableJob& m : generate_cirne_moldable(slice).moldable) below += m.A < m.c_min;
  EXPECT_GT(below, 0);
}

// Each open choice of the spec is an option; these are the documented defaults.
TEST(Cirne, DefaultsAreTheDocumentedOnes) {
  const CirneOptions o;
  EXPECT_EQ(o.jobs, 10000u);
  EXPECT_EQ(o.nodes, 500);
  EXPECT_EQ(o.seed, 1u);
  EXPECT_EQ(o.arrival, CirneOptions::Arrival::Random);
  EXPECT_EQ(o.load, 1.0);
  EXPECT_EQ(o.rate_divisor, 1.0);
  EXPECT_EQ(o.cancel, CirneOptions::Cancel::Truncate);
  EXPECT_EQ(o.accuracy, CirneOptions::Accuracy::Clip);
  EXPECT_EQ(o.size_rounding, CirneOptions::SizeRounding::Ceil);
  EXPECT_EQ(o.sigma_scale, 1.0);
  EXPECT_EQ(o.joint_a, CirneOptions::JointA::SliceAtLeastCmin);
  EXPECT_EQ(o.negative_sigma, CirneOptions::NegativeSigma::Resample);
  EXPECT_EQ(o.alternatives, CirneOptions::Alternatives::Distinct);
  EXPECT_EQ(o.spacing, CirneOptions::Spacing::Linear);
  EXPECT_EQ(generate_model(parse_model_spec("cirne:jobs=5")).spec,
            "cirne:accuracy=clip:arrival=random:cancel=truncate:jobs=5:load=1:nodes=500:rate-divisor=1:seed=1:"
            "size-rounding=ceil");
  EXPECT_EQ(generate_model(parse_model_spec("cirne-moldable:jobs=5")).spec,
            "cirne-moldable:accuracy=clip:alternatives=distinct:arrival=random:cancel=truncate:jobs=5:"
            "joint-a=slice-at-least-cmin:load=1:negative-sigma=resample:nodes=500:rate-divisor=1:seed=1:"
            "sigma-scale=1:size-rounding=ceil:spacing=linear");
}

TEST(Cirne, BadOptionsAreRejected) {
  CirneOptions o;
  o.jobs = 0;
  EXPECT_THROW(generate_cirne(o), std::invalid_argument);
  o = CirneOptions{};
  o.load = -1;
  EXPECT_THROW(generate_cirne(o), std::invalid_argument);
  o = CirneOptions{};
  o.nodes = 0;
  EXPECT_THROW(generate_cirne_moldable(o), std::invalid_argument);
}

}  // namespace
}  // namespace los
