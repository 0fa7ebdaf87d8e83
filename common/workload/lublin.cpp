#include "workload/lublin.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include "workload/sampling.hpp"

namespace los {
namespace {

constexpr int kBuckets = 48;  // half hours in a day
constexpr double kSecondsInBucket = 1800;
constexpr int kCyclicDayStart = 11;         // the gamma CDF is fitted to a day starting at bucket 11
constexpr double kMaxLogRuntime = 12;       // exp(12) s ~ 45 h: longer draws are redrawn
constexpr double kMaxLogInterarrival = 13;  // exp(13) s ~ 5 days: longer draws are redrawn
constexpr double kReferenceLog2Nodes = 7;   // the size parameters are fitted for 128 nodes

// One stream of arrivals (the whole sample, or batch, or interactive jobs).
class ArrivalProcess {
 public:
  ArrivalProcess(const LublinStream& s, int start_hour, double scale)
      : weights_(lublin_bucket_weights(s)),
        shape_(s.aarr * s.arar),
        scale_(s.barr),
        points_scale_(scale),
        bucket_(start_hour * kBuckets / 24) {}

  // Advances to the next arrival; returns its time in seconds since the start.
  double advance(Random& rng) {
    double g = 0;
    do {
      g = rng.gamma(shape_, scale_);
    } while (g > kMaxLogInterarrival);
    // exp(g) seconds of rush-hour inter-arrival, paid in "points": a bucket
    // of weight w costs w points, so heavy buckets pass slowly and collect
    // more arrivals.
    points_ += points_scale_ * std::exp(g) / kSecondsInBucket;
    double dt = 0;
    while (points_ > weights_[bucket_]) {
      points_ -= weights_[bucket_];
      bucket_ = (bucket_ + 1) % kBuckets;
      dt += kSecondsInBucket;
    }
    const double remainder = points_ / weights_[bucket_];
    dt += kSecondsInBucket * (remainder - remainder_);
    remainder_ = remainder;
    time_ += dt;
    return time_;
  }

  double time() const { return time_; }

