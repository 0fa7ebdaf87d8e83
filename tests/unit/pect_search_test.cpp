// pect-search: the virtual profile, branch-and-bound against exhaustive
// search on hundreds of random small groups, the search's determinism and
// ablations, and groups forming on a Lublin workload.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "policies/pect_search.hpp"
#include "policy/registry.hpp"
#include "sim/invariants.hpp"
#include "sim/simulator.hpp"
#include "workload/models.hpp"

namespace los {
namespace {

TEST(PectSearch, ProfilePlacesByEarliestFit) {
  VProfile p(10, 100);
  p.reserve(100, 50, 6);  // [100, 150): 4 free
  p.reserve(150, 50, 8);  // [150, 200): 2 free
  EXPECT_EQ(p.earliest(4, 50, 100), 100);
  EXPECT_EQ(p.earliest(4, 51, 100), 200);  // would overlap [150, 200)
  EXPECT_EQ(p.earliest(2, 100, 100), 100);
  EXPECT_EQ(p.earliest(10, 1, 120), 200);
  EXPECT_EQ(p.earliest(11, 1, 100), kTimeInfinity);
  EXPECT_EQ(p.min_free(100, 200), 2);
  EXPECT_EQ(p.min_free(100, 150), 4);
  EXPECT_DOUBLE_EQ(p.idle_area(100, 200), 4.0 * 50 + 2.0 * 50);
  p.reserve(120, 10, 4);
  EXPECT_EQ(p.min_free(100, 150), 0);
  EXPECT_EQ(p.earliest(1, 10, 100), 100);
  EXPECT_EQ(p.earliest(1, 30, 100), 130);
}

TEST(PectSearch, EstimatedSlowdownStretchesByTheShare) {
  SearchOptions o;
  o.share = 0.5;
  const VJob j{1, 0, 4, 1000};
  // waited 100, then (200 - 100 + 1000) / 0.5 = 2200 more: 2300 / 1000.
  EXPECT_DOUBLE_EQ(estimated_bsld(j, 200, 100, o), 2.3);
  const VJob s{2, 100, 4, 10};  // bounded by 600: 20 / 600 < 1
  EXPECT_DOUBLE_EQ(estimated_bsld(s, 100, 100, o), 1.0);
}

struct Case {
  VProfile base;
  std::vector<VJob> jobs;
};

Case random_case(std::mt19937_64& rng) {
  const int units = 16;
  const Time now = 10000;
  Case c{VProfile(units, now), {}};
  std::uniform_int_distribution<int> holds(0, 3), size(1, units), n(3, 7);
  std::uniform_int_distribution<Time> len(1, 4000), wait(0, 20000);
  for (int h = holds(rng); h > 0; --h) {
    const int s = std::uniform_int_distribution<int>(1, units / 2)(rng);
    c.base.reserve(now, len(rng), s);
  }
  const int jobs = n(rng);
  for (int i = 0; i < jobs; ++i) {
    c.jobs.push_back({static_cast<JobId>(i + 1), now - wait(rng), size(rng), len(rng)});
  }
  return c;
}

// The exhaustive reference: every order of the heuristic ranks in
// lexicographic order, the first with the lowest total.
std::pair<std::vector<int>, double> exhaustive(const Case& c, const std::vector<int>& heuristic,
                                               const SearchOptions& o) {
  std::vector<int> ranks(heuristic.size());
  std::iota(ranks.begin(), ranks.end(), 0);
  std::vector<int> best;
  double best_total = std::numeric_limits<double>::infinity();
  do {
    std::vector<int> order;
    for (int r : ranks) order.push_back(heuristic[static_cast<std::size_t>(r)]);
    const double t = place_order(c.base, c.jobs, order, o);
    if (t < best_total) {
      best_total = t;
      best = order;
    }
  } while (std::next_permutation(ranks.begin(), ranks.end()));
  return {best, best_total};
}

TEST(PectSearch, BranchAndBoundFindsTheExhaustiveBest) {
  std::mt19937_64 rng(20261124);
  SearchOptions o;
  o.perms = 1'000'000;
  o.nodes = 1'000'000'000;
  long long pruned = 0;
  for (int i = 0; i < 400; ++i) {
    const Case c = random_case(rng);
    std::vector<int> heuristic(c.jobs.size());
    std::iota(heuristic.begin(), heuristic.end(), 0);
    std::shuffle(heuristic.begin(), heuristic.end(), rng);
    const std::vector<int> none(c.jobs.size(), -1);
    const auto [want, want_total] = exhaustive(c, heuristic, o);
    SearchStats with, without;
    SearchOptions bnb = o;
    const PermutationResult a = search_permutations(c.base, c.jobs, heuristic, none, bnb, false, o.perms, with);
    SearchOptions plain = o;
    plain.bnb = false;
    const PermutationResult b = search_permutations(c.base, c.jobs, heuristic, none, plain, false, o.perms, without);
    EXPECT_EQ(a.best, want) << "case " << i;
    EXPECT_DOUBLE_EQ(a.best_total, want_total) << "case " << i;
    EXPECT_EQ(b.best, want) << "case " << i;
    EXPECT_EQ(without.pruned, 0);
    EXPECT_LE(with.nodes, without.nodes) << "case " << i;
    pruned += with.pruned;
  }
  EXPECT_GT(pruned, 0);  // the bound did cut something
}

TEST(PectSearch, LongWideOrderIsKeptInLevelTwo) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 100; ++i) {
    const Case c = random_case(rng);
    std::vector<int> heuristic(c.jobs.size());
    std::iota(heuristic.begin(), heuristic.end(), 0);
    std::vector<int> lw(c.jobs.size(), -1);
    lw[0] = 1;  // job 0 must follow job 1
    lw[1] = 0;
    SearchStats st;
    SearchOptions o;
    const PermutationResult r = search_permutations(c.base, c.jobs, heuristic, lw, o, true, 100000, st);
    const auto pos = [&](const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) - v.begin(); };
    EXPECT_LT(pos(r.best, 1), pos(r.best, 0)) << "case " << i;
    EXPECT_LT(pos(r.selected, 1), pos(r.selected, 0)) << "case " << i;
  }
}

