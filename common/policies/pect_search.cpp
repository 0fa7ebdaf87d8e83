#include "policies/pect_search.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <unordered_set>

namespace los {

// ---- the profile --------------------------------------------------------------------

std::size_t VProfile::split(Time t) {
  auto it = std::upper_bound(pts_.begin(), pts_.end(), t, [](Time v, const auto& p) { return v < p.first; });
  // it-1 is the piece containing t (t >= origin).
  const std::size_t i = static_cast<std::size_t>(it - pts_.begin()) - 1;
  if (pts_[i].first == t) return i;
  pts_.insert(pts_.begin() + static_cast<std::ptrdiff_t>(i + 1), {t, pts_[i].second});
  return i + 1;
}

Time VProfile::earliest(int size, Time duration, Time from) const {
  from = std::max(from, origin());
  const std::size_t n = pts_.size();
  std::size_t i = static_cast<std::size_t>(std::upper_bound(pts_.begin(), pts_.end(), from,
                                                            [](Time v, const auto& p) { return v < p.first; }) -
                                           pts_.begin()) -
                  1;
  Time t = from;
  while (true) {
    std::size_t j = i;
    bool ok = true;
    while (j < n && (j == i || pts_[j].first < t + duration)) {
      if (pts_[j].second < size) {
        ok = false;
        break;
      }
      ++j;
    }
    if (ok) return t;
    std::size_t k = j + 1;
    while (k < n && pts_[k].second < size) ++k;
    if (k >= n) return kTimeInfinity;  // never (size > units)
    t = pts_[k].first;
    i = k;
  }
}

void VProfile::reserve(Time start, Time duration, int size) {
  if (duration <= 0) return;
  const std::size_t a = split(start);
  const std::size_t b = split(start + duration);
  for (std::size_t k = a; k < b; ++k) pts_[k].second -= size;
}

int VProfile::min_free(Time from, Time to) const {
  int m = units_;
  for (std::size_t k = 0; k < pts_.size(); ++k) {
    const Time a = pts_[k].first;
    const Time b = k + 1 < pts_.size() ? pts_[k + 1].first : kTimeInfinity;
    if (b <= from || a >= to) continue;
    m = std::min(m, pts_[k].second);
  }
  return m;
}

double VProfile::idle_area(Time from, Time to) const {
  double area = 0;
  for (std::size_t k = 0; k < pts_.size(); ++k) {
    const Time a = std::max(from, pts_[k].first);
    const Time b = std::min(to, k + 1 < pts_.size() ? pts_[k + 1].first : kTimeInfinity);
    if (b > a) area += static_cast<double>(pts_[k].second) * static_cast<double>(b - a);
  }
  return area;
}

// ---- the search -----------------------------------------------------------------------

SearchStats& SearchStats::operator+=(const SearchStats& o) {
  nodes += o.nodes;
  pruned += o.pruned;
  order_nodes += o.order_nodes;
  perms += o.perms;
  level1_perms += o.level1_perms;
  shifts += o.shifts;
  budget_hits += o.budget_hits;
  initial_total += o.initial_total;
  final_total += o.final_total;
  return *this;
}

double estimated_bsld(const VJob& j, Time vstart, Time now, const SearchOptions& o) {
  const double rt = static_cast<double>(now - j.submit) + static_cast<double>(vstart + j.runtime - now) / o.share;
  return std::max(rt / static_cast<double>(std::max(j.runtime, o.bound)), 1.0);
}

double place_order(const VProfile& base, const std::vector<VJob>& jobs, const std::vector<int>& order,
                   const SearchOptions& o, std::vector<Time>* starts, VProfile* after) {
  VProfile p = base;
  const Time now = base.origin();
  double total = 0;
  if (starts) starts->clear();
  for (int i : order) {
    const VJob& j = jobs[static_cast<std::size_t>(i)];
    const Time s = p.earliest(j.size, j.runtime, now);
    p.reserve(s, j.runtime, j.size);
    total += estimated_bsld(j, s, now, o);
    if (starts) starts->push_back(s);
  }
  if (after) *after = std::move(p);
  return total;
}

namespace {

struct Candidate {
  std::vector<int> order;
  double total;
  long long seq;
};

// Makespan, utilization and mean estimated response of an order (§5.9).
struct OrderMetrics {
  double makespan, util, avg_rt;
};

OrderMetrics metrics_of(const VProfile& base, const std::vector<VJob>& jobs, const std::vector<int>& order,
                        const SearchOptions& o) {
  std::vector<Time> starts;
  VProfile after = base;
  place_order(base, jobs, order, o, &starts, &after);
  const Time now = base.origin();
  Time end = now + 1;
  double rt = 0;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const VJob& j = jobs[static_cast<std::size_t>(order[k])];
    end = std::max(end, starts[k] + j.runtime);
    rt += static_cast<double>(now - j.submit) + static_cast<double>(starts[k] + j.runtime - now) / o.share;
  }
  const double mk = static_cast<double>(end - now);
  const double util = 1.0 - after.idle_area(now, end) / (static_cast<double>(base.units()) * mk);
  return {mk, util, order.empty() ? 0 : rt / static_cast<double>(order.size())};
}

// Best of three (§5.9, tolerance reading): the lowest total is kept unless it
// is worse than another of the three by more than the tolerances.
std::vector<int> select_best(const VProfile& base, const std::vector<VJob>& jobs, const std::vector<Candidate>& top,
                             const SearchOptions& o) {
  if (top.empty()) return {};
  std::size_t best = 0;
  OrderMetrics mb = metrics_of(base, jobs, top[0].order, o);
  for (std::size_t i = 1; i < top.size(); ++i) {
    const OrderMetrics mi = metrics_of(base, jobs, top[i].order, o);
    const bool acceptable =
        mb.makespan <= o.alpha * mi.makespan && mb.util >= o.beta * mi.util && mb.avg_rt <= o.gamma * mi.avg_rt;
    if (!acceptable) {
      best = i;
      mb = mi;
    }
  }
  return top[best].order;
}

void keep_top3(std::vector<Candidate>& top, Candidate c) {
  top.push_back(std::move(c));
  std::sort(top.begin(), top.end(), [](const Candidate& a, const Candidate& b) {
    return a.total != b.total ? a.total < b.total : a.seq < b.seq;
  });
  if (top.size() > 3) top.resize(3);
}

}  // namespace

