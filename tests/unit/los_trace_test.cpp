// Every LOS variant on every shared trace, whole, at the trace's own load and
// at load 0.9: the invariant checker (capacity, causality, and no blocked
// head starting after its first shadow time) finds nothing.
#include <gtest/gtest.h>

#include <algorithm>

#include "planner/planner.hpp"
#include "policy/registry.hpp"
#include "sim/invariants.hpp"
#include "test_support.hpp"
#include "workload/transform.hpp"

namespace los {
namespace {

const char* const kVariants[] = {"los",
                                 "los-basic",
                                 "los-maxjobs",
                                 "los-maxsd",
                                 "los:design=thesis",
                                 "los:design=thesis:traceback=selected-first",
                                 "los:design=thesis:head=once",
                                 "los-maxsd:design=thesis:traceback=selected-first:lookahead=10",
                                 "los:design=thesis:gate=fit:keep=short:rest=easy:select=queue",
                                 "los:protect=once:rules=every"};

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

// After every step the profile LOS keeps from the snapshot's events equals
// the profile rebuilt from scratch: running jobs until their expected end,
// plus the jobs the step started.
class ProfileOracle final : public SimObserver {
 public:
  void after_step(const Snapshot& s, const StepResult& result, const Policy& policy) override {
    Planner expected(s.total_units, s.now);
    for (const RunningJob& r : s.running) {
      if (!r.suspended) expected.add(s.now, r.expected_end(s.now), -r.job.size);
    }
    for (const Decision& d : result.decisions) {
      for (const Job& j : s.queue) {
        if (j.id == d.job) expected.add(s.now, s.now + std::max<Time>(j.estimate, 1), -j.size);
      }
    }
    ++steps;
    if (policy.plan()->slots() != expected.slots()) ++mismatches;
  }
  std::size_t steps = 0;
  std::size_t mismatches = 0;
};

TEST(LosTraces, KeptProfileEqualsTheRebuiltOneAtEveryStep) {
  for (const char* file : {"KTH-SP2-1996-2.1-cln.swf.gz", "SDSC-SP2-1998-4.2-cln.swf.gz"}) {
    const std::string path = test::shared_trace(file);
    if (path.empty()) GTEST_SKIP() << file << " absent";
    Workload w = read_swf(path);
    scale_to_load(w, 0.9, true);
    PolicyPtr p = make_policy("los");
    ProfileOracle oracle;
    simulate(w, *p, {}, &oracle);
    EXPECT_GT(oracle.steps, w.jobs.size());
    EXPECT_EQ(oracle.mismatches, 0U) << file;
  }
}

TEST(LosTraces, InvariantsHoldForEveryVariantOnEveryTrace) { check_trace(0); }
TEST(LosTraces, InvariantsHoldForEveryVariantOnEveryTraceAtLoad09) { check_trace(0.9); }

}  // namespace
}  // namespace los
