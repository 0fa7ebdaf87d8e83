// Comparing two schedules of the same jobs: per-job paired differences
// (common random numbers) with confidence intervals from batch means, the
// method of the LOS thesis (after Law & Kelton).
#pragma once

#include <cstddef>
#include <vector>

namespace los {

struct PairedDifference {
  double mean = 0;        // mean of a[i] - b[i]
  double half_width = 0;  // of the confidence interval around `mean`
  std::size_t batches = 0;
  double low() const { return mean - half_width; }
  double high() const { return mean + half_width; }
};

// a and b hold one value per job, in submit order, for the same jobs.
// The jobs are cut into `batches` consecutive batches (sizes differ by at
// most one); the interval is mean +- t(1 - (1 - confidence)/2, batches - 1)
// x sd(batch means) / sqrt(batches). Fewer jobs than batches: one batch per
// job.
PairedDifference paired_difference(const std::vector<double>& a, const std::vector<double>& b, std::size_t batches = 20,
                                   double confidence = 0.90);

// Quantile of Student's t distribution: P(T <= x) = p, for p in {0.95, 0.975, 0.995}
// (exact table to 30 degrees of freedom, Cornish-Fisher expansion above).
double student_t_quantile(double p, std::size_t df);

}  // namespace los