PermutationResult search_permutations(const VProfile& base, const std::vector<VJob>& jobs,
                                      const std::vector<int>& heuristic, const std::vector<int>& lw_rank,
                                      const SearchOptions& o, bool shift, long long cap, SearchStats& stats) {
  PermutationResult result;
  const std::size_t n = heuristic.size();
  const Time now = base.origin();
  if (n == 0) return result;
  std::vector<int> perm(n);  // ranks into heuristic
  std::iota(perm.begin(), perm.end(), 0);
  std::vector<int> prev;
  std::vector<VProfile> prof(n + 1, base);
  std::vector<double> sum(n + 1, 0);
  std::vector<Time> vs(n, 0);
  std::size_t valid = 0;  // stack depths valid for `prev`
  double best = std::numeric_limits<double>::infinity();
  std::vector<Candidate> top;
  long long seq = 0;
  long long evaluated = 0;
  auto keeps_lw_order = [&](const std::vector<int>& order_ranks) {
    int last = -1;
    for (int r : order_ranks) {
      const int l = lw_rank[static_cast<std::size_t>(heuristic[static_cast<std::size_t>(r)])];
      if (l < 0) continue;
      if (l < last) return false;
      last = l;
    }
    return true;
  };
  auto out_of_budget = [&] {
    if (stats.nodes >= o.nodes) return true;
    return o.out_of_time && (stats.nodes & 255) == 0 && o.out_of_time();
  };
  auto record = [&](std::vector<int> order, double total) {
    if (total < best) {
      best = total;
      result.best = order;
      result.best_total = total;
    }
    keep_top3(top, Candidate{std::move(order), total, seq++});
  };
  // A shifted order evaluated from scratch (with the same bound).
  auto evaluate_full = [&](const std::vector<int>& order) {
    VProfile p = base;
    double total = 0;
    stats.order_nodes += static_cast<long long>(order.size());
    for (int i : order) {
      const VJob& j = jobs[static_cast<std::size_t>(i)];
      const Time s = p.earliest(j.size, j.runtime, now);
      p.reserve(s, j.runtime, j.size);
      total += estimated_bsld(j, s, now, o);
      ++stats.nodes;
      if (o.bnb && total >= best) {
        ++stats.pruned;
        return;
      }
    }
    record(order, total);
  };
  while (true) {
    if (keeps_lw_order(perm)) {
      std::size_t k0 = 0;
      while (k0 < prev.size() && k0 < valid && perm[k0] == prev[k0]) ++k0;
      std::size_t k = k0;
      bool pruned = false;
      for (; k < n; ++k) {
        const VJob& j = jobs[static_cast<std::size_t>(heuristic[static_cast<std::size_t>(perm[k])])];
        prof[k + 1] = prof[k];
        vs[k] = prof[k + 1].earliest(j.size, j.runtime, now);
        prof[k + 1].reserve(vs[k], j.runtime, j.size);
        sum[k + 1] = sum[k] + estimated_bsld(j, vs[k], now, o);
        ++stats.nodes;
        if (o.bnb && sum[k + 1] >= best) {
          ++stats.pruned;
          pruned = true;
          break;
        }
      }
      prev = perm;
      valid = pruned ? k + 1 : n;
      ++evaluated;
      ++stats.perms;
      stats.order_nodes += static_cast<long long>(n);
      std::vector<int> order(n);
      for (std::size_t i = 0; i < n; ++i) order[i] = heuristic[static_cast<std::size_t>(perm[i])];
      if (!pruned) {
        record(order, sum[n]);
        if (shift) {
          // Force-shifting (§5.8): the first job that nearly fits a hole
          // before its start moves in front of the jobs starting in or after it.
          for (std::size_t idx = 1; idx < n; ++idx) {
            const VJob& j = jobs[static_cast<std::size_t>(order[idx])];
            const auto& pts = prof[idx].points();
            bool shifted = false;
            for (std::size_t a = 0; a < pts.size() && pts[a].first < vs[idx] && !shifted; ++a) {
              if (pts[a].second < j.size || (a > 0 && pts[a - 1].second >= j.size)) continue;
              std::size_t b = a;
              while (b < pts.size() && pts[b].second >= j.size) ++b;
              if (b >= pts.size()) break;  // open-ended: the job would have fit
              const Time h = pts[a].first;
              const Time y = pts[b].first - h;
              const Time x = j.runtime;
              if (!(y < x && static_cast<double>(x) <= o.shift_ratio * static_cast<double>(y))) continue;
              std::vector<int> shifted_order;
              for (std::size_t p = 0; p < idx; ++p)
                if (vs[p] < h) shifted_order.push_back(order[p]);
              shifted_order.push_back(order[idx]);
              for (std::size_t p = 0; p < idx; ++p)
                if (vs[p] >= h) shifted_order.push_back(order[p]);
              for (std::size_t p = idx + 1; p < n; ++p) shifted_order.push_back(order[p]);
              if (!keeps_lw_order([&] {
                    std::vector<int> ranks;
                    for (int i : shifted_order) {
                      ranks.push_back(
                          static_cast<int>(std::find(heuristic.begin(), heuristic.end(), i) - heuristic.begin()));
                    }
                    return ranks;
                  }())) {
                continue;
              }
              ++stats.shifts;
              ++stats.perms;
              ++evaluated;
              evaluate_full(shifted_order);
              shifted = true;
            }
            if (shifted) break;
          }
        }
      } else {
        std::sort(perm.begin() + static_cast<std::ptrdiff_t>(k) + 1, perm.end(), std::greater<>());
      }
      if (evaluated >= cap) break;
      if (out_of_budget()) {
        ++stats.budget_hits;
        break;
      }
    }
    if (!std::next_permutation(perm.begin(), perm.end())) break;
  }
  result.selected = select_best(base, jobs, top, o);
  if (result.selected.empty()) result.selected = heuristic;
  if (result.best.empty()) {
    result.best = heuristic;
    result.best_total = place_order(base, jobs, heuristic, o);
  }
  return result;
}

