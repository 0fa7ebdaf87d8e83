#include "workload/estimates.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <set>
#include <string>

namespace los {
namespace {

constexpr Time kMinute = 60;
constexpr Time kHour = 3600;
constexpr std::size_t kHeadValues = 20;

// Round values below the maximum that were among the 20 most popular in all
// four traces the model was fitted to (SDSC, CTC, KTH, Blue Horizon).
constexpr std::array<Time, 15> kCommonRoundValues = {
    5 * kMinute, 10 * kMinute, 15 * kMinute, 20 * kMinute, 30 * kMinute, 1 * kHour,  2 * kHour,  3 * kHour,
    4 * kHour,   5 * kHour,    6 * kHour,    8 * kHour,    10 * kHour,   12 * kHour, 18 * kHour,
};

// When those are not 20 (a small maximum), multiples of these steps below the
// maximum complete the head, coarsest step first.
constexpr std::array<Time, 10> kRoundSteps = {200 * kHour, 100 * kHour, 50 * kHour,   10 * kHour,   5 * kHour,
                                              2 * kHour,   1 * kHour,   20 * kMinute, 10 * kMinute, 5 * kMinute};

// Popularity rank (1 = most used) of the value of each time rank (0 = the
// maximum, then the head's other values in ascending order) in each of the four
// traces: the data the model's time-to-popularity matching draws from.
constexpr std::array<std::array<int, 4>, kHeadValues> kPopularityOfTimeRank = {{
    {3, 1, 1, 1},     {1, 3, 4, 6},     {4, 4, 10, 5},    {17, 2, 14, 3},  {13, 12, 20, 7},
    {7, 9, 2, 2},     {8, 8, 3, 18},    {18, 18, 7, 19},  {2, 6, 12, 4},   {6, 7, 6, 11},
    {16, 11, 19, 20}, {10, 20, 5, 9},   {5, 16, 18, 10},  {15, 5, 16, 14}, {14, 14, 9, 13},
    {19, 13, 17, 16}, {11, 10, 15, 15}, {12, 15, 13, 17}, {9, 17, 8, 8},   {20, 19, 11, 12},
}};

// The fitted curves: head share of popularity rank r (2..20) = a e^(b r) + c
// percent; tail share of rank r (21..) proportional to a r^b; tail values at
// normalized time rank x: max * (a - 1) x / (a - x), a = 1 + p K^q.
constexpr double kHeadA = 14.0491, kHeadB = -0.177531, kHeadC = 0.462513;
constexpr double kTailA = 795.6, kTailB = -2.267;
constexpr double kTailTimeP = 12.1039, kTailTimeQ = -0.6026;

struct BinCountPoint {
  double jobs, bins;
};
constexpr std::array<BinCountPoint, 7> kBinCountPoints = {
    {{0, 0}, {20, 10}, {200, 20}, {1000, 35}, {10000, 90}, {70000, 340}, {250000, 565}}};

// Fisher-Yates over Random::uniform_int, so a seed gives the same order everywhere.
template <typename T>
void shuffle(std::vector<T>& v, Random& rng) {
  for (std::size_t i = v.size(); i > 1; --i) {
    const auto j = static_cast<std::size_t>(rng.uniform_int(0, static_cast<long long>(i) - 1));
    std::swap(v[i - 1], v[j]);
  }
}

// For each time rank of the head (0 = the maximum), its popularity rank in
// 1..n. The maximum is the most popular. Every other time rank draws from the
// ranks the four traces gave that time rank or an earlier one (a rank seen in
// several traces is more likely), keeping the more popular of two draws; a rank
// whose last appearance in the table is at this time rank is taken first, so
// that every rank is used once.
std::vector<int> popularity_of_time_ranks(std::size_t n, Random& rng) {
  std::vector<int> last_row(kHeadValues + 1, -1);  // by popularity rank
  for (std::size_t row = 0; row < kHeadValues; ++row) {
    for (int rank : kPopularityOfTimeRank[row]) last_row[rank] = static_cast<int>(row);
  }
  std::vector<bool> used(n + 1, false);
  std::vector<int> result(n, 0);
  result[0] = 1;
  used[1] = true;
  std::vector<int> pool;
  for (std::size_t row = 1; row < n; ++row) {
    pool.clear();
    for (std::size_t r = 0; r <= row; ++r) {
      for (int rank : kPopularityOfTimeRank[r]) {
        if (static_cast<std::size_t>(rank) <= n && !used[rank]) pool.push_back(rank);
      }
    }
    int chosen = 0;
    for (std::size_t rank = 2; rank <= n && chosen == 0; ++rank) {
      if (!used[rank] && last_row[rank] <= static_cast<int>(row)) chosen = static_cast<int>(rank);
    }
    if (chosen == 0 && !pool.empty()) {
      for (int draw = 0; draw < 2; ++draw) {
        const int rank = pool[static_cast<std::size_t>(rng.uniform_int(0, static_cast<long long>(pool.size()) - 1))];
        if (chosen == 0 || rank < chosen) chosen = rank;
      }
    }
    if (chosen == 0) {  // a small head: the table's ranks for this row are all above n or used
      for (std::size_t rank = 2; rank <= n && chosen == 0; ++rank) {
        if (!used[rank]) chosen = static_cast<int>(rank);
      }
    }
    result[row] = chosen;
    used[chosen] = true;
  }
  return result;
}

// Shares in percent of the head's popularity ranks 1..n; rank 1 takes what
// ranks 2..n leave of `head_share`.
std::vector<double> head_shares(std::size_t n, double head_share) {
  std::vector<double> share(n, 0.0);
  double others = 0;
  for (std::size_t rank = 2; rank <= n; ++rank) {
    share[rank - 1] = kHeadA * std::exp(kHeadB * static_cast<double>(rank)) + kHeadC;
    others += share[rank - 1];
  }
  share[0] = head_share - others;
  return share;
}

// Tail values: the fitted curve at n equally spaced normalized time ranks,
// on whole minutes; a value that meets one already taken moves by 30, 20 or 10
// seconds, and is dropped when all of those are taken too.
std::vector<Time> tail_estimates(std::size_t n, std::size_t bins, Time max_estimate, const std::set<Time>& head) {
  const double a = 1.0 + kTailTimeP * std::pow(static_cast<double>(bins), kTailTimeQ);
  constexpr std::array<Time, 7> kNudges = {0, 30, -30, 20, -20, 10, -10};
  std::set<Time> taken = head;
  std::vector<Time> values;
  for (std::size_t i = 1; i <= n; ++i) {
    const double x = static_cast<double>(i) / static_cast<double>(n);
    const double y = (a - 1.0) * x / (a - x);
    const Time minute = static_cast<Time>(std::llround(y * static_cast<double>(max_estimate) / 60.0)) * 60;
    for (Time nudge : kNudges) {
      const Time t = minute + nudge;
      if (t > 0 && t < max_estimate && taken.insert(t).second) {
        values.push_back(t);
        break;
      }
    }
  }
  return values;
}

// Whole job counts from percentages: each rounded, at least 1 while there are
// jobs enough, then the largest bins absorb the difference one job at a time.
std::vector<std::size_t> job_counts(const std::vector<double>& percent, std::size_t jobs) {
  const double total = std::accumulate(percent.begin(), percent.end(), 0.0);
  const std::size_t floor_one = jobs >= percent.size() ? 1 : 0;
  std::vector<std::size_t> count(percent.size());
  long long sum = 0;
  for (std::size_t i = 0; i < percent.size(); ++i) {
    const double c = percent[i] / total * static_cast<double>(jobs);
    count[i] = std::max<std::size_t>(floor_one, static_cast<std::size_t>(std::llround(c)));
    sum += static_cast<long long>(count[i]);
  }
  std::vector<std::size_t> by_size(percent.size());
  std::iota(by_size.begin(), by_size.end(), std::size_t{0});
  std::stable_sort(by_size.begin(), by_size.end(), [&](std::size_t x, std::size_t y) { return count[x] > count[y]; });
  long long diff = static_cast<long long>(jobs) - sum;
  while (diff != 0) {
    bool moved = false;
    for (std::size_t i : by_size) {
      if (diff == 0) break;
      if (diff > 0) {
        ++count[i];
        --diff;
        moved = true;
      } else if (count[i] > floor_one) {
        --count[i];
        ++diff;
        moved = true;
      }
    }
    if (!moved) break;  // cannot happen: the floor is 0 when bins outnumber jobs
  }
  return count;
}

}  // namespace

std::size_t modal_estimate_bin_count(std::size_t jobs) {
  const double n = static_cast<double>(jobs);
  if (n >= kBinCountPoints.back().jobs) return static_cast<std::size_t>(kBinCountPoints.back().bins);
  for (std::size_t k = 1; k < kBinCountPoints.size(); ++k) {
    if (n <= kBinCountPoints[k].jobs) {
      const BinCountPoint lo = kBinCountPoints[k - 1], hi = kBinCountPoints[k];
      return static_cast<std::size_t>(
          std::llround(lo.bins + (n - lo.jobs) * (hi.bins - lo.bins) / (hi.jobs - lo.jobs)));
    }
  }
  return static_cast<std::size_t>(kBinCountPoints.back().bins);
}

std::vector<Time> modal_head_estimates(Time max_estimate) {
  std::vector<Time> head = {max_estimate};
  auto has = [&](Time t) { return std::find(head.begin(), head.end(), t) != head.end(); };
  for (Time t : kCommonRoundValues) {
    if (t < max_estimate) head.push_back(t);
  }
  for (Time step : kRoundSteps) {
    for (Time t = max_estimate / step * step; t > 0 && head.size() < kHeadValues; t -= step) {
      if (!has(t)) head.push_back(t);
    }
  }
  std::sort(head.begin() + 1, head.end());
  return head;
}

std::vector<EstimateBin> modal_estimate_distribution(std::size_t jobs, const ModalEstimateOptions& options,
                                                     Random& rng) {
  if (options.max_estimate < kHour || options.max_estimate > kTimeMax) {
    throw EstimateModelError("estimate model: max-estimate must be from 3600 s (1 h) to 2^50 s, got " +
                             std::to_string(options.max_estimate));
  }
  if (!(options.head_share > 0 && options.head_share <= 100)) {
    throw EstimateModelError("estimate model: head-share must be in (0, 100] percent, got " +
                             std::to_string(options.head_share));
  }
  if (jobs == 0) return {};
  const std::vector<Time> head = modal_head_estimates(options.max_estimate);
  const std::size_t bins = std::max(options.bins ? options.bins : modal_estimate_bin_count(jobs), std::size_t{1});
  const std::size_t head_size = std::min(head.size(), bins);

  std::vector<double> share_by_rank = head_shares(head_size, options.head_share);
  const std::vector<int> rank_of = popularity_of_time_ranks(head_size, rng);
  std::vector<Time> values;
  std::vector<double> percent;
  // With fewer bins than head values, the least popular head values go.
  for (std::size_t t = 0; t < head.size(); ++t) {
    if (t < head_size) {
      values.push_back(head[t]);
      percent.push_back(share_by_rank[static_cast<std::size_t>(rank_of[t]) - 1]);
    }
  }
  if (bins > head_size) {
    std::vector<Time> tail =
        tail_estimates(bins - head_size, bins, options.max_estimate, std::set<Time>(values.begin(), values.end()));
    std::vector<double> tail_share;
    double sum = 0;
    for (std::size_t i = 0; i < tail.size(); ++i) {
      tail_share.push_back(kTailA * std::pow(static_cast<double>(kHeadValues + 1 + i), kTailB));
      sum += tail_share.back();
    }
    shuffle(tail, rng);  // which tail value gets which popularity is random
    for (std::size_t i = 0; i < tail.size(); ++i) {
      values.push_back(tail[i]);
      percent.push_back(tail_share[i] / sum * (100.0 - options.head_share));
    }
  }
  const std::vector<std::size_t> count = job_counts(percent, jobs);
  std::vector<EstimateBin> distribution;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (count[i] > 0) distribution.push_back({values[i], count[i]});
  }
  std::sort(distribution.begin(), distribution.end(),
            [](const EstimateBin& x, const EstimateBin& y) { return x.estimate < y.estimate; });
  return distribution;
}