TEST(PectSearch, OptimizeGroupIsDeterministicAndLevelTwoIsAnAblation) {
  std::mt19937_64 rng(31);
  VProfile base(128, 50000);
  base.reserve(50000, 3000, 40);
  std::vector<VJob> jobs;
  for (int i = 0; i < 30; ++i) {
    jobs.push_back({static_cast<JobId>(i + 1), 50000 - static_cast<Time>(rng() % 30000),
                    static_cast<int>(1 + rng() % 64), static_cast<Time>(11000 + rng() % 30000)});
  }
  SearchOptions o;
  o.share = 0.73;
  o.lw_size = 32;
  o.max_group = 30;
  const SearchOutcome a = optimize_group(base, jobs, o);
  const SearchOutcome b = optimize_group(base, jobs, o);
  EXPECT_EQ(a.order, b.order);
  EXPECT_EQ(a.stats.nodes, b.stats.nodes);
  std::vector<int> sorted = a.order;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> all(jobs.size());
  std::iota(all.begin(), all.end(), 0);
  EXPECT_EQ(sorted, all);  // every job exactly once
  EXPECT_GT(a.stats.perms, 0);
  EXPECT_GT(a.stats.level1_perms, 0);  // several long-wide jobs here
  SearchOptions off = o;
  off.level2 = false;
  const SearchOutcome c = optimize_group(base, jobs, off);
  EXPECT_EQ(c.stats.perms, 0);
  EXPECT_DOUBLE_EQ(c.total, c.stats.initial_total);
  EXPECT_DOUBLE_EQ(a.stats.initial_total, c.stats.initial_total);
  // A node budget bounds the work and is counted, deterministically.
  SearchOptions tight = o;
  tight.nodes = 500;
  const SearchOutcome t = optimize_group(base, jobs, tight);
  EXPECT_GT(t.stats.budget_hits, 0);
  EXPECT_LT(t.stats.nodes, a.stats.nodes);
}

TEST(PectSearch, GroupsFormOnALublinWorkload) {
  const Workload w = generate_model(parse_model_spec("lublin:jobs=3000:nodes=128:seed=71")).workload;
  PolicyPtr p = make_policy("pect-search");
  const auto* ps = dynamic_cast<const PectSearchPolicy*>(p.get());
  ASSERT_NE(ps, nullptr);
  const SimResult r = simulate(w, *p, {});
  EXPECT_GT(ps->groups(PectClass::Long) + ps->groups(PectClass::Medium), 0);
  EXPECT_GT(ps->grouped_jobs(), 0);
  EXPECT_GT(ps->stats().nodes, 0);
  EXPECT_EQ(r.jobs.size(), w.jobs.size());
  EXPECT_TRUE(p->capabilities().time_sharing);
  EXPECT_TRUE(p->capabilities().wall_clock_budget);
  EXPECT_EQ(canonical_policy("pect-search:perms=10000:nodes=2000000"), "pect-search");
  EXPECT_THROW(make_policy("pect-search:subgroup=0"), SpecError);
}

