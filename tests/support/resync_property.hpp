// A whole simulation with resyncs at random steps, for any policy that
// states Capabilities::resync: the property the gang and pect resync tests
// share (tests/unit/*_resync_test.cpp).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "policy/registry.hpp"
#include "sim/invariants.hpp"
#include "sim/simulator.hpp"
#include "test_support.hpp"
#include "workload/transform.hpp"

namespace los::test {

// The invariant checker, plus: every job starts once, and steps that were
// resyncs while jobs were suspended are counted (so a test cannot pass
// without exercising the rebuild).
class ResyncObserver final : public SimObserver {
 public:
  void after_step(const Snapshot& s, const StepResult& r, const Policy& p) override {
    checker.after_step(s, r, p);
    if (s.resync) {
      ++resyncs;
      if (std::any_of(s.running.begin(), s.running.end(), [](const RunningJob& x) { return x.suspended; })) {
        ++resyncs_with_suspended;
      }
    }
    for (const Decision& d : r.decisions) starts[d.job] += d.kind == Decision::Kind::Start;
  }
  InvariantChecker checker;
  std::map<JobId, int> starts;
  std::size_t resyncs = 0;
  std::size_t resyncs_with_suspended = 0;
};

// Runs `spec` on `w` once plainly, then again with a resync at about one
// step in 25 (seeded), each to a fresh instance or to the same one: the
// invariant checker holds, every job starts once and runs its whole run
// time, nothing is left waiting or suspended, and some resync saw a
// suspended job.
inline void expect_sound_with_resyncs(const Workload& w, const std::string& spec, unsigned seed, bool fresh_instances) {
  SCOPED_TRACE(spec + (fresh_instances ? " (fresh instances)" : " (same instance)"));
  // First the plain run: how many steps it takes sets where resyncs fall.
  const SimResult plain = run(w, spec);
  std::mt19937 rng(seed);
  SimOptions o;
  for (std::size_t k = 1; k < plain.steps; ++k) {
    if (rng() % 25 == 0) o.resync_steps.push_back(k);
  }
  std::vector<PolicyPtr> instances;
  instances.push_back(make_policy(spec));
  if (fresh_instances) {
    o.on_resync = [&]() -> Policy& {
      instances.push_back(make_policy(spec));
      return *instances.back();
    };
  }
  ResyncObserver obs;
  SimResult r;
  ASSERT_NO_THROW(r = simulate(w, *instances.front(), o, &obs));  // nothing left waiting or suspended
  const std::vector<std::string> violations = obs.checker.check(r, true);
  EXPECT_TRUE(violations.empty()) << violations.front();
  EXPECT_GT(obs.resyncs, 0u);
  EXPECT_GT(obs.resyncs_with_suspended, 0u) << "no resync saw a suspended job";
  ASSERT_EQ(r.jobs.size(), w.jobs.size());
  for (const JobOutcome& j : r.jobs) {
    EXPECT_EQ(obs.starts[j.job.id], 1) << "job " << j.job.id << " started " << obs.starts[j.job.id] << " times";
    EXPECT_GE(j.start, j.job.submit) << "job " << j.job.id;
    EXPECT_EQ(j.executed, effective_runtime(j.job, true)) << "job " << j.job.id;
    EXPECT_GE(j.end - j.start, j.executed) << "job " << j.job.id;
  }
}

}  // namespace los::test
