#include "policies/los_dp.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace los {
namespace {

constexpr std::int64_t kUnreachable = std::numeric_limits<std::int64_t>::min() / 4;
constexpr std::uint8_t kSelected = 1;
constexpr std::uint8_t kBypassed = 2;

// The key order of the table: util up, then sutil down, then merit up.
// Returns <0, 0, >0 as a is worse than, equal to, better than b.
int compare(const LosCell& a, const LosCell& b) {
  if (a.util != b.util) return a.util < b.util ? -1 : 1;
  if (a.sutil != b.sutil) return a.sutil > b.sutil ? -1 : 1;
  if (a.merit != b.merit) return a.merit < b.merit ? -1 : 1;
  return 0;
}

// A fixed-width set of integers [0, bits) as 64-bit words.
std::size_t words_for(std::size_t bits) { return (bits + 63) / 64; }

bool test_bit(const std::uint64_t* w, std::size_t x) { return (w[x >> 6] >> (x & 63)) & 1U; }

// dst = src | (src << shift), cut to `bits` bits; dst and src do not overlap.
void or_shifted(std::uint64_t* dst, const std::uint64_t* src, std::size_t words, std::size_t bits, std::size_t shift) {
  std::copy(src, src + words, dst);
  const std::size_t ws = shift >> 6;
  const unsigned bs = static_cast<unsigned>(shift & 63);
  for (std::size_t i = words; i-- > ws;) {
    std::uint64_t v = src[i - ws] << bs;
    if (bs != 0 && i - ws >= 1) v |= src[i - ws - 1] >> (64 - bs);
    dst[i] |= v;
  }
  const std::size_t tail = bits & 63;
  if (tail != 0) dst[words - 1] &= (std::uint64_t{1} << tail) - 1;
}

// One class of candidates (A: ends by shadow; B: runs past it) with the
// trace-back markers of its 1-D problem. bypass_ok(t, x): the best set of
// the first t-1 members summing to exactly x is as good as that of the first
// t; select_ok(t, x): member t is in a best set of the first t summing to x.
struct ClassJob {
  std::size_t index;  // into LosProblem::jobs
  int size;
  std::int64_t merit;
};

// Subset sums of each prefix of `jobs`, capped at `cap`: row t (0-based,
// t = 0..|jobs|) is the set reachable with the first t members.
class PrefixSums {
 public:
  PrefixSums(const std::vector<ClassJob>& jobs, int cap)
      : bits_(static_cast<std::size_t>(cap) + 1), words_(words_for(bits_)), rows_((jobs.size() + 1) * words_, 0) {
    rows_[0] = 1;  // the empty set sums to 0
    for (std::size_t t = 0; t < jobs.size(); ++t) {
      or_shifted(row(t + 1), row(t), words_, bits_, static_cast<std::size_t>(jobs[t].size));
    }
  }
  bool reachable(std::size_t t, std::int64_t x) const {
    return x >= 0 && static_cast<std::size_t>(x) < bits_ && test_bit(row(t), static_cast<std::size_t>(x));
  }
  std::size_t bits() const { return bits_; }