SearchOutcome optimize_group(const VProfile& base, const std::vector<VJob>& jobs, const SearchOptions& o) {
  SearchOutcome out;
  SearchStats& st = out.stats;
  const Time now = base.origin();
  const std::size_t n = jobs.size();
  auto current_slowdown = [&](const VJob& j) {
    return static_cast<double>(now - j.submit + j.runtime) / static_cast<double>(std::max(j.runtime, o.bound));
  };
  // Level 1: the long-wide jobs (§5.2, §5.3).
  std::vector<int> lw;
  for (std::size_t i = 0; i < n; ++i) {
    if (jobs[i].size >= o.lw_size && jobs[i].runtime >= o.lw_runtime) lw.push_back(static_cast<int>(i));
  }
  std::vector<int> lw_order;
  if (o.level1 && static_cast<int>(lw.size()) >= o.lw_min) {
    std::stable_sort(lw.begin(), lw.end(), [&](int a, int b) {
      const auto& ja = jobs[static_cast<std::size_t>(a)];
      const auto& jb = jobs[static_cast<std::size_t>(b)];
      return static_cast<double>(ja.size) * ja.runtime > static_cast<double>(jb.size) * jb.runtime;
    });
    if (static_cast<int>(lw.size()) > o.lw_max) lw.resize(static_cast<std::size_t>(o.lw_max));
    std::stable_sort(lw.begin(), lw.end(), [&](int a, int b) {
      return current_slowdown(jobs[static_cast<std::size_t>(a)]) > current_slowdown(jobs[static_cast<std::size_t>(b)]);
    });
    const std::vector<int> none(n, -1);
    const long long before = st.perms;
    lw_order = search_permutations(base, jobs, lw, none, o, false, o.perms, st).selected;
    st.level1_perms += st.perms - before;
    st.perms = before;
  }
  std::vector<int> lw_rank(n, -1);
  for (std::size_t r = 0; r < lw_order.size(); ++r)
    lw_rank[static_cast<std::size_t>(lw_order[r])] = static_cast<int>(r);
  // The initial order: Largest Slowdown First, tentative placement (§5.4).
  std::vector<int> initial;
  {
    VProfile p = base;
    std::vector<int> rest;
    for (std::size_t i = 0; i < n; ++i)
      if (lw_rank[i] < 0) rest.push_back(static_cast<int>(i));
    std::size_t q = 0;
    while (!rest.empty() || q < lw_order.size()) {
      std::vector<int> cands = rest;
      if (q < lw_order.size()) cands.push_back(lw_order[q]);
      int pick = -1;
      double pick_s = -1;
      for (int c : cands) {
        const VJob& j = jobs[static_cast<std::size_t>(c)];
        const double s = estimated_bsld(j, p.earliest(j.size, j.runtime, now), now, o);
        ++st.nodes;
        if (pick < 0 || s > pick_s ||
            (s == pick_s && std::pair(j.submit, j.id) < std::pair(jobs[static_cast<std::size_t>(pick)].submit,
                                                                  jobs[static_cast<std::size_t>(pick)].id))) {
          pick = c;
          pick_s = s;
        }
      }
      const VJob& j = jobs[static_cast<std::size_t>(pick)];
      p.reserve(p.earliest(j.size, j.runtime, now), j.runtime, j.size);
      initial.push_back(pick);
      if (q < lw_order.size() && pick == lw_order[q]) {
        ++q;
      } else {
        rest.erase(std::find(rest.begin(), rest.end(), pick));
      }
    }
  }
  st.initial_total = place_order(base, jobs, initial, o);
  // Level 2 over sub-groups (§5.5, §5.6).
  std::vector<int> chosen;
  if (o.level2) {
    const std::size_t chunk = static_cast<int>(n) >= o.max_group ? static_cast<std::size_t>(std::max(1, o.subgroup))
                                                                 : std::max<std::size_t>(n, 1);
    VProfile fixed = base;
    for (std::size_t a = 0; a < n; a += chunk) {
      const std::vector<int> part(initial.begin() + static_cast<std::ptrdiff_t>(a),
                                  initial.begin() + static_cast<std::ptrdiff_t>(std::min(n, a + chunk)));
      const std::vector<int> best =
          search_permutations(fixed, jobs, part, lw_rank, o, o.force_shift, o.perms, st).selected;
      VProfile next = fixed;
      place_order(fixed, jobs, best, o, nullptr, &next);
      fixed = std::move(next);
      chosen.insert(chosen.end(), best.begin(), best.end());
    }
  } else {
    chosen = initial;
  }
  out.order = chosen;
  out.total = place_order(base, jobs, chosen, o, &out.start);
  st.final_total = out.total;
  return out;
}

