// Every LOS variant on every shared trace, whole, at the trace's own load and
// at load 0.9: the invariant checker (capacity, causality, and no blocked
// head starting after its first shadow time) finds nothing.
#include <gtest/gtest.h>

#include "policy/registry.hpp"
#include "sim/invariants.hpp"
#include "test_support.hpp"
#include "workload/transform.hpp"

namespace los {
namespace {

const char* const kVariants[] = {"los",        "los-basic", "los-maxjobs", "los-maxsd", "los:traceback=selected-first",
                                 "los:head=once", "los-maxsd:traceback=selected-first:lookahead=10"};

void check_trace(double load) {
  const std::vector<std::string> traces = test::shared_traces();
  if (traces.empty()) GTEST_SKIP() << "no shared traces";
  for (const std::string& path : traces) {
    Workload w = read_swf(path);
    if (load > 0) scale_to_load(w, load, true);
    for (const char* spec : kVariants) {
      PolicyPtr p = make_policy(spec);
      InvariantChecker checker;
      const SimResult r = simulate(w, *p, {}, &checker);
      EXPECT_EQ(checker.check(r, true), std::vector<std::string>{}) << spec << " on " << path;
      EXPECT_FALSE(checker.first_promises().empty()) << spec << " on " << path << ": no head ever waited";
    }
  }
}

TEST(LosTraces, InvariantsHoldForEveryVariantOnEveryTrace) { check_trace(0); }
TEST(LosTraces, InvariantsHoldForEveryVariantOnEveryTraceAtLoad09) { check_trace(0.9); }

}  // namespace
}  // namespace los
