// SCOJO-PECT (pect): classification, slice accounting and the switch cost on
// hand-computed schedules; node-level soundness (same-node resume, disjoint
// node sets per class) and the invariant checker on generated workloads and
// a shared trace segment.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "policies/pect.hpp"
#include "policies/pect_search.hpp"
#include "policy/registry.hpp"
#include "sim/invariants.hpp"
#include "test_support.hpp"
#include "workload/models.hpp"
#include "workload/transform.hpp"

namespace los {
namespace {

using test::end_of;
using test::job;
using test::run;
using test::start_of;
using test::workload;

const JobOutcome& outcome(const SimResult& r, JobId id) {
  for (const JobOutcome& o : r.jobs) {
    if (o.job.id == id) return o;
  }
  throw std::out_of_range("no job");
}

TEST(Pect, ClassesAndSlicesFollowTheSpec) {
  const PectOptions o;
  EXPECT_EQ(o.classify(1), PectClass::Short);
  EXPECT_EQ(o.classify(599), PectClass::Short);
  EXPECT_EQ(o.classify(600), PectClass::Medium);
  EXPECT_EQ(o.classify(10800), PectClass::Medium);
  EXPECT_EQ(o.classify(10801), PectClass::Long);
  EXPECT_EQ(o.classify(40 * 3600), PectClass::Long);  // no 8 h cap
  EXPECT_EQ(o.slice_of(PectClass::Medium), 3600);
  EXPECT_EQ(o.slice_of(PectClass::Long), 9917);  // 3600 x 73 / 26.5
  EXPECT_EQ(o.slice_of(PectClass::Short), 600);
  EXPECT_EQ(o.switch_cost, 60);
}

TEST(Pect, OptionsHaveDefaultsAndRejectBadInput) {
  EXPECT_EQ(canonical_policy("pect"), "pect");
  EXPECT_EQ(canonical_policy("pect:switch=60:medium_slice=3600"), "pect");
  EXPECT_THROW(make_policy("pect:switch=-1"), SpecError);
  EXPECT_THROW(make_policy("pect:long_limit=100"), SpecError);  // below short_limit
  EXPECT_THROW(make_policy("pect:nosuch=1"), SpecError);
  const PolicyPtr p = make_policy("pect");
  EXPECT_TRUE(p->capabilities().time_sharing);
  EXPECT_TRUE(p->capabilities().resync);
}

// A full-width long job is preempted for a short class slice: the long slice
// (9917 s) ends, the long job goes to disk, 60 s switch gap, the short job runs
// 100 s, its class is then empty so its slice ends, 60 s gap, the long job
// resumes on its nodes for its remaining 20000 - 9917 s.
TEST(Pect, LongJobPreemptedForAShortSlicePaysTwoSwitches) {
  const Workload w = workload(4, {job(1, 0, 4, 20000), job(2, 10, 4, 100)});
  const SimResult r = run(w, "pect");
  EXPECT_EQ(start_of(r, 1), 0);
  EXPECT_EQ(start_of(r, 2), 9917 + 60);
  EXPECT_EQ(end_of(r, 2), 9917 + 60 + 100);
  EXPECT_EQ(end_of(r, 1), 9917 + 60 + 100 + 60 + (20000 - 9917));
  EXPECT_EQ(outcome(r, 1).suspensions, 1);
  EXPECT_EQ(outcome(r, 2).suspensions, 0);
  EXPECT_EQ(r.overhead, 0);  // the switch cost is idle machine time, not a per-job stall

  // Without the switch cost the two gaps vanish, nothing else moves.
  const SimResult z = run(w, "pect:switch=0");
  EXPECT_EQ(start_of(z, 2), 9917);
  EXPECT_EQ(end_of(z, 1), 9917 + 100 + (20000 - 9917));

  // Slice lengths follow the parameters: a 100 s medium slice makes the long
  // slice 100 x 73 / 26.5 = 275 s.
  const SimResult s = run(w, "pect:medium_slice=100");
  EXPECT_EQ(start_of(s, 2), 275 + 60);
  EXPECT_EQ(end_of(s, 1), 275 + 60 + 100 + 60 + (20000 - 275));
}

// The long job is preempted in every cycle while medium work remains: the
// policy's slice accounting sees M, L and S slices in the cycle order.
TEST(Pect, SlicesCycleMediumLongShort) {
  // A medium job at 0 (slice M, 3600 s) and a long and a short job waiting
  // behind it, each full width so no smart backfilling happens.
  const Workload w = workload(4, {job(1, 0, 4, 5000), job(2, 1, 4, 20000), job(3, 2, 4, 100)});
  const SimResult r = run(w, "pect");
  // M [0, 3600) job 1; gap; L [3660, 13577) job 2; gap; S [13637, ...) job 3
  // ends 13737, class empty: gap; M [13797, ...) job 1 needs 1400 more.
  EXPECT_EQ(start_of(r, 1), 0);
  EXPECT_EQ(start_of(r, 2), 3660);
  EXPECT_EQ(start_of(r, 3), 3660 + 9917 + 60);
  EXPECT_EQ(end_of(r, 3), 13637 + 100);
  EXPECT_EQ(end_of(r, 1), 13737 + 60 + 1400);
  // Then L again: job 2 has 20000 - 9917 = 10083 left, one more long slice
  // (9917) and, the other classes being empty, a second long slice without a
  // switch.
  EXPECT_EQ(end_of(r, 2), 15197 + 60 + 10083);
}

// Smart backfilling: a short job fits beside a half-width long job and starts
// at once in the long slice; the long job is never preempted because no other
// class has work when its slice ends. Without smart backfilling the short job
// waits for its own slice and the long job pays two switches.
TEST(Pect, SmartBackfillingRunsOtherClassesInTheSlice) {
  const Workload w = workload(4, {job(1, 0, 2, 20000), job(2, 10, 2, 100)});
  const SimResult r = run(w, "pect");
  EXPECT_EQ(start_of(r, 2), 10);
  EXPECT_EQ(end_of(r, 1), 20000);
  EXPECT_EQ(r.suspensions, 0u);
  const SimResult n = run(w, "pect:smart=false");
  EXPECT_EQ(start_of(n, 2), 9917 + 60);
  EXPECT_EQ(end_of(n, 1), 9917 + 60 + 100 + 60 + (20000 - 9917));
  EXPECT_EQ(n.suspensions, 1u);
}

// EASY within the class: the blocked head's shadow is A's end (1000); C ends
// before it and backfills, D would delay it and waits.
TEST(Pect, EasyBackfillingWithinTheClass) {
  const Workload w = workload(4, {job(1, 0, 3, 1000), job(2, 1, 4, 1000), job(3, 2, 1, 700), job(4, 3, 1, 2000)});
  const SimResult r = run(w, "pect");
  EXPECT_EQ(start_of(r, 1), 0);
  EXPECT_EQ(start_of(r, 3), 2);
  EXPECT_EQ(start_of(r, 2), 1000);
  EXPECT_EQ(start_of(r, 4), 2000);
  const SimResult f = run(w, "pect:easy=false");
  EXPECT_EQ(start_of(f, 3), 2000);  // FIFO: behind the head
}

// A medium job smart-backfilled into a long slice is suspended at the slice
// end with the long job and resumes on the same nodes in its own slice.
TEST(Pect, BackfilledJobOfAnotherClassIsSuspendedAtTheSliceEnd) {
  const Workload w = workload(4, {job(1, 0, 2, 20000), job(2, 5, 2, 10000), job(3, 9000, 4, 100)});
  // L [0, 9917): long job 1 and medium job 2 (smart-backfilled at 5, done
  // 9912 at the slice end); gap; S [9977, 10077): short job 3 (full width);
  // gap; M [10137, 10225): job 2 resumes for its last 88 s and the preempted
  // long job 1 is smart-backfilled beside it (its nodes are free, no medium
  // job waits), so it too runs 88 s; the medium class is then empty: job 1 is
  // suspended again, gap, L [10285, ...): job 1 ends its 20000 - 9917 - 88 s.
  const SimResult r = run(w, "pect");
  EXPECT_EQ(start_of(r, 2), 5);
  EXPECT_EQ(start_of(r, 3), 9977);
  EXPECT_EQ(end_of(r, 2), 10137 + 88);
  EXPECT_EQ(end_of(r, 1), 10285 + (20000 - 9917 - 88));
  EXPECT_EQ(outcome(r, 1).suspensions, 2);
  EXPECT_EQ(outcome(r, 2).suspensions, 1);
}

// ---- soundness -------------------------------------------------------------------

// Checks the node sets after every step: executing jobs never share a node,
// jobs of one class (started, unfinished) never share a node, a job keeps its
// nodes across suspensions, and each holds exactly its size.
class NodeChecker final : public SimObserver {
 public:
  explicit NodeChecker(PectOptions o) : o_(o) {}
  void after_step(const Snapshot& s, const StepResult&, const Policy&) override {
    std::map<int, JobId> executing;
    std::array<std::map<int, JobId>, 3> bound;
    for (const RunningJob& r : s.running) {
      if (static_cast<int>(r.nodes.size()) != r.job.size) fail(s, r.job.id, "holds a wrong number of nodes");
      const auto [it, fresh] = first_nodes_.emplace(r.job.id, r.nodes);
      if (!fresh && it->second != r.nodes) fail(s, r.job.id, "moved to other nodes");
      const auto c = static_cast<std::size_t>(o_.classify(r.job.estimate));
      for (int n : r.nodes) {
        if (!r.suspended && !executing.emplace(n, r.job.id).second) fail(s, r.job.id, "shares an executing node");
        if (!bound[c].emplace(n, r.job.id).second) fail(s, r.job.id, "shares a node with a job of its class");
      }
    }
  }
  std::vector<std::string> violations;