// ---- the policy -------------------------------------------------------------------------

PectSearchPolicy::PectSearchPolicy(PectSearchOptions options, std::string label, RunMode mode)
    : PectPolicy(options.pect, std::move(label)), so_(std::move(options)), mode_(mode) {}

PectSearchPolicy::~PectSearchPolicy() {
  if (so_.stats && stepped_) std::cerr << stats_line() << "\n";
}

std::string PectSearchPolicy::stats_line() const {
  std::ostringstream s;
  s << "pect-search stats: groups_medium=" << groups_[1] << " groups_long=" << groups_[2]
    << " grouped_jobs=" << grouped_jobs_ << " plan_backfills=" << plan_backfills_ << " nodes=" << stats_.nodes
    << " pruned=" << stats_.pruned << " order_nodes=" << stats_.order_nodes << " perms=" << stats_.perms
    << " level1_perms=" << stats_.level1_perms
    << " shifts=" << stats_.shifts << " budget_hits=" << stats_.budget_hits << " initial_total=" << stats_.initial_total
    << " final_total=" << stats_.final_total;
  return s.str();
}

VProfile PectSearchPolicy::slice_profile(Time now) const {
  VProfile p(units_, now);
  for (const auto& [id, t] : jobs_) {
    if (!t.executing) continue;
    Time end = now + remaining(t, now);
    if (t.cls != current_) end = std::min(end, phase_end_);
    if (end > now) p.reserve(now, end - now, t.size);
  }
  return p;
}

