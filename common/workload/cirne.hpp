// Cirne and Berman's workload models (W. Cirne, "Using Moldability to Improve
// the Performance of Supercomputer Jobs", PhD thesis, UCSD 2001, chapter 3),
// as generators:
//
//  - the rigid model: arrivals from one of four daily-cycle polynomials (ANL,
//    CTC, KTH, SDSC; with the thesis's printed coefficient order corrected),
//    scaled by machine size P/O and by the load multiplier; cancellations;
//    uniform-log partition sizes with a power-of-two bias; uniform-log
//    requested times; gamma accuracy; run time = accuracy x requested time.
//  - the moldable model: for each rigid job, a minimum size, Downey's speedup
//    parameters (A, sigma), a number of choices, and the requests (size,
//    requested time) the job offers, the user's own request among them.
//
// The thesis leaves several choices open; each is an option here with the
// default documented in docs/workload-models.md (and pinned by a test).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "workload/swf.hpp"

namespace los {

// The four reference logs whose arrival polynomials the model draws from.
enum class CirneSite { ANL, CTC, KTH, SDSC };
std::string to_string(CirneSite site);
// Processors of the site's machine (O in the thesis): ANL 120, CTC 430, KTH 100, SDSC 128.
int cirne_site_processors(CirneSite site);
// The site's arrival rate polynomial at minute-of-day m in [0, 1440), in jobs
// per minute, unscaled and unclamped (it can dip just below 0 for KTH).
double cirne_arrival_polynomial(CirneSite site, double minute_of_day);

// Downey's speedup S(n) for average parallelism A >= 1 and variance parameter sigma >= 0.
double downey_speedup(double n, double A, double sigma);
// Where the speedup reaches A: 2A - 1 (sigma <= 1) or A + A sigma - sigma (sigma >= 1).
double downey_max_useful(double A, double sigma);

// Nearest power of two by linear distance; on a tie the smaller.
int closest_power_of_two(int n);

struct CirneOptions {
  std::size_t jobs = 10000;
  int nodes = 500;  // P: the simulated machine (500 in the thesis)
  std::uint64_t seed = 1;

  // Rigid model.
  enum class Arrival { Random, ANL, CTC, KTH, SDSC };
  Arrival arrival = Arrival::Random;  // random: one polynomial per workload, as the thesis does
  double load = 1.0;                  // kappa_L: multiplies the arrival rate and every requested time
  double rate_divisor = 1.0;          // divides the polynomials' rate (the thesis uses them as is: 1)
  enum class Cancel { Truncate, Ignore, Drop };
  Cancel cancel = Cancel::Truncate;  // how a cancellation reaches a workload without cancel events
  enum class Accuracy { Clip, Reject };
  Accuracy accuracy = Accuracy::Clip;  // Gamma(0.6, 0.6) above 1: clip to 1, or redraw
  enum class SizeRounding { Ceil, Round };
  SizeRounding size_rounding = SizeRounding::Ceil;  // uniform-log draw to an integer size

  // Moldable model.
  double sigma_scale = 1.0;  // kappa_sigma: multiplies the mean of sigma
  enum class JointA { Slice, SliceAtLeastCmin };
  JointA joint_a = JointA::SliceAtLeastCmin;  // how A is drawn given c_min (spec S1, or S1': redrawn until A >= c_min)
  enum class NegativeSigma { Resample, Clamp };
  NegativeSigma negative_sigma = NegativeSigma::Resample;
  enum class Alternatives { Draws, Distinct };
  // draws: c_u - 1 sizes drawn besides the user's, duplicates dropped (v <= c_u);
  // distinct: draw until c_u distinct sizes or the range is exhausted.
  Alternatives alternatives = Alternatives::Distinct;
  enum class Spacing { Linear, Log };
  Spacing spacing = Spacing::Linear;  // "uniformly chosen between c_min and c_max": on integers, or in log2
};

// One request a moldable job can be submitted with.
struct MoldableRequest {
  int nodes = 0;
  Time request = 0;  // requested time (the kill limit) at this size
  Time runtime = 0;  // the run time it would have at this size
};

struct MoldableJob {
  int c_min = 1;
  double A = 1;
  double sigma = 0;
  int c_max = 1;  // usable maximum, capped at P
  int c_u = 1;    // how many choices the user is willing to give
  bool power_of_two = false;
  double sequential_time = 0;             // L = te(1)
  std::vector<MoldableRequest> requests;  // distinct sizes, ascending; the user's request among them
};

struct CirneWorkload {
  Workload workload;                  // the user (rigid) requests; cancellations applied per options.cancel
  CirneSite site = CirneSite::ANL;    // whose arrival polynomial was used
  std::vector<Time> cancel_lag;       // per job: seconds from submission to cancellation, -1 if never
  std::vector<Time> model_runtime;    // per job: a x tr before any cancellation
  std::vector<double> accuracy;       // per job
  std::vector<bool> power_of_two;     // per job: the pb draw (c_kind)
  std::vector<MoldableJob> moldable;  // per job (moldable generator only; empty for the rigid one)
};

// The rigid model. Throws std::invalid_argument on a bad option.
CirneWorkload generate_cirne(const CirneOptions& options);

// The rigid model plus the moldability model applied to every job. The rigid
// part uses the same random stream as generate_cirne, so the user requests
// equal the rigid workload of the same options.
CirneWorkload generate_cirne_moldable(const CirneOptions& options);

}  // namespace los
