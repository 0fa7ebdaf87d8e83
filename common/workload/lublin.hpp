// The Lublin-Feitelson model of rigid parallel jobs (U. Lublin and D. G.
// Feitelson, "The workload on parallel supercomputers: modeling the
// characteristics of rigid jobs", JPDC 63(11), 2003), as a generator.
//
// Per job: an arrival time from a daily cycle (gamma inter-arrivals in
// "points", paid to 48 half-hour buckets weighted by a gamma CDF), a size
// (serial, power-of-two, or other, from a two-stage uniform on log2 size), and
// a run time from a hyper-gamma on log(run time) whose mixing probability
// falls with size (bigger jobs run longer). docs/workload-models.md gives every
// parameter and every choice made where the model leaves one open.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "workload/swf.hpp"

namespace los {

// One job stream's parameters, as in the reference implementation, for a
// machine of 128 nodes (the size parameters are shifted for other sizes).
struct LublinStream {
  // Size: P(serial), P(power of two), two-stage uniform on log2(size).
  double serial_prob, pow2_prob, ulow, umed, uhi, uprob;
  // Run time: log(run time) ~ hyper-gamma (a1, b1) w.p. p, (a2, b2) otherwise,
  // p = clamp(pa * size + pb, 0, 1).
  double a1, b1, a2, b2, pa, pb;
  // Arrivals: inter-arrival "points" exp(Gamma(aarr * arar, barr)); the
  // daily cycle's bucket weights from the Gamma(anum, bnum) CDF.
  double aarr, barr, anum, bnum, arar;
};

// The whole-sample ("typeless") fit: the one that reproduces the job mix of
// the published synthetic workloads (63-65% short, 19-20% medium, 16-17% long).
LublinStream lublin_typeless();
// The two-stream fit: batch and interactive jobs, each with its own arrival process.
LublinStream lublin_batch();
LublinStream lublin_interactive();

enum class LublinParameters { Typeless, BatchInteractive };

struct LublinOptions {
  std::size_t jobs = 10000;
  int nodes = 128;  // machine size M; log2(M) replaces log2(128) in the size model
  std::uint64_t seed = 1;
  LublinParameters parameters = LublinParameters::Typeless;
  double arrival_scale = 1.0;  // multiplies every inter-arrival time (< 1 raises the load)
  int start_hour = 0;          // hour of day (0-23) at time 0
};

// The job type as SWF's queue field records it (the reference code's convention).
inline constexpr int kLublinInteractive = 0;
inline constexpr int kLublinBatch = 1;
inline constexpr int kLublinTypeless = -1;

struct LublinWorkload {
  Workload workload;      // estimate = run time (the model has no user estimates)
  std::vector<int> type;  // per job: kLublinInteractive, kLublinBatch or kLublinTypeless
};

// Generates options.jobs jobs; throws std::invalid_argument on a bad option
// (the message names it).
LublinWorkload generate_lublin(const LublinOptions& options);

// The 48 half-hour bucket weights of a stream's daily cycle, bucket 0 =
// 00:00-00:30, normalized to mean 1. Arrivals fall in bucket b with
// probability weight[b] / 48.
std::vector<double> lublin_bucket_weights(const LublinStream& stream);

}  // namespace los
