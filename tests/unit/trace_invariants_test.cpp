// The invariant checker on every shared trace under every baseline policy:
// capacity never exceeded, no start before submit, no job later than its
// first reservation (EASY's head job, every conservative job). Skipped when
// ../shared/traces is absent.
#include <gtest/gtest.h>

#include "policy/registry.hpp"
#include "sim/invariants.hpp"
#include "test_support.hpp"

namespace los {
namespace {

class TraceInvariants : public ::testing::TestWithParam<std::string> {};

TEST_P(TraceInvariants, EveryTraceKeepsEveryInvariant) {
  const std::vector<std::string> traces = test::shared_traces();
  if (traces.empty()) GTEST_SKIP() << "no shared traces in " << LOS_SHARED_DIR;
  for (const std::string& path : traces) {
    const Workload w = read_swf(path);
    for (bool kill : {true, false}) {
      PolicyPtr p = make_policy(GetParam());
      InvariantChecker checker;
      SimOptions o;
      o.kill_at_estimate = kill;
      const SimResult r = simulate(w, *p, o, &checker);
      const auto violations = checker.check(r, kill);
      EXPECT_TRUE(violations.empty()) << GetParam() << " on " << path << (kill ? "" : " (no kill)") << ": "
                                      << violations.front();
      EXPECT_EQ(r.jobs.size(), w.jobs.size());
      // Reservation-keeping policies promised something to someone.
      if (GetParam() != "fcfs" && GetParam() != "aggressive") {
        EXPECT_FALSE(checker.first_promises().empty());
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Baselines, TraceInvariants,
                         ::testing::Values("fcfs", "easy", "conservative", "aggressive", "depth:k=4"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n) {
                             if (c == ':' || c == '=') c = '_';
                           }
                           return n;
                         });

}  // namespace
}  // namespace los
