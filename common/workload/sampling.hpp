// Random variates for the workload models, written out by hand.
//
// The std:: distributions (uniform_real_distribution, gamma_distribution, ...)
// are specified by what they sample, not how, so libstdc++, libc++ and MSVC
// give different numbers for the same engine state. A generated workload must
// be byte-identical for the same seed, so every sampler here is a fixed
// algorithm over std::mt19937_64, whose output the standard does pin down.
// (Results can still differ in the last bit where the platform's libm rounds
// exp/log/pow differently; on one platform they are exact.)
#pragma once

#include <cstdint>
#include <random>

namespace los {

class Random {
 public:
  explicit Random(std::uint64_t seed) : engine_(seed) {}

  // Uniform on the open interval (0, 1): never 0, so log(u) is finite.
  double uniform();
  // Uniform on (low, high).
  double uniform(double low, double high);
  // Uniform integer in [low, high] (low <= high), without modulo bias.
  long long uniform_int(long long low, long long high);
  // True with probability p.
  bool bernoulli(double p) { return uniform() < p; }
  // Exponential with the given mean.
  double exponential(double mean);
  // Normal (Box-Muller; the second variate is discarded so the stream has no hidden state).
  double normal(double mean, double sd);
  // Gamma with shape k > 0 and scale theta (mean k * theta): Marsaglia-Tsang
  // for k >= 1; for k < 1, Gamma(k + 1) * U^(1/k).
  double gamma(double shape, double scale);
  // Mixture of two gammas: Gamma(shape1, scale1) with probability p, else Gamma(shape2, scale2).
  double hyper_gamma(double shape1, double scale1, double shape2, double scale2, double p);
  // Two-stage uniform: U(low, med) with probability p, else U(med, high).
  double two_stage_uniform(double low, double med, double high, double p);
  // Downey's / Cirne's uniform-log: cdf(x) = chi * log2(x) + rho, i.e. x = 2^((U - rho) / chi).
  double log_uniform(double chi, double rho);

  std::uint64_t next() { return engine_(); }

 private:
  std::mt19937_64 engine_;
};

// Regularized lower incomplete gamma P(a, x) (series for x < a + 1, continued
// fraction otherwise); the CDF of Gamma(shape a, scale 1) at x.
double regularized_gamma_p(double a, double x);

// CDF of Gamma(shape, scale) at x.
inline double gamma_cdf(double x, double shape, double scale) {
  return x <= 0 ? 0.0 : regularized_gamma_p(shape, x / scale);
}

// A seed for an independent stream derived from `seed` and a stream label
// (SplitMix64 finalizer), so two parts of a model can draw separately and
// adding draws to one does not shift the other.
std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream);

}  // namespace los