// Jobs of a plan start in other classes' slices only with plan_backfill
// (every such start leaves the plan and is counted); either way every job
// runs once and the schedule is sound.
TEST(PectSearch, PlanJobsAreSmartBackfilledOnlyWithPlanBackfill) {
  const Workload w = generate_model(parse_model_spec("lublin:jobs=3000:nodes=128:seed=71")).workload;
  for (const std::string spec : {"pect-search", "pect-search:plan_backfill"}) {
    PolicyPtr p = make_policy(spec);
    const auto* ps = dynamic_cast<const PectSearchPolicy*>(p.get());
    ASSERT_NE(ps, nullptr);
    InvariantChecker checker;
    const SimResult r = simulate(w, *p, {}, &checker);
    EXPECT_EQ(checker.check(r, true), std::vector<std::string>{}) << spec;
    EXPECT_EQ(r.jobs.size(), w.jobs.size()) << spec;
    EXPECT_GT(ps->grouped_jobs(), 0) << spec;
    if (spec == "pect-search") {
      EXPECT_EQ(ps->plan_backfills(), 0);
    } else {
      EXPECT_GT(ps->plan_backfills(), 0);
    }
  }
}

// plan_easy executes plans with EASY: a sound schedule, and a different one
// (plan jobs start earlier than their pinned places allow). On the thesis's
// whole-order plans: a plan of the default commit=1 is one job, which EASY
// and the pinned place start alike.
TEST(PectSearch, PlanEasyIsSoundAndChangesTheSchedule) {
  const Workload w = generate_model(parse_model_spec("lublin:jobs=3000:nodes=128:seed=71")).workload;
  std::vector<Time> starts[2];
  int k = 0;
  for (const std::string spec : {"pect-search:commit=0", "pect-search:commit=0:plan_easy"}) {
    PolicyPtr p = make_policy(spec);
    InvariantChecker checker;
    const SimResult r = simulate(w, *p, {}, &checker);
    EXPECT_EQ(checker.check(r, true), std::vector<std::string>{}) << spec;
    ASSERT_EQ(r.jobs.size(), w.jobs.size()) << spec;
    for (const JobOutcome& o : r.jobs) starts[k].push_back(o.start);
    ++k;
  }
  EXPECT_NE(starts[0], starts[1]);
}

// commit keeps the first jobs of each searched order in the plan: no plan
// holds more, more groups form (each is searched again once its jobs
// started), every schedule is sound, and commit=0 (the thesis's plan) keeps
// longer plans than the default.
TEST(PectSearch, CommitKeepsOnlyTheFirstJobsOfEachSearchedOrder) {
  const Workload w = generate_model(parse_model_spec("lublin:jobs=3000:nodes=128:seed=71")).workload;
  long long groups[3] = {0, 0, 0};
  long long grouped[3] = {0, 0, 0};
  const std::string specs[3] = {"pect-search:commit=0", "pect-search", "pect-search:commit=3"};
  for (int k = 0; k < 3; ++k) {
    PolicyPtr p = make_policy(specs[k]);
    const auto* ps = dynamic_cast<const PectSearchPolicy*>(p.get());
    ASSERT_NE(ps, nullptr);
    InvariantChecker checker;
    const SimResult r = simulate(w, *p, {}, &checker);
    EXPECT_EQ(checker.check(r, true), std::vector<std::string>{}) << specs[k];
    ASSERT_EQ(r.jobs.size(), w.jobs.size()) << specs[k];
    groups[k] = ps->groups(PectClass::Long) + ps->groups(PectClass::Medium);
    grouped[k] = ps->grouped_jobs();
    ASSERT_GT(groups[k], 0) << specs[k];
    int max_position = 0;
    for (const auto& [id, g] : ps->grouped()) max_position = std::max(max_position, g.position);
    if (k == 0) {
      EXPECT_GT(max_position, 2);
    } else if (k == 1) {
      EXPECT_EQ(max_position, 0);
    } else {
      EXPECT_LE(max_position, 2);
    }
  }
  EXPECT_EQ(grouped[1], groups[1]);        // one job per plan
  EXPECT_LE(grouped[2], 3 * groups[2]);    // at most three
  EXPECT_GT(grouped[0], 3 * groups[0]);    // the thesis's plans are longer
  EXPECT_GT(groups[1], groups[0]);
  EXPECT_EQ(canonical_policy("pect-search:commit=1"), "pect-search");
  EXPECT_THROW(make_policy("pect-search:commit=-1"), SpecError);
}

}  // namespace
}  // namespace los