 private:
  std::vector<double> weights_;
  double shape_;
  double scale_;
  double points_scale_;
  int bucket_;
  double points_ = 0;
  double remainder_ = 0;
  double time_ = 0;
};

// A stream's parameters adapted to the machine: log2 of the largest size is
// log2(M) and the middle of the two-stage uniform moves with it.
LublinStream for_machine(LublinStream s, int nodes) {
  const double shift = std::log2(static_cast<double>(nodes)) - kReferenceLog2Nodes;
  s.uhi += shift;
  s.umed += shift;
  // Small machines: keep low <= med <= high so both stages stay proper intervals.
  s.umed = std::max(s.umed, s.ulow);
  s.uhi = std::max(s.uhi, s.umed);
  return s;
}

int largest_power_of_two_at_most(int n) {
  int p = 1;
  while (p <= n / 2) p *= 2;
  return p;
}

int draw_size(const LublinStream& s, int nodes, Random& rng) {
  const double u = rng.uniform();
  if (u <= s.serial_prob) return 1;
  double par = rng.two_stage_uniform(s.ulow, s.umed, s.uhi, s.uprob);
  const bool power_of_two = u <= s.serial_prob + s.pow2_prob;  // the same u decides, as in the reference
  if (power_of_two) par = std::floor(par + 0.5);
  int size = static_cast<int>(std::floor(std::exp2(par) + 0.5));
  if (size > nodes) size = power_of_two ? largest_power_of_two_at_most(nodes) : nodes;
  return std::max(size, 1);
}

Time draw_runtime(const LublinStream& s, int size, Random& rng) {
  const double p = std::clamp(s.pa * size + s.pb, 0.0, 1.0);
  double hg = 0;
  do {
    hg = rng.hyper_gamma(s.a1, s.b1, s.a2, s.b2, p);
  } while (hg > kMaxLogRuntime);
  return std::max<Time>(1, static_cast<Time>(std::floor(std::exp(hg))));
}

}  // namespace

LublinStream lublin_typeless() {
  return {.serial_prob = 0.244,
          .pow2_prob = 0.576,
          .ulow = 0.8,
          .umed = 4.5,
          .uhi = 7,
          .uprob = 0.86,
          .a1 = 4.2,
          .b1 = 0.94,
          .a2 = 312,
          .b2 = 0.03,
          .pa = -0.0054,
          .pb = 0.78,
          .aarr = 10.2303,
          .barr = 0.4871,
          .anum = 8.1737,
          .bnum = 3.9631,
          .arar = 1.0225};
}

LublinStream lublin_batch() {
  return {.serial_prob = 0.2927,
          .pow2_prob = 0.6686,
          .ulow = 1.2,
          .umed = 5,
          .uhi = 7,
          .uprob = 0.875,
          .a1 = 6.57,
          .b1 = 0.823,
          .a2 = 639.1,
          .b2 = 0.0156,
          .pa = -0.003,
          .pb = 0.6986,
          .aarr = 6.0415,
          .barr = 0.8531,
          .anum = 6.1271,
          .bnum = 5.2740,
          .arar = 1.0519};
}

LublinStream lublin_interactive() {
  return {.serial_prob = 0.1541,
          .pow2_prob = 0.625,
          .ulow = 1,
          .umed = 3,
          .uhi = 5.5,
          .uprob = 0.705,
          .a1 = 3.8351,
          .b1 = 0.6605,
          .a2 = 7.073,
          .b2 = 0.6856,
          .pa = -0.0118,
          .pb = 0.9156,
          .aarr = 6.5510,
          .barr = 0.6621,
          .anum = 8.9186,
          .bnum = 3.6680,
          .arar = 0.9797};
}

std::vector<double> lublin_bucket_weights(const LublinStream& s) {
  std::vector<double> w(kBuckets, 0.0);
  double sum = 0;
  for (int i = kCyclicDayStart; i < kBuckets + kCyclicDayStart; ++i) {
    const int idx = (i - 1) % kBuckets;
    w[idx] = gamma_cdf(i + 0.5, s.anum, s.bnum) - gamma_cdf(i - 0.5, s.anum, s.bnum);
    sum += w[idx];
  }
  const double mean = sum / kBuckets;
  for (double& x : w) x /= mean;
  return w;
}

LublinWorkload generate_lublin(const LublinOptions& o) {
  if (o.jobs == 0) throw std::invalid_argument("lublin: jobs must be at least 1");
  if (o.nodes < 2) throw std::invalid_argument("lublin: nodes must be at least 2, got " + std::to_string(o.nodes));
  if (!(o.arrival_scale > 0) || !std::isfinite(o.arrival_scale)) {
    throw std::invalid_argument("lublin: arrival-scale must be a positive number");
  }
  if (o.start_hour < 0 || o.start_hour > 23) {
    throw std::invalid_argument("lublin: start-hour must be in [0, 23], got " + std::to_string(o.start_hour));
  }
  const bool two_types = o.parameters == LublinParameters::BatchInteractive;
  // Index 0 is the whole sample or the interactive stream, 1 the batch stream.
  const std::array<LublinStream, 2> streams = {
      for_machine(two_types ? lublin_interactive() : lublin_typeless(), o.nodes), for_machine(lublin_batch(), o.nodes)};

  Random rng(o.seed);
  std::vector<ArrivalProcess> arrivals;
  arrivals.emplace_back(streams[0], o.start_hour, o.arrival_scale);
  arrivals.emplace_back(streams[1], o.start_hour, o.arrival_scale);
  // The first job of each stream arrives at its first generated time, not at 0.
  arrivals[0].advance(rng);
  if (two_types) arrivals[1].advance(rng);

  LublinWorkload out;
  Workload& w = out.workload;
  w.units = o.nodes;
  w.jobs.reserve(o.jobs);
  out.type.reserve(o.jobs);
  for (std::size_t i = 0; i < o.jobs; ++i) {
    // The job's type is the stream whose next arrival comes first (interactive on a tie).
    const int k = two_types && arrivals[1].time() < arrivals[0].time() ? 1 : 0;
    const double t = arrivals[k].time();
    arrivals[k].advance(rng);
    Job j;
    j.id = static_cast<JobId>(i + 1);
    j.submit = static_cast<Time>(std::floor(t));
    j.size = draw_size(streams[k], o.nodes, rng);
    j.runtime = draw_runtime(streams[k], j.size, rng);
    j.estimate = j.runtime;
    w.jobs.push_back(j);
    out.type.push_back(two_types ? (k == 1 ? kLublinBatch : kLublinInteractive) : kLublinTypeless);
  }
  return out;
}

}  // namespace los
