// User runtime estimates for generated workloads: the model of D. Tsafrir,
// Y. Etsion and D. G. Feitelson, "Modeling User Runtime Estimates", JSSPP 2005
// (LNCS 3834).
//
// Real users do not estimate run times; they pick one of a few round values
// (5 min, 15 min, 1 h, ... and, most often of all, the longest the site
// allows). The model reproduces that: a histogram of estimate values whose 20
// most popular ("head") values are round and hold 89% of the jobs, the site
// maximum being the most popular; the rest ("tail") are many rarely used
// values. Each job then gets an estimate drawn from that histogram, never below
// its run time. With exact estimates (estimate = run time) no job ends early,
// so backfilling never has holes to fill and conservative never compresses;
// with these estimates a generated workload behaves like a real trace.
// docs/workload-models.md gives every parameter and the choices made here.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <vector>

#include "model/job.hpp"
#include "workload/sampling.hpp"

namespace los {

struct EstimateModelError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

struct ModalEstimateOptions {
  Time max_estimate = 48 * 3600;  // the site's largest allowed estimate (the most popular one); >= 1 h
  std::size_t bins = 0;           // distinct estimate values; 0 = the model's function of the job count
  double head_share = 89.0;       // percent of jobs that use one of the 20 most popular values
};

// One value of the estimate histogram.
struct EstimateBin {
  Time estimate = 0;
  std::size_t jobs = 0;
};

// The model's number of distinct estimate values for a workload of `jobs`
// jobs: piecewise linear through the paper's points (20 jobs: 10 values, 200:
// 20, 1,000: 35, 10,000: 90, 70,000: 340, 250,000 and more: 565).
std::size_t modal_estimate_bin_count(std::size_t jobs);

// The head's times: the maximum first, then the other round values below it in
// ascending order (at most 20 in all).
std::vector<Time> modal_head_estimates(Time max_estimate);

// A histogram of `jobs` estimates, sorted by estimate; its counts sum to `jobs`.
// Throws EstimateModelError on a bad option (the message names it).
std::vector<EstimateBin> modal_estimate_distribution(std::size_t jobs, const ModalEstimateOptions& options,
                                                     Random& rng);

// Gives every job an estimate from `distribution` (its counts must sum to
// jobs.size()): jobs are taken from the longest run time down, each drawing
// uniformly among the remaining estimates that are not below its run time.
// Throws EstimateModelError when no such assignment exists (too many run times
// above the values the histogram offers), naming the first job that has none.
void assign_estimates(std::vector<Job>& jobs, const std::vector<EstimateBin>& distribution, Random& rng);

// Both steps with the options, drawing from `rng`.
void draw_modal_estimates(std::vector<Job>& jobs, const ModalEstimateOptions& options, Random& rng);

// The Phi model of overestimation (Zhang, Franke, Moreira, Sivasubramaniam,
// "An Analysis of Space- and Time-Sharing Techniques for Parallel Job
// Scheduling", section 2.2; spec ../shared/specs/gang-migration.md 4.3): a
// fraction `phi` of jobs end exactly at their estimate; for the rest, run
// time / estimate is uniform on (0, 1). With y uniform on [0, 1) the
// overestimation factor is f = 1 if y < phi, else (1 - phi) / (1 - y).
// P(f <= x) = 1 - (1 - phi) / x for x >= 1: the mean of f is infinite, its
// median is max(1, 2 (1 - phi)). Throws EstimateModelError unless 0 <= phi <= 1.
double phi_overestimation(double phi, Random& rng);

// Gives every job the estimate ceil(f x run time) with its own f (at least
// 1 s, at most kTimeMax: f is not capped otherwise, so a few estimates are
// thousands of times the run time).
void draw_phi_estimates(std::vector<Job>& jobs, double phi, Random& rng);

}  // namespace los
