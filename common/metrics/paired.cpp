#include "metrics/paired.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace los {

double student_t_quantile(double p, std::size_t df) {
  // Rows: degrees of freedom 1..30; columns: p = 0.95, 0.975, 0.995.
  static constexpr double table[30][3] = {
      {6.314, 12.706, 63.657}, {2.920, 4.303, 9.925}, {2.353, 3.182, 5.841}, {2.132, 2.776, 4.604},
      {2.015, 2.571, 4.032},   {1.943, 2.447, 3.707}, {1.895, 2.365, 3.499}, {1.860, 2.306, 3.355},
      {1.833, 2.262, 3.250},   {1.812, 2.228, 3.169}, {1.796, 2.201, 3.106}, {1.782, 2.179, 3.055},
      {1.771, 2.160, 3.012},   {1.761, 2.145, 2.977}, {1.753, 2.131, 2.947}, {1.746, 2.120, 2.921},
      {1.740, 2.110, 2.898},   {1.734, 2.101, 2.878}, {1.729, 2.093, 2.861}, {1.725, 2.086, 2.845},
      {1.721, 2.080, 2.831},   {1.717, 2.074, 2.819}, {1.714, 2.069, 2.807}, {1.711, 2.064, 2.797},
      {1.708, 2.060, 2.787},   {1.706, 2.056, 2.779}, {1.703, 2.052, 2.771}, {1.701, 2.048, 2.763},
      {1.699, 2.045, 2.756},   {1.697, 2.042, 2.750}};
  int col;
  double z;
  if (std::abs(p - 0.95) < 1e-9) {
    col = 0;
    z = 1.6448536269514722;
  } else if (std::abs(p - 0.975) < 1e-9) {
    col = 1;
    z = 1.959963984540054;
  } else if (std::abs(p - 0.995) < 1e-9) {
    col = 2;
    z = 2.5758293035489004;
  } else {
    throw std::invalid_argument("student_t_quantile: p must be 0.95, 0.975 or 0.995, got " + std::to_string(p));
  }
  if (df == 0) throw std::invalid_argument("student_t_quantile: zero degrees of freedom");
  if (df <= 30) return table[df - 1][col];
  const double v = static_cast<double>(df);
  const double z3 = z * z * z, z5 = z3 * z * z;
  return z + (z3 + z) / (4 * v) + (5 * z5 + 16 * z3 + 3 * z) / (96 * v * v);
}

PairedDifference paired_difference(const std::vector<double>& a, const std::vector<double>& b, std::size_t batches,
                                   double confidence) {
  if (a.size() != b.size()) {
    throw std::invalid_argument("paired_difference: " + std::to_string(a.size()) + " values against " +
                                std::to_string(b.size()));
  }
  PairedDifference d;
  const std::size_t n = a.size();
  if (n == 0) return d;
  double total = 0;
  for (std::size_t i = 0; i < n; ++i) total += a[i] - b[i];
  d.mean = total / static_cast<double>(n);
  const std::size_t k = std::min(std::max<std::size_t>(batches, 2), n);
  d.batches = k;
  if (k < 2) return d;
  std::vector<double> means(k, 0);
  for (std::size_t g = 0; g < k; ++g) {
    const std::size_t lo = g * n / k, hi = (g + 1) * n / k;
    double s = 0;
    for (std::size_t i = lo; i < hi; ++i) s += a[i] - b[i];
    means[g] = s / static_cast<double>(hi - lo);
  }
  double mm = 0;
  for (double m : means) mm += m;
  mm /= static_cast<double>(k);
  double var = 0;
  for (double m : means) var += (m - mm) * (m - mm);
  var /= static_cast<double>(k - 1);
  d.half_width = student_t_quantile(1 - (1 - confidence) / 2, k - 1) * std::sqrt(var / static_cast<double>(k));
  return d;
}

}  // namespace los