 private:
  std::uint64_t* row(std::size_t t) { return rows_.data() + t * words_; }
  const std::uint64_t* row(std::size_t t) const { return rows_.data() + t * words_; }
  std::size_t bits_;
  std::size_t words_;
  std::vector<std::uint64_t> rows_;
};

// Exact-sum, maximum-merit knapsack over `jobs` for sums [0, target], kept
// only as its trace-back markers (2 bits per member and sum).
class MeritMarkers {
 public:
  MeritMarkers(const std::vector<ClassJob>& jobs, std::int64_t target)
      : bits_(static_cast<std::size_t>(target) + 1),
        words_(words_for(bits_)),
        bypass_(jobs.size() * words_, 0),
        select_(jobs.size() * words_, 0) {
    std::vector<std::int64_t> best(bits_, kUnreachable), next(bits_);
    best[0] = 0;
    for (std::size_t t = 0; t < jobs.size(); ++t) {
      const std::size_t s = static_cast<std::size_t>(jobs[t].size);
      const std::int64_t m = jobs[t].merit;
      std::uint64_t* bw = bypass_.data() + t * words_;
      std::uint64_t* sw = select_.data() + t * words_;
      for (std::size_t x = 0; x < bits_; ++x) {
        const std::int64_t old = best[x];
        const std::int64_t cand = (x >= s && best[x - s] != kUnreachable) ? best[x - s] + m : kUnreachable;
        const std::int64_t value = std::max(old, cand);
        next[x] = value;
        if (value == kUnreachable) continue;
        if (old == value) bw[x >> 6] |= std::uint64_t{1} << (x & 63);
        if (cand == value) sw[x >> 6] |= std::uint64_t{1} << (x & 63);
      }
      best.swap(next);
    }
    value_ = best[bits_ - 1];
  }
  // t is 1-based: member t of the class.
  bool bypass_ok(std::size_t t, std::int64_t x) const {
    return test_bit(bypass_.data() + (t - 1) * words_, static_cast<std::size_t>(x));
  }
  bool select_ok(std::size_t t, std::int64_t x) const {
    return test_bit(select_.data() + (t - 1) * words_, static_cast<std::size_t>(x));
  }
  std::int64_t value() const { return value_; }  // best merit summing exactly to target

 private:
  std::size_t bits_;
  std::size_t words_;
  std::vector<std::uint64_t> bypass_;
  std::vector<std::uint64_t> select_;
  std::int64_t value_ = 0;
};

// The thesis trace-back restricted to one class: the remaining target x is
// always the optimum of the current cell, so each marker reduces to a test
// on this class's prefix.
template <typename BypassOk, typename SelectOk>
void trace_class(const std::vector<ClassJob>& jobs, std::int64_t x, LosTraceback rule, BypassOk bypass_ok,
                 SelectOk select_ok, std::vector<std::size_t>& chosen) {
  for (std::size_t t = jobs.size(); t >= 1 && x > 0; --t) {
    const bool take = rule == LosTraceback::BypassedFirst ? !bypass_ok(t, x) : select_ok(t, x);
    if (take) {
      chosen.push_back(jobs[t - 1].index);
      x -= jobs[t - 1].size;
    }
  }
}

}  // namespace

LosTable::LosTable(std::size_t rows, int free_now, int extra)
    : rows_(rows),
      n_(free_now),
      extra_(extra),
      cells_(rows * static_cast<std::size_t>(free_now + 1) * static_cast<std::size_t>(extra + 1)) {}

void validate(const LosProblem& p) {
  if (p.free_now < 0) throw std::invalid_argument("LOS problem: free_now " + std::to_string(p.free_now) + " < 0");
  if (p.extra < 0) throw std::invalid_argument("LOS problem: extra " + std::to_string(p.extra) + " < 0");
  for (std::size_t i = 0; i < p.jobs.size(); ++i) {
    const LosCandidate& c = p.jobs[i];
    const std::string where = "LOS problem: candidate " + std::to_string(i) + ": ";
    if (c.size < 1) throw std::invalid_argument(where + "size " + std::to_string(c.size) + " < 1");
    if (c.ssize != 0 && c.ssize != c.size) {
      throw std::invalid_argument(where + "ssize " + std::to_string(c.ssize) + " is neither 0 nor the size " +
                                  std::to_string(c.size));
    }
    if (c.merit < 0) throw std::invalid_argument(where + "merit " + std::to_string(c.merit) + " < 0");
  }
}

namespace {

// Head-First is Selected-First on the reversed window: walking from the
// head, a job is taken whenever an equally good set with it (and the jobs
// already taken) exists.
template <typename Solve>
LosSelection head_first(const LosProblem& p, Solve solve) {
  LosProblem reversed;
  reversed.jobs.assign(p.jobs.rbegin(), p.jobs.rend());
  reversed.free_now = p.free_now;
  reversed.extra = p.extra;
  reversed.traceback = LosTraceback::SelectedFirst;
  LosSelection out = solve(reversed);
  for (std::size_t& i : out.chosen) i = p.jobs.size() - 1 - i;
  std::sort(out.chosen.begin(), out.chosen.end());
  return out;
}

}  // namespace

