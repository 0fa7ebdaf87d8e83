#include "workload/cirne.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <stdexcept>

#include "workload/sampling.hpp"

namespace los {
namespace {

// Table 3 of the thesis, constant term first. The thesis prints each column
// highest degree first under row labels "1, m_s, m_s^2, ..."; read that way
// no polynomial is a daily cycle (SDSC and KTH are negative all day), read
// reversed all four are (see ../shared/specs/sa-moldability.md, section 3.2).
constexpr std::array<double, 13> kAnl = {0.17191, -0.66152, 2.2601, 62.485, -93.266, -1349.0, 895.15,
                                         11761,   -2922.9,  -45317, 866.10, 64174,   7166.5};
constexpr std::array<double, 9> kCtc = {0.56501, 0.76455, -9.6309, -3.6628, 81.612, 8.4442, -258.51, -25.820, 254.04};
constexpr std::array<double, 14> kKth = {0.097106, 0.022406, 1.9175, 8.3039, -134.82, -221.65, 2154.0,
                                         2380.9,   -15113,   -12611, 49406,  32553,   -61444,  -32683};
constexpr std::array<double, 11> kSdsc = {0.21262, 0.36675, -2.5879, -15.611, 48.583, 199.32,
                                          -573.08, -951.95, 3015.9,  1527.0,  -5499.6};

template <std::size_t N>
double horner(const std::array<double, N>& c, double x) {
  double y = 0;
  for (std::size_t i = N; i-- > 0;) y = y * x + c[i];
  return y;
}

// Model parameters (thesis Tables 11 and 12).
constexpr double kCancelProbability = 0.15;
constexpr double kCancelChi = 0.065, kCancelRho = -0.32;
constexpr double kSizeChi = 0.12, kSizeRho = 0.20;
constexpr double kPowerOfTwoProbability = 0.75;
constexpr double kRequestChi = 0.10, kRequestRho = -0.75;
constexpr double kAccuracyShape = 0.6, kAccuracyScale = 0.6;
constexpr double kCminChi = 0.06920, kCminRho = 0.6279;
constexpr double kSingleChoiceProbability = 0.05;
constexpr double kChoicesChi = 0.1918, kChoicesRho = 0.1876;
constexpr double kPhiA = 0.009548, kGammaA = -0.01877, kEtaA = 0.07468, kRhoA = -0.009198;
constexpr double kSigmaMean = 1.209, kSigmaSd = 1.132;

constexpr double kMinutesPerDay = 1440;
constexpr double kSecondsPerDay = 86400;

int largest_power_of_two_at_most(int n) {
  int p = 1;
  while (p <= n / 2) p *= 2;
  return p;
}

int to_size(double x, CirneOptions::SizeRounding rounding) {
  const double v = rounding == CirneOptions::SizeRounding::Ceil ? std::ceil(x) : std::floor(x + 0.5);
  return static_cast<int>(std::clamp(v, 1.0, 1e9));
}

int power_of_two_within(int n, int nodes) {
  return std::min(closest_power_of_two(n), largest_power_of_two_at_most(nodes));
}

CirneSite site_of(CirneOptions::Arrival a, int drawn) {
  switch (a) {
    case CirneOptions::Arrival::ANL:
      return CirneSite::ANL;
    case CirneOptions::Arrival::CTC:
      return CirneSite::CTC;
    case CirneOptions::Arrival::KTH:
      return CirneSite::KTH;
    case CirneOptions::Arrival::SDSC:
      return CirneSite::SDSC;
    case CirneOptions::Arrival::Random:
      break;
  }
  return static_cast<CirneSite>(drawn);
}

// Non-homogeneous Poisson arrivals by thinning: candidates at the day's peak
// rate, each kept with probability rate(t) / peak.
class Arrivals {
 public:
  Arrivals(CirneSite site, double per_minute_scale) : site_(site), scale_(per_minute_scale) {
    // The peak on a fine grid, with a margin: thinning needs an upper bound.
    double peak = 0;
    for (int i = 0; i < 14400; ++i) peak = std::max(peak, cirne_arrival_polynomial(site, i / 10.0));
    peak_per_second_ = 1.05 * peak * scale_ / 60.0;
  }