void assign_estimates(std::vector<Job>& jobs, const std::vector<EstimateBin>& distribution, Random& rng) {
  std::vector<Time> estimates;  // one per job, longest first
  estimates.reserve(jobs.size());
  for (auto bin = distribution.rbegin(); bin != distribution.rend(); ++bin) {
    estimates.insert(estimates.end(), bin->jobs, bin->estimate);
  }
  if (estimates.size() != jobs.size()) {
    throw EstimateModelError("estimate model: the histogram holds " + std::to_string(estimates.size()) +
                             " estimates for " + std::to_string(jobs.size()) + " jobs");
  }
  std::vector<std::size_t> order(jobs.size());  // longest run time first; ties in job order
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t x, std::size_t y) { return jobs[x].runtime > jobs[y].runtime; });
  for (std::size_t k = 0; k < order.size(); ++k) {
    const Job& j = jobs[order[k]];
    if (j.runtime > estimates[k]) {
      throw EstimateModelError("estimate model: job " + std::to_string(j.id) + " runs " + std::to_string(j.runtime) +
                               " s, but only " + std::to_string(k) + " estimates are at least that long (the " +
                               std::to_string(k + 1) + "th longest is " + std::to_string(estimates[k]) +
                               " s); raise max-estimate");
    }
  }
  // estimates[k..] are the ones left; those at least as long as job k's run
  // time are the prefix [k, hi] (the list is sorted longest first, and every
  // estimate moved behind k is one a longer-running job could have taken).
  std::size_t hi = 0;
  for (std::size_t k = 0; k < order.size(); ++k) {
    Job& j = jobs[order[k]];
    hi = std::max(hi, k);
    while (hi + 1 < estimates.size() && estimates[hi + 1] >= j.runtime) ++hi;
    const auto pick = static_cast<std::size_t>(rng.uniform_int(static_cast<long long>(k), static_cast<long long>(hi)));
    j.estimate = std::max<Time>(estimates[pick], 1);
    std::swap(estimates[pick], estimates[k]);
  }
}

void draw_modal_estimates(std::vector<Job>& jobs, const ModalEstimateOptions& options, Random& rng) {
  assign_estimates(jobs, modal_estimate_distribution(jobs.size(), options, rng), rng);
}

double phi_overestimation(double phi, Random& rng) {
  if (!(phi >= 0 && phi <= 1)) throw EstimateModelError("phi must be in [0, 1], got " + std::to_string(phi));
  // uniform() is on (0, 1); the paper's y is on [0, 1): the same law.
  const double y = rng.uniform();
  return y < phi ? 1.0 : (1 - phi) / (1 - y);
}

void draw_phi_estimates(std::vector<Job>& jobs, double phi, Random& rng) {
  for (Job& j : jobs) {
    const double f = phi_overestimation(phi, rng);
    const double estimate = std::ceil(f * static_cast<double>(j.runtime));
    j.estimate = std::max<Time>(
        {Time{1}, j.runtime, estimate >= static_cast<double>(kTimeMax) ? kTimeMax : static_cast<Time>(estimate)});
  }
}

}  // namespace los