LosSelection los_select_table(const LosProblem& p, LosTable* table) {
  validate(p);
  if (p.traceback == LosTraceback::HeadFirst) {
    return head_first(p, [table](const LosProblem& r) { return los_select_table(r, table); });
  }
  const std::size_t q = p.jobs.size();
  const int n = p.free_now;
  const int K = p.extra;
  const std::size_t plane = static_cast<std::size_t>(n + 1) * static_cast<std::size_t>(K + 1);
  auto ix = [K](int j, int k) {
    return static_cast<std::size_t>(j) * static_cast<std::size_t>(K + 1) + static_cast<std::size_t>(k);
  };
  // Two rows of values and every marker: the trace-back needs only markers.
  std::vector<LosCell> prev(plane), cur(plane);
  std::vector<std::uint8_t> marks((q + 1) * plane, 0);
  if (table) *table = LosTable(q + 1, n, K);
  for (std::size_t i = 1; i <= q; ++i) {
    const LosCandidate& w = p.jobs[i - 1];
    for (int k = 0; k <= K; ++k) cur[ix(0, k)] = LosCell{};
    for (int k = 0; k <= K; ++k) {
      for (int j = 1; j <= n; ++j) {
        const LosCell& P = prev[ix(j, k)];
        LosCell c;
        if (w.size > j || w.ssize > k) {
          c = P;
          c.selected = false;
          c.bypassed = true;
        } else {
          const LosCell& Q = prev[ix(j - w.size, k - w.ssize)];
          LosCell S{Q.util + w.size, Q.sutil + w.ssize, Q.merit + w.merit, true, false};
          const int order = compare(S, P);
          if (order > 0) {
            c = S;
          } else if (order == 0) {
            c = S;
            c.bypassed = true;  // an exact tie: both markers
          } else {
            c = P;
            c.selected = false;
            c.bypassed = true;
          }
        }
        cur[ix(j, k)] = c;
        marks[i * plane + ix(j, k)] =
            static_cast<std::uint8_t>((c.selected ? kSelected : 0) | (c.bypassed ? kBypassed : 0));
        if (table) table->at(i, j, k) = c;
      }
    }
    std::swap(prev, cur);
  }
  LosSelection out;
  const LosCell& root = prev[ix(n, K)];
  out.key = LosKey{root.util, root.sutil, root.merit};
  std::size_t i = q;
  int j = n;
  int k = K;
  while (i > 0 && j > 0) {
    const std::uint8_t m = marks[i * plane + ix(j, k)];
    const bool take = p.traceback == LosTraceback::BypassedFirst ? !(m & kBypassed) : (m & kSelected) != 0;
    if (take) {
      out.chosen.push_back(i - 1);
      j -= p.jobs[i - 1].size;
      k -= p.jobs[i - 1].ssize;
    }
    --i;
  }
  std::reverse(out.chosen.begin(), out.chosen.end());
  return out;
}