void PectSearchPolicy::try_group(PectClass c, const Waiting& waiting, Time now) {
  const bool lng = c == PectClass::Long;
  const std::vector<const Job*>& wc = waiting[static_cast<std::size_t>(c)];
  const std::size_t maxg = static_cast<std::size_t>(lng ? so_.max_long : so_.max_medium);
  const std::size_t ming = static_cast<std::size_t>(lng ? so_.min_long : so_.min_medium);
  const std::size_t count = std::min(wc.size(), maxg);
  if (count < ming || count == 0) return;
  std::vector<VJob> jobs;
  double sizes = 0;
  double work = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const Job& j = *wc[i];
    jobs.push_back({j.id, j.submit, j.size, std::max<Time>(j.estimate, 1)});
    sizes += j.size;
    work += static_cast<double>(j.size) * static_cast<double>(std::max<Time>(j.estimate, 1));
  }
  const double m = units_;
  if (sizes <= (lng ? so_.sizef_long : so_.sizef_medium) * m) return;
  if (work / m <= (lng ? so_.work_long : so_.work_medium)) return;
  SearchOptions o = so_.search;
  o.share = (lng ? options_.long_share : options_.medium_share) / 100.0;
  o.lw_size = lng ? (units_ + 3) / 4 : (units_ + 9) / 10;
  o.lw_runtime = lng ? 15000 : 800;
  o.max_group = static_cast<int>(maxg);
  if (mode_ == RunMode::Live && so_.wall_ms > 0) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(so_.wall_ms);
    o.out_of_time = [deadline] { return std::chrono::steady_clock::now() >= deadline; };
  }
  const VProfile base = slice_profile(now);
  const SearchOutcome r = optimize_group(base, jobs, o);
  stats_ += r.stats;
  // Group finish time (§4.7) over the running jobs and the plan.
  struct Item {
    Time vs, ve;
    int size;
    int pos;  // position in the plan, -1 running
    JobId id;
  };
  std::vector<Item> items;
  for (const auto& [id, t] : jobs_) {
    if (!t.executing) continue;
    Time end = now + remaining(t, now);
    if (t.cls != current_) end = std::min(end, phase_end_);
    items.push_back({now, end, t.size, -1, id});
  }
  for (std::size_t k = 0; k < r.order.size(); ++k) {
    const VJob& j = jobs[static_cast<std::size_t>(r.order[k])];
    items.push_back({r.start[k], r.start[k] + j.runtime, j.size, static_cast<int>(k), j.id});
  }
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    return a.ve != b.ve ? a.ve < b.ve : (a.pos < 0 ? -1 : a.pos) < (b.pos < 0 ? -1 : b.pos);
  });
  auto util = [&](Time t) {
    if (t <= now) return 0.0;
    double used = 0;
    for (const Item& x : items) {
      const Time a = std::max(x.vs, now);
      const Time b = std::min(x.ve, t);
      if (b > a) used += static_cast<double>(x.size) * static_cast<double>(b - a);
    }
    return used / (m * static_cast<double>(t - now));
  };
  double max_util = -std::numeric_limits<double>::infinity();
  Time gft = items.empty() ? now : items.back().ve;
  JobId gft_job = items.empty() ? 0 : items.back().id;
  std::size_t done = 0;
  for (const Item& x : items) {
    if (x.pos >= 0) ++done;
    const double u = util(x.ve);
    if (done < ming) continue;
    if (u > max_util * (1 - so_.delta)) {
      max_util = std::max(max_util, u);
      gft = x.ve;
      gft_job = x.id;
    } else if (u > so_.min_util) {
      gft = x.ve;
      gft_job = x.id;
    } else if (so_.stop_on_dip) {
      break;
    }
  }
  Plan plan;
  std::vector<GroupedJob> predicted;
  // commit > 0: only the first `commit` positions of the order are kept
  // (rolling horizon); the rest go back to the queue with the jobs ending
  // after the group finish, and the next group, formed once these started,
  // is searched with what is known then.
  const std::size_t kept = so_.commit > 0 ? std::min<std::size_t>(r.order.size(), static_cast<std::size_t>(so_.commit))
                                          : r.order.size();
  bool gft_in_plan = false;
  Time plan_end = now;
  JobId plan_last = 0;
  for (std::size_t k = 0; k < kept; ++k) {
    const VJob& j = jobs[static_cast<std::size_t>(r.order[k])];
    if (r.start[k] + j.runtime > gft) continue;  // later ones go back to the queue
    plan.jobs.push_back(j);
    predicted.push_back({estimated_bsld(j, r.start[k], now, o), static_cast<int>(k)});
    gft_in_plan = gft_in_plan || j.id == gft_job;
    if (r.start[k] + j.runtime >= plan_end) {
      plan_end = r.start[k] + j.runtime;
      plan_last = j.id;
    }
  }
  if (plan.jobs.empty()) return;
  // A group-finish job cut off by `commit` would end outside the plan (or
  // never, if it waits long): the plan's own last end takes its place.
  const bool gft_running = jobs_.contains(gft_job) && jobs_.at(gft_job).executing;
  plan.gft_job = gft_in_plan || gft_running || kept == r.order.size() ? gft_job : plan_last;
  ++groups_[static_cast<std::size_t>(c)];
  grouped_jobs_ += static_cast<long long>(plan.jobs.size());
  if (mode_ == RunMode::Simulation) {
    for (std::size_t k = 0; k < plan.jobs.size(); ++k) grouped_[plan.jobs[k].id] = predicted[k];
  }
  plans_[static_cast<std::size_t>(c)] = std::move(plan);
}