 private:
  void fail(const Snapshot& s, JobId id, const std::string& what) {
    if (violations.size() < 10)
      violations.push_back("t=" + std::to_string(s.now) + " job " + std::to_string(id) + " " + what);
  }
  PectOptions o_;
  std::map<JobId, std::vector<int>> first_nodes_;
};

void expect_sound(const Workload& w, const std::string& spec) {
  PolicyPtr p = make_policy(spec);
  const PectPolicy* pect = dynamic_cast<const PectPolicy*>(p.get());
  ASSERT_NE(pect, nullptr);
  NodeChecker nodes(pect->options());
  InvariantChecker checker;
  struct Both final : SimObserver {
    SimObserver* a;
    SimObserver* b;
    void after_step(const Snapshot& s, const StepResult& r, const Policy& p) override {
      a->after_step(s, r, p);
      b->after_step(s, r, p);
    }
  } both;
  both.a = &nodes;
  both.b = &checker;
  const SimResult r = simulate(w, *p, {}, &both);
  const auto v = checker.check(r, true);
  EXPECT_TRUE(v.empty()) << spec << ": " << v.front();
  EXPECT_TRUE(nodes.violations.empty()) << spec << ": " << nodes.violations.front();
  std::size_t suspended = 0;
  for (const JobOutcome& o : r.jobs) {
    EXPECT_EQ(o.executed, effective_runtime(o.job, true)) << spec << " job " << o.job.id;
    EXPECT_GE(o.end - o.start, o.executed) << spec << " job " << o.job.id;
    suspended += o.suspensions > 0;
  }
  EXPECT_GT(suspended, 0u) << spec << ": no job was ever preempted";
  EXPECT_GT(pect->switches(), 0);
  // Every second of every slice is counted, gaps apart: slices and gaps fit
  // in the span from the first submission to the last end.
  Time first = kTimeInfinity;
  Time last = 0;
  for (const JobOutcome& o : r.jobs) {
    first = std::min(first, o.job.submit);
    last = std::max(last, o.end);
  }
  Time sliced = 0;
  for (Time t : pect->slice_seconds()) sliced += t;
  EXPECT_GT(sliced, 0);
  EXPECT_LE(sliced + pect->switches() * pect->options().switch_cost, last - first + pect->options().switch_cost);
}

TEST(Pect, SoundOnGeneratedWorkloads) {
  for (const char* model : {"lublin:jobs=3000:nodes=128:seed=71", "lublin:jobs=3000:nodes=128:seed=7",
                            "lublin:jobs=2000:nodes=64:seed=5:arrival-scale=0.7"}) {
    const Workload w = generate_model(parse_model_spec(model)).workload;
    for (const char* spec : {"pect", "pect:switch=0", "pect:smart=false", "pect:skip_empty=false",
                             "pect:easy=false:medium_slice=600", "pect-search", "pect-search:level2=false:bnb=false"}) {
      SCOPED_TRACE(std::string(model) + " " + spec);
      expect_sound(w, spec);
    }
  }
}

TEST(Pect, SoundOnASharedTraceSegment) {
  const std::string path = test::shared_trace("SDSC-BLUE-2000-4.2-cln.swf.gz");
  if (path.empty()) GTEST_SKIP() << "shared trace absent";
  Workload w = read_swf(path, {});
  cut_window(w, 0, 3000);
  for (Job& j : w.jobs) j.estimate = std::max<Time>(j.runtime, 1);  // the thesis's exact run times
  expect_sound(w, "pect");
  expect_sound(w, "pect:smart=false");
  expect_sound(w, "pect-search");
}

}  // namespace
}  // namespace los