LosSelection los_select(const LosProblem& p) {
  validate(p);
  if (p.traceback == LosTraceback::HeadFirst) return head_first(p, [](const LosProblem& r) { return los_select(r); });
  LosSelection out;
  const int n = p.free_now;
  const int K = std::min(p.extra, n);  // sutil <= util <= n: planes past n repeat plane n
  if (n == 0 || p.jobs.empty()) return out;

  // Candidates that can never be chosen (size > n, or ssize > K) leave the
  // problem: their cells are always "bypassed" and change no other cell.
  std::vector<ClassJob> a, b;
  bool any_merit = false;
  for (std::size_t i = 0; i < p.jobs.size(); ++i) {
    const LosCandidate& c = p.jobs[i];
    any_merit = any_merit || c.merit != 0;
    if (c.size > n) continue;
    if (c.ssize == 0) {
      a.push_back({i, c.size, c.merit});
    } else if (c.size <= K) {
      b.push_back({i, c.size, c.merit});
    }
  }
  const PrefixSums sums_a(a, n);
  const PrefixSums sums_b(b, K);

  // The optimum (util, sutil): the largest a + b <= n over reachable sums,
  // then the smallest b.
  std::vector<int> below(static_cast<std::size_t>(n) + 1, 0);  // largest A sum <= x
  for (int x = 1; x <= n; ++x) below[x] = sums_a.reachable(a.size(), x) ? x : below[x - 1];
  std::int64_t util = -1;
  std::int64_t sutil = 0;
  for (int s = 0; s <= K; ++s) {
    if (!sums_b.reachable(b.size(), s)) continue;
    const std::int64_t u = s + below[n - s];
    if (u > util) {
      util = u;
      sutil = s;
    }
  }
  const std::int64_t target_a = util - sutil;
  const std::int64_t target_b = sutil;
  out.key.util = util;
  out.key.sutil = sutil;

  if (!any_merit) {
    auto trace = [&](const std::vector<ClassJob>& jobs, const PrefixSums& sums, std::int64_t x) {
      trace_class(
          jobs, x, p.traceback, [&](std::size_t t, std::int64_t y) { return sums.reachable(t - 1, y); },
          [&](std::size_t t, std::int64_t y) { return sums.reachable(t - 1, y - jobs[t - 1].size); }, out.chosen);
    };
    trace(a, sums_a, target_a);
    trace(b, sums_b, target_b);
  } else {
    const MeritMarkers marks_a(a, target_a);
    const MeritMarkers marks_b(b, target_b);
    out.key.merit = marks_a.value() + marks_b.value();
    auto trace = [&](const std::vector<ClassJob>& jobs, const MeritMarkers& marks, std::int64_t x) {
      trace_class(
          jobs, x, p.traceback, [&](std::size_t t, std::int64_t y) { return marks.bypass_ok(t, y); },
          [&](std::size_t t, std::int64_t y) { return marks.select_ok(t, y); }, out.chosen);
    };
    trace(a, marks_a, target_a);
    trace(b, marks_b, target_b);
  }
  std::sort(out.chosen.begin(), out.chosen.end());
  return out;
}

LosSelection los_select_queue_order(const LosProblem& p) {
  validate(p);
  LosSelection out;
  const int n = p.free_now;
  const int K = std::min(p.extra, n);
  if (n == 0 || p.jobs.empty()) return out;
  LosProblem plain = p;
  for (LosCandidate& c : plain.jobs) c.merit = 0;
  plain.traceback = LosTraceback::BypassedFirst;
  std::int64_t target = los_select(plain).key.util;

  // Suffix subset sums of each class: the class lists reversed, so row t of
  // their PrefixSums is the set reachable with the last t members.
  std::vector<ClassJob> ra, rb;
  for (std::size_t i = p.jobs.size(); i-- > 0;) {
    const LosCandidate& c = p.jobs[i];
    if (c.size > n) continue;
    if (c.ssize == 0) {
      ra.push_back({i, c.size, 0});
    } else if (c.size <= K) {
      rb.push_back({i, c.size, 0});
    }
  }
  const PrefixSums sums_a(ra, n);
  const PrefixSums sums_b(rb, K);
  // Can the members after the current one (the last left_a of A, left_b of
  // B) sum to exactly `x` with at most `k` of it in B?
  auto completes = [&](std::size_t left_a, std::size_t left_b, std::int64_t x, std::int64_t k) {
    for (std::int64_t b = 0; b <= std::min(k, x); ++b) {
      if (sums_b.reachable(left_b, b) && x - b <= n && sums_a.reachable(left_a, x - b)) return true;
    }
    return false;
  };
  std::size_t left_a = ra.size();
  std::size_t left_b = rb.size();
  std::int64_t extra_left = K;
  for (std::size_t i = 0; i < p.jobs.size() && target > 0; ++i) {
    const LosCandidate& c = p.jobs[i];
    if (c.size > n || (c.ssize != 0 && c.size > K)) continue;
    if (c.ssize == 0) {
      --left_a;
    } else {
      --left_b;
    }
    if (c.size > target || c.ssize > extra_left) continue;
    if (!completes(left_a, left_b, target - c.size, extra_left - c.ssize)) continue;
    out.chosen.push_back(i);
    target -= c.size;
    extra_left -= c.ssize;
    out.key.util += c.size;
    out.key.sutil += c.ssize;
    out.key.merit += c.merit;
  }
  return out;
}

}  // namespace los