void PectSearchPolicy::group_pass(const Waiting& waiting, Time now, std::vector<Decision>& out) {
  const PectClass c = current_;
  const Time slice_end = phase_end_;
  Plan& plan = *plans_[static_cast<std::size_t>(c)];
  for (JobId id : started_of(c, false)) {
    if (nodes_free(jobs_.at(id).nodes)) resume(id, now, out);
  }
  // Recalculation (§4.6): the plan's jobs re-placed in their order.
  VProfile p = slice_profile(now);
  std::vector<VJob> keep;
  bool head_reserved = false;
  auto start_planned = [&](const VJob& j) {
    Job job;
    job.id = j.id;
    job.submit = j.submit;
    job.size = j.size;
    job.estimate = j.runtime;
    start(job, c, free_nodes_for(c, j.size), now, out);
  };
  for (const VJob& j : plan.jobs) {
    if (so_.plan_easy) {
      // EASY over the plan's order: a plan job starts when it fits now
      // without delaying the first one that cannot, which alone is reserved.
      if (free_count_for(c) >= j.size && p.min_free(now, now + j.runtime) >= j.size) {
        p.reserve(now, j.runtime, j.size);
        start_planned(j);
        continue;
      }
      keep.push_back(j);
      if (!head_reserved) {
        p.reserve(p.earliest(j.size, j.runtime, now), j.runtime, j.size);
        head_reserved = true;
      }
      continue;
    }
    const Time s = p.earliest(j.size, j.runtime, now);
    p.reserve(s, j.runtime, j.size);
    if (s == now && free_count_for(c) >= j.size) {
      start_planned(j);
    } else {
      keep.push_back(j);
    }
  }
  plan.jobs = std::move(keep);
  // Everything else only where it delays no plan job (noConflictWithPlan).
  auto fits = [&](Time end, int size) { return p.min_free(now, end) >= size; };
  std::unordered_set<JobId> planned;
  for (const auto& pl : plans_) {
    if (!pl) continue;
    for (const VJob& j : pl->jobs) planned.insert(j.id);
  }
  for (const Job* j : waiting[static_cast<std::size_t>(c)]) {
    if (planned.count(j->id) || jobs_.count(j->id) || j->size > free_count_for(c)) continue;
    const Time end = now + std::max<Time>(j->estimate, 1);
    if (!fits(end, j->size)) continue;
    p.reserve(now, end - now, j->size);
    start(*j, c, free_nodes_for(c, j->size), now, out);
  }
  if (!options_.smart) return;
  for (PectClass k : {PectClass::Short, PectClass::Medium, PectClass::Long}) {
    if (k == c) continue;
    for (JobId id : started_of(k, false)) {
      const Tracked& t = jobs_.at(id);
      if (!nodes_free(t.nodes)) continue;
      const Time end = std::min(now + remaining(t, now), slice_end);
      if (!fits(end, t.size)) continue;
      p.reserve(now, end - now, t.size);
      resume(id, now, out);
    }
  }
  for (PectClass k : {PectClass::Short, PectClass::Medium, PectClass::Long}) {
    if (k == c) continue;
    for (const Job* j : waiting[static_cast<std::size_t>(k)]) {
      if ((planned.count(j->id) && !so_.plan_backfill) || jobs_.count(j->id) || j->size > free_count_for(k)) continue;
      const Time end = std::min(now + std::max<Time>(j->estimate, 1), slice_end);
      if (!fits(end, j->size)) continue;
      p.reserve(now, end - now, j->size);
      start(*j, k, free_nodes_for(k, j->size), now, out);
    }
  }
}