  double next(Random& rng) {
    for (;;) {
      t_ += rng.exponential(1.0 / peak_per_second_);
      const double minute = std::fmod(t_, kSecondsPerDay) / 60.0;
      const double rate = std::max(0.0, cirne_arrival_polynomial(site_, minute)) * scale_ / 60.0;
      if (rng.uniform() * peak_per_second_ < rate) return t_;
    }
  }

 private:
  CirneSite site_;
  double scale_;
  double peak_per_second_ = 0;
  double t_ = 0;
};

// What the rigid model draws for one job, before rounding to seconds.
struct RigidDraw {
  double submit = 0;
  int size = 1;
  bool power_of_two = false;
  double request = 0;   // tr, seconds (already times kappa_L)
  double accuracy = 1;  // a
  bool cancelled = false;
  double cancel_lag = 0;
};

void validate(const CirneOptions& o) {
  auto positive = [](double x) { return x > 0 && std::isfinite(x); };
  if (o.jobs == 0) throw std::invalid_argument("cirne: jobs must be at least 1");
  if (o.nodes < 1) throw std::invalid_argument("cirne: nodes must be at least 1, got " + std::to_string(o.nodes));
  if (!positive(o.load)) throw std::invalid_argument("cirne: load must be a positive number");
  if (!positive(o.rate_divisor)) throw std::invalid_argument("cirne: rate-divisor must be a positive number");
  if (!positive(o.sigma_scale)) throw std::invalid_argument("cirne: sigma-scale must be a positive number");
}

struct RigidResult {
  CirneWorkload out;
  std::vector<RigidDraw> draws;  // per emitted job
};

RigidResult generate_rigid(const CirneOptions& o) {
  validate(o);
  Random rng(o.seed);
  // The site is always drawn, so a fixed arrival= option gives the same jobs
  // as a random pick that lands on that site.
  const int drawn_site = static_cast<int>(rng.uniform_int(0, 3));
  RigidResult r;
  CirneWorkload& out = r.out;
  out.site = site_of(o.arrival, drawn_site);
  const double per_minute_scale =
      o.load * static_cast<double>(o.nodes) / cirne_site_processors(out.site) / o.rate_divisor;
  Arrivals arrivals(out.site, per_minute_scale);

  Workload& w = out.workload;
  w.units = o.nodes;
  w.jobs.reserve(o.jobs);
  while (w.jobs.size() < o.jobs) {
    RigidDraw d;
    d.submit = arrivals.next(rng);
    d.size = to_size(rng.log_uniform(kSizeChi, kSizeRho), o.size_rounding);
    d.power_of_two = rng.bernoulli(kPowerOfTwoProbability);
    if (d.power_of_two) d.size = closest_power_of_two(d.size);
    d.size = d.power_of_two ? std::min(d.size, largest_power_of_two_at_most(o.nodes)) : std::min(d.size, o.nodes);
    d.request = o.load * rng.log_uniform(kRequestChi, kRequestRho);
    d.accuracy = rng.gamma(kAccuracyShape, kAccuracyScale);
    if (o.accuracy == CirneOptions::Accuracy::Reject) {
      while (d.accuracy > 1) d.accuracy = rng.gamma(kAccuracyShape, kAccuracyScale);
    } else {
      d.accuracy = std::min(d.accuracy, 1.0);
    }
    d.cancelled = rng.bernoulli(kCancelProbability);
    if (d.cancelled) d.cancel_lag = rng.log_uniform(kCancelChi, kCancelRho);
    if (d.cancelled && o.cancel == CirneOptions::Cancel::Drop) continue;

    Job j;
    j.id = static_cast<JobId>(w.jobs.size() + 1);
    j.submit = static_cast<Time>(std::floor(d.submit));
    j.size = d.size;
    j.estimate = std::max<Time>(1, std::llround(d.request));
    const Time runtime = std::clamp<Time>(std::llround(d.accuracy * d.request), 1, j.estimate);
    const Time lag = d.cancelled ? std::max<Time>(1, std::llround(d.cancel_lag)) : -1;
    j.runtime = runtime;
    // A job cancelled before its natural end runs until the cancellation at
    // most: exact when it starts on arrival, an upper bound otherwise.
    if (lag >= 0 && o.cancel == CirneOptions::Cancel::Truncate) j.runtime = std::min(runtime, lag);
    w.jobs.push_back(j);
    out.cancel_lag.push_back(lag);
    out.model_runtime.push_back(runtime);
    out.accuracy.push_back(d.accuracy);
    out.power_of_two.push_back(d.power_of_two);
    r.draws.push_back(d);
  }
  return r;
}

// How many distinct sizes the alternatives can take: the range [c_min, c_max]
// (every integer is reachable in linear and in log spacing) or, for a
// power-of-two job, the powers of two its rounding reaches, plus the user's
// own size when it lies outside them.
std::size_t attainable_sizes(const MoldableJob& m, int user_size, int nodes) {
  if (!m.power_of_two) {
    const bool inside = user_size >= m.c_min && user_size <= m.c_max;
    return static_cast<std::size_t>(m.c_max - m.c_min + 1) + (inside ? 0 : 1);
  }
  // Rounding to the closest power of two is monotone and skips no power in between.
  const int low = power_of_two_within(m.c_min, nodes);
  const int high = power_of_two_within(m.c_max, nodes);
  std::size_t count = 1;
  for (int p = low; p < high; p *= 2) ++count;
  const bool inside = user_size >= low && user_size <= high;  // the user's size is a power of two here
  return count + (inside ? 0 : 1);
}

}  // namespace

std::string to_string(CirneSite site) {
  switch (site) {
    case CirneSite::ANL:
      return "ANL";
    case CirneSite::CTC:
      return "CTC";
    case CirneSite::KTH:
      return "KTH";
    case CirneSite::SDSC:
      return "SDSC";
  }
  return "?";
}

int cirne_site_processors(CirneSite site) {
  switch (site) {
    case CirneSite::ANL:
      return 120;
    case CirneSite::CTC:
      return 430;
    case CirneSite::KTH:
      return 100;
    case CirneSite::SDSC:
      return 128;
  }
  return 1;
}

double cirne_arrival_polynomial(CirneSite site, double minute_of_day) {
  const double ms = minute_of_day / kMinutesPerDay - 0.5;
  switch (site) {
    case CirneSite::ANL:
      return horner(kAnl, ms);
    case CirneSite::CTC:
      return horner(kCtc, ms);
    case CirneSite::KTH:
      return horner(kKth, ms);
    case CirneSite::SDSC:
      return horner(kSdsc, ms);
  }
  return 0;
}

double downey_speedup(double n, double A, double sigma) {
  if (sigma <= 1) {
    if (n <= A) return A * n / (A + sigma * (n - 1) / 2);
    if (n <= 2 * A - 1) return A * n / (sigma * (A - 0.5) + n * (1 - sigma / 2));
    return A;
  }
  if (n <= A + A * sigma - sigma) return n * A * (sigma + 1) / (sigma * (n + A - 1) + A);
  return A;
}

double downey_max_useful(double A, double sigma) { return sigma <= 1 ? 2 * A - 1 : A + A * sigma - sigma; }

int closest_power_of_two(int n) {
  if (n <= 1) return 1;
  int low = 1;
  while (low <= n / 2) low *= 2;  // largest power of two <= n
  if (low == n) return n;
  const long long high = 2LL * low;
  return (n - low <= high - n) ? low : static_cast<int>(high);
}

CirneWorkload generate_cirne(const CirneOptions& options) { return generate_rigid(options).out; }

CirneWorkload generate_cirne_moldable(const CirneOptions& o) {
  RigidResult r = generate_rigid(o);
  CirneWorkload& out = r.out;
  // A stream of its own, so the rigid jobs stay those of generate_cirne.
  Random rng(derive_seed(o.seed, 1));
  out.moldable.reserve(out.workload.jobs.size());
  for (std::size_t i = 0; i < out.workload.jobs.size(); ++i) {
    const Job& user = out.workload.jobs[i];
    const RigidDraw& d = r.draws[i];
    MoldableJob m;
    m.c_min = std::min(to_size(rng.log_uniform(kCminChi, kCminRho), o.size_rounding), o.nodes);
    // A given c_min: the fitted joint uniform-log sliced at X = log2(c_min).
    const double x = std::log2(static_cast<double>(m.c_min));
    const double chi_a = kPhiA * x + kEtaA;
    const double rho_a = kGammaA * x + kRhoA;
    m.A = std::max(1.0, std::exp2((rng.uniform() - rho_a) / chi_a));
    if (o.joint_a == CirneOptions::JointA::SliceAtLeastCmin) {
      for (int tries = 0; m.A < m.c_min && tries < 1000; ++tries) {
        m.A = std::max(1.0, std::exp2((rng.uniform() - rho_a) / chi_a));
      }
      m.A = std::max(m.A, static_cast<double>(m.c_min));
    }
    m.sigma = rng.normal(kSigmaMean * o.sigma_scale, kSigmaSd);
    if (o.negative_sigma == CirneOptions::NegativeSigma::Resample) {
      while (m.sigma < 0) m.sigma = rng.normal(kSigmaMean * o.sigma_scale, kSigmaSd);
    } else {
      m.sigma = std::max(m.sigma, 0.0);
    }
    const double c_max = std::floor(downey_max_useful(m.A, m.sigma));
    m.c_max = static_cast<int>(std::min<double>(o.nodes, std::max<double>(m.c_min, c_max)));
    m.c_u = rng.bernoulli(kSingleChoiceProbability)
                ? 1
                : std::max(2, static_cast<int>(std::ceil(rng.log_uniform(kChoicesChi, kChoicesRho))));
    m.power_of_two = d.power_of_two;

    auto draw_size = [&]() {
      int s = 0;
      if (o.spacing == CirneOptions::Spacing::Linear) {
        s = static_cast<int>(rng.uniform_int(m.c_min, m.c_max));
      } else {
        const double lo = std::log2(static_cast<double>(m.c_min));
        const double hi = std::log2(static_cast<double>(m.c_max));
        s = static_cast<int>(std::floor(std::exp2(rng.uniform(lo, hi)) + 0.5));
      }
      return m.power_of_two ? power_of_two_within(s, o.nodes) : s;
    };
    std::set<int> sizes = {user.size};
    if (o.alternatives == CirneOptions::Alternatives::Draws) {
      for (int k = 1; k < m.c_u; ++k) sizes.insert(draw_size());
    } else {
      // Draw until c_u distinct sizes, or every size the range can give.
      const std::size_t target = std::min<std::size_t>(m.c_u, attainable_sizes(m, user.size, o.nodes));
      for (long tries = 0; sizes.size() < target && tries < 1000000; ++tries) sizes.insert(draw_size());
    }

    m.sequential_time = d.accuracy * d.request * downey_speedup(user.size, m.A, m.sigma);
    for (int s : sizes) {
      MoldableRequest q;
      q.nodes = s;
      if (s == user.size) {
        q.request = user.estimate;
        q.runtime = out.model_runtime[i];
      } else {
        // Same accuracy at every size: tr(s) = L / (S(s) a).
        const double te = m.sequential_time / downey_speedup(s, m.A, m.sigma);
        q.request = std::max<Time>(1, std::llround(te / d.accuracy));
        q.runtime = std::clamp<Time>(std::llround(te), 1, q.request);
      }
      m.requests.push_back(q);
    }
    out.moldable.push_back(std::move(m));
  }
  return std::move(out);
}

}  // namespace los
