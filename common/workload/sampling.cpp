#include "workload/sampling.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace los {

double Random::uniform() {
  // The top 53 bits, centred in their cell: (k + 0.5) / 2^53 lies in (0, 1).
  return (static_cast<double>(engine_() >> 11) + 0.5) * 0x1.0p-53;
}

double Random::uniform(double low, double high) { return low + (high - low) * uniform(); }

long long Random::uniform_int(long long low, long long high) {
  if (high < low) throw std::invalid_argument("uniform_int: empty range");
  const std::uint64_t range = static_cast<std::uint64_t>(high - low) + 1;
  if (range == 0) return static_cast<long long>(engine_());  // the whole 64-bit range
  // Reject the top partial block so every residue is equally likely.
  const std::uint64_t limit =
      std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % range;
  std::uint64_t x = engine_();
  while (x >= limit) x = engine_();
  return low + static_cast<long long>(x % range);
}

double Random::exponential(double mean) { return -mean * std::log(uniform()); }

double Random::normal(double mean, double sd) {
  const double u1 = uniform();
  const double u2 = uniform();
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  return mean + sd * std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2);
}

double Random::gamma(double shape, double scale) {
  if (!(shape > 0) || !(scale > 0)) throw std::invalid_argument("gamma: shape and scale must be positive");
  if (shape < 1) {
    // Gamma(k) = Gamma(k + 1) * U^(1/k) (Marsaglia and Tsang 2000, section 6).
    const double g = gamma(shape + 1, 1.0);
    return scale * g * std::pow(uniform(), 1.0 / shape);
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x = 0;
    double v = 0;
    do {
      x = normal(0, 1);
      v = 1.0 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const double u = uniform();
    const double x2 = x * x;
    if (u < 1.0 - 0.0331 * x2 * x2) return scale * d * v;
    if (std::log(u) < 0.5 * x2 + d * (1.0 - v + std::log(v))) return scale * d * v;
  }
}

double Random::hyper_gamma(double shape1, double scale1, double shape2, double scale2, double p) {
  return uniform() <= p ? gamma(shape1, scale1) : gamma(shape2, scale2);
}

double Random::two_stage_uniform(double low, double med, double high, double p) {
  return uniform() <= p ? uniform(low, med) : uniform(med, high);
}

double Random::log_uniform(double chi, double rho) { return std::exp2((uniform() - rho) / chi); }

double regularized_gamma_p(double a, double x) {
  if (!(a > 0)) throw std::invalid_argument("regularized_gamma_p: a must be positive");
  if (x <= 0) return 0;
  constexpr int kMaxIterations = 1000;
  constexpr double kEpsilon = 1e-15;
  const double log_prefactor = -x + a * std::log(x) - std::lgamma(a);
  if (x < a + 1) {
    // Series: P(a, x) = e^-x x^a / Gamma(a) * sum_n x^n / (a (a+1) ... (a+n)).
    double term = 1.0 / a;
    double sum = term;
    double ap = a;
    for (int n = 0; n < kMaxIterations; ++n) {
      ap += 1;
      term *= x / ap;
      sum += term;
      if (std::fabs(term) < std::fabs(sum) * kEpsilon) break;
    }
    return sum * std::exp(log_prefactor);
  }
  // Continued fraction for Q(a, x) by the modified Lentz method.
  constexpr double kTiny = 1e-300;
  double b = x + 1 - a;
  double c = 1 / kTiny;
  double d = 1 / b;
  double h = d;
  for (int i = 1; i <= kMaxIterations; ++i) {
    const double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = b + an / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1) < kEpsilon) break;
  }
  return 1.0 - std::exp(log_prefactor) * h;
}

std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream) {
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (stream + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace los