void PectSearchPolicy::leave_plans(const std::vector<Decision>& decisions) {
  if (std::none_of(plans_.begin(), plans_.end(), [](const auto& pl) { return pl && !pl->jobs.empty(); })) return;
  std::unordered_set<JobId> started;
  for (const Decision& d : decisions) {
    if (d.kind == Decision::Kind::Start) started.insert(d.job);
  }
  if (started.empty()) return;
  for (auto& pl : plans_) {
    if (!pl) continue;
    plan_backfills_ +=
        static_cast<long long>(std::erase_if(pl->jobs, [&](const VJob& j) { return started.count(j.id) > 0; }));
  }
}

StepResult PectSearchPolicy::step(const Snapshot& s) {
  stepped_ = true;
  bool completion = false;
  // Resync: the groups are dropped (their jobs never started and are all in
  // the queue); the class's next slice, or this step's if it is active,
  // forms a new group from the queue.
  if (s.resync) {
    for (auto& pl : plans_) pl.reset();
  }
  for (const SnapshotEvent& ev : s.events) {
    if (s.resync) break;
    if (ev.kind == SnapshotEvent::Kind::Withdrawn) {
      // Cancelled while it waited (scancel, a simulated cancel event): it
      // leaves its group's plan; a withdrawn group-finish job is gone as if
      // it had ended, so the group ends at the next completion.
      for (auto& pl : plans_) {
        if (!pl) continue;
        std::erase_if(pl->jobs, [&](const VJob& j) { return j.id == ev.job; });
        if (pl->gft_job == ev.job) pl->gft_ended = true;
      }
      continue;
    }
    if (ev.kind != SnapshotEvent::Kind::Ended) continue;
    completion = true;
    for (auto& pl : plans_) {
      if (pl && pl->gft_job == ev.job) pl->gft_ended = true;
    }
  }
  begin_step(s);
  const Waiting waiting = classify_queue(s);
  StepResult result;
  const Time now = s.now;
  resync_decisions(result.decisions);
  transitions(waiting, now, result.decisions);
  if (phase_ == Phase::Slice) {
    const PectClass c = current_;
    auto& pl = plans_[static_cast<std::size_t>(c)];
    if (pl && (pl->jobs.empty() || (pl->gft_ended && completion))) pl.reset();  // the group ends
    if (c != PectClass::Short && !pl) {
      // Candidates: the class's waiting jobs (none is in a plan: the class has none).
      try_group(c, waiting, now);
    }
    if (pl) {
      group_pass(waiting, now, result.decisions);
      if (pl->jobs.empty()) pl.reset();
    } else {
      // Normal SCOJO-PECT, jobs of other classes' plans left out (unless
      // plan_backfill: then they are smart-backfilled like the rest).
      Waiting filtered;
      for (std::size_t k = 0; k < 3; ++k) {
        const auto& other = plans_[k];
        for (const Job* j : waiting[k]) {
          bool in_plan = false;
          if (other && !so_.plan_backfill) {
            for (const VJob& v : other->jobs) in_plan = in_plan || v.id == j->id;
          }
          if (!in_plan) filtered[k].push_back(j);
        }
      }
      schedule_pass(filtered, now, result.decisions);
    }
    // Own-plan starts left their plan in group_pass: what leaves here was
    // backfilled from another class's plan (never, without plan_backfill).
    leave_plans(result.decisions);
  }
  // Plan starts fall on completions (estimates are the run times the plan
  // uses) or slice ends, both of which step the policy.
  result.wakeup = phase_ == Phase::None ? kTimeInfinity : phase_end_;
  return result;
}

// ---- parameters -------------------------------------------------------------------------

namespace {
const PectSearchOptions kSearchDefaults;
}  // namespace

const ParamTable& pect_search_parameters() {
  static const ParamTable table = pect_parameters().with({
      Param::integer("max_long", kSearchDefaults.max_long, 1, 1000, "largest LONG group (jobs)"),
      Param::integer("max_medium", kSearchDefaults.max_medium, 1, 1000, "largest MEDIUM group (jobs)"),
      Param::flag("level1", kSearchDefaults.search.level1, "level 1: every order of the long-wide jobs"),
      Param::flag("level2", kSearchDefaults.search.level2, "level 2: permutations of the sub-groups"),
      Param::flag("bnb", kSearchDefaults.search.bnb, "branch-and-bound on the total bounded slowdown"),
      Param::flag("shift", kSearchDefaults.search.force_shift, "force-shifting into holes (level 2)"),
      Param::number("shift_ratio", kSearchDefaults.search.shift_ratio, 1, 100,
                    "force-shift a job of remaining time x into a hole of length y when y < x <= ratio x y"),
      Param::integer("perms", kSearchDefaults.search.perms, 1, 100000000, "orders evaluated per sub-group"),
      Param::integer("nodes", kSearchDefaults.search.nodes, 1, 1000000000000LL,
                     "placements per group optimization (the deterministic budget)"),
      Param::integer("lw_min", kSearchDefaults.search.lw_min, 1, 100, "long-wide jobs needed for level 1"),
      Param::integer("lw_max", kSearchDefaults.search.lw_max, 1, 8, "long-wide jobs permuted at most"),
      Param::integer("subgroup", kSearchDefaults.search.subgroup, 1, 12, "jobs per sub-group of a full group"),
      Param::number("delta", kSearchDefaults.delta, 0, 1, "group finish: utilization tolerance"),
      Param::number("min_util", kSearchDefaults.min_util, 0, 1, "group finish: minimum utilization"),
      Param::flag("plan_backfill", kSearchDefaults.plan_backfill,
                  "smart-backfill other classes' plan jobs into a slice (section 6.5 without its extra check)"),
      Param::integer("commit", kSearchDefaults.commit, 0, 1000,
                     "jobs of the searched order a plan keeps; the rest return to the queue (0: all, the thesis's)"),
      Param::flag("plan_easy", kSearchDefaults.plan_easy,
                  "execute a plan's order with EASY (only its first waiting job reserved), not every job pinned"),
      Param::integer("wall_ms", 200, 0, 100000000, "live only: wall-clock cap per group optimization, ms (0: none)"),
      Param::flag("stats", kSearchDefaults.stats, "print the search statistics to stderr at the end"),
  });
  return table;
}

PolicyPtr make_pect_search(const ParamValues& v, RunMode mode) {
  PectSearchOptions o;
  o.pect = pect_options(v);
  o.max_long = static_cast<int>(v.integer("max_long"));
  o.max_medium = static_cast<int>(v.integer("max_medium"));
  o.search.level1 = v.flag("level1");
  o.search.level2 = v.flag("level2");
  o.search.bnb = v.flag("bnb");
  o.search.force_shift = v.flag("shift");
  o.search.shift_ratio = v.number("shift_ratio");
  o.search.perms = v.integer("perms");
  o.search.nodes = v.integer("nodes");
  o.search.lw_min = static_cast<int>(v.integer("lw_min"));
  o.search.lw_max = static_cast<int>(v.integer("lw_max"));
  o.search.subgroup = static_cast<int>(v.integer("subgroup"));
  o.delta = v.number("delta");
  o.min_util = v.number("min_util");
  o.plan_backfill = v.flag("plan_backfill");
  o.plan_easy = v.flag("plan_easy");
  o.commit = static_cast<int>(v.integer("commit"));
  o.wall_ms = v.integer("wall_ms");
  o.stats = v.flag("stats");
  return std::make_unique<PectSearchPolicy>(std::move(o), v.canonical(), mode);
}

}  // namespace los
