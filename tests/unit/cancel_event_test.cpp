// The simulator's cancel event (Job::cancel_lag, los-sim --cancelled=withdraw):
// a record its user withdrew leaves the queue at its cancel time, or ends
// then if the policy started it; the metrics leave it out of the per-job
// figures; the invariant checker accepts it.
#include <gtest/gtest.h>

#include <functional>

#include "metrics/summary.hpp"
#include "policy/registry.hpp"
#include "sim/invariants.hpp"
#include "sim/simulator.hpp"
#include "workload/swf.hpp"
#include "test_support.hpp"

namespace los {
namespace {

using test::job;
using test::workload;

// A record cancelled before it ran, as the SWF reader keeps it under
// --cancelled=withdraw: run time 0, its estimate, its cancel lag.
Job withdrawn(JobId id, Time submit, int size, Time estimate, Time cancel_lag) {
  Job j = job(id, submit, size, estimate, 0);
  j.cancel_lag = cancel_lag;
  return j;
}

const JobOutcome& outcome(const SimResult& r, JobId id) {
  for (const JobOutcome& o : r.jobs) {
    if (o.job.id == id) return o;
  }
  throw std::out_of_range("job");
}

struct CheckedRun {
  SimResult result;
  InvariantChecker checker;
  std::vector<std::string> violations;
};

CheckedRun run_checked(const Workload& w, const std::string& spec) {
  CheckedRun c;
  PolicyPtr policy = make_policy(spec);
  c.result = simulate(w, *policy, {}, &c.checker);
  c.violations = c.checker.check(c.result, true);
  return c;
}

// EASY: a withdrawn record at the head of the queue holds the reservation
// (t=100, when job 1 ends) until its cancel at t=50; job 3 (4 units for
// 200 s) fits the 4 free units but would delay that reservation, so it waits
// until the cancel and starts at 50, not at 100.
TEST(CancelEvent, WithdrawnHeadHoldsEasyReservationUntilItsCancelTime) {
  const Workload w = workload(10, {job(1, 0, 6, 100), withdrawn(2, 1, 10, 500, 49), job(3, 2, 4, 200)});
  const CheckedRun c = run_checked(w, "easy");
  EXPECT_TRUE(c.violations.empty()) << c.violations.front();
  EXPECT_EQ(c.checker.first_promises().at(2), 100);
  EXPECT_EQ(outcome(c.result, 1).start, 0);
  EXPECT_EQ(outcome(c.result, 2).start, -1);
  EXPECT_EQ(outcome(c.result, 2).end, -1);
  EXPECT_EQ(outcome(c.result, 3).start, 50);
  EXPECT_EQ(outcome(c.result, 3).end, 250);

  // The same record without its cancel (--cancelled=keep): job 3 waits for it.
  Workload kept = w;
  kept.jobs[1].cancel_lag = -1;
  const SimResult k = test::run(kept, "easy");
  EXPECT_EQ(outcome(k, 2).start, 100);
  EXPECT_EQ(outcome(k, 3).start, 100);

  // The per-job metrics cover jobs 1 and 3 only; the record is counted apart.
  const Summary s = summarize(c.result, 10);
  EXPECT_EQ(s.jobs, 2u);
  EXPECT_EQ(s.withdrawn_waiting, 1u);
  EXPECT_EQ(s.withdrawn_started, 0u);
  EXPECT_DOUBLE_EQ(s.mean_wait, (0.0 + 48.0) / 2);
  EXPECT_EQ(job_metrics(c.result, 10).size(), 2u);
}

// Conservative: the withdrawal frees the record's reservation and the
// compression that follows moves job 3 from t=200 to t=100 (job 1 ends at its
// estimate, so no early completion compresses the schedule instead).
TEST(CancelEvent, ConservativeCompressesAfterAWithdrawal) {
  const Workload w = workload(10, {job(1, 0, 10, 100), withdrawn(2, 1, 10, 100, 49), job(3, 2, 10, 100)});
  const CheckedRun c = run_checked(w, "conservative");
  EXPECT_TRUE(c.violations.empty()) << c.violations.front();
  EXPECT_EQ(c.checker.first_promises().at(3), 200);
  EXPECT_EQ(outcome(c.result, 2).start, -1);
  EXPECT_EQ(outcome(c.result, 3).start, 100);
}

// The policy starts the record before its cancel time: the user's cancel
// still comes at submit + lag and cuts it there (t=300); job 2, waiting for
// the record's units, starts then. A record whose estimate comes first is
// killed at its estimate (job 3: t=10 + 100).
TEST(CancelEvent, StartedRecordIsCutAtItsCancelTime) {
  const Workload w = workload(
      10, {withdrawn(1, 0, 4, 1000, 300), job(2, 0, 8, 100), withdrawn(3, 10, 2, 100, 500), job(4, 20, 4, 50)});
  const CheckedRun c = run_checked(w, "easy");
  EXPECT_TRUE(c.violations.empty()) << c.violations.front();
  const JobOutcome& cut = outcome(c.result, 1);
  EXPECT_EQ(cut.start, 0);
  EXPECT_EQ(cut.end, 300);
  EXPECT_EQ(cut.executed, 300);
  EXPECT_TRUE(cut.cut);
  EXPECT_FALSE(cut.killed);
  EXPECT_EQ(outcome(c.result, 2).start, 300);
  const JobOutcome& killed = outcome(c.result, 3);
  EXPECT_EQ(killed.start, 10);
  EXPECT_EQ(killed.end, 110);
  EXPECT_TRUE(killed.killed);
  EXPECT_FALSE(killed.cut);

  const Summary s = summarize(c.result, 10);
  EXPECT_EQ(s.jobs, 2u);
  EXPECT_EQ(s.withdrawn_waiting, 0u);
  EXPECT_EQ(s.withdrawn_started, 2u);
  EXPECT_EQ(s.withdrawn_cut, 1u);
  EXPECT_EQ(s.killed, 0u);  // of the jobs the metrics cover
  // Utilization counts the units the records held: 4 x 300 + 2 x 100 of the
  // 8 x 100 + 4 x 50 + ... work.
  const double work = 4.0 * 300 + 8.0 * 100 + 2.0 * 100 + 4.0 * 50;
  EXPECT_DOUBLE_EQ(s.utilization, work / (s.makespan * 10));
}

// A record withdrawn at its submission (wait 0) never reaches the policy.
TEST(CancelEvent, ZeroLagRecordNeverReachesThePolicy) {
  const Workload w = workload(10, {withdrawn(1, 0, 4, 100, 0), job(2, 0, 10, 100)});
  const CheckedRun c = run_checked(w, "easy");
  EXPECT_TRUE(c.violations.empty()) << c.violations.front();
  EXPECT_EQ(outcome(c.result, 1).start, -1);
  EXPECT_EQ(outcome(c.result, 2).start, 0);
}

// A suspended record ends at its cancel time without giving back units it
// does not hold: a scripted policy starts it, suspends it at t=10 and starts
// the other job on the whole machine.
TEST(CancelEvent, SuspendedRecordEndsAtItsCancelTime) {
  class Scripted final : public Policy {
   public:
    std::string name() const override { return "scripted"; }
    StepResult step(const Snapshot& s) override {
      StepResult r;
      if (s.now == 0) r.decisions.push_back(Decision::start(1));
      if (s.now == 0) r.wakeup = 10;
      if (s.now == 10) {
        r.decisions.push_back(Decision::suspend(1));
        r.decisions.push_back(Decision::start(2));
      }
      for (const SnapshotEvent& e : s.events) kinds.push_back(e.kind);
      free_after_cancel = s.now == 40 ? s.free_units : free_after_cancel;
      return r;
    }
    std::vector<SnapshotEvent::Kind> kinds;
    int free_after_cancel = -1;
  };
  const Workload w = workload(10, {withdrawn(1, 0, 10, 1000, 40), job(2, 5, 10, 100)});
  Scripted policy;
  const SimResult r = simulate(w, policy);
  EXPECT_EQ(outcome(r, 1).end, 40);
  EXPECT_EQ(outcome(r, 1).executed, 10);
  EXPECT_TRUE(outcome(r, 1).cut);
  EXPECT_EQ(policy.free_after_cancel, 0);  // job 2 still holds the machine
  EXPECT_EQ(policy.kinds.back(), SnapshotEvent::Kind::Ended);
  EXPECT_EQ(outcome(r, 2).end, 110);
}

// The gang family: job 2 is admitted to row 1 at t=1 (it waits for that
// row's slice at t=100) and withdrawn at t=50 (scancel of a pending job
// live). It leaves the matrix: never started, and job 3 (arriving at 60)
// takes row 1 instead. Before the fix the policy still started job 2 at its
// row's slice ("start of a job that is not waiting").
TEST(CancelEvent, GangFamilyDropsAnAdmittedJobWithdrawnBeforeItsSlice) {
  const Workload w =
      workload(10, {job(1, 0, 10, 1000, 1000), withdrawn(2, 1, 10, 1000, 49), job(3, 60, 10, 300, 300)});
  for (const char* spec : {"gang:mpl=2:slice=100", "bgs:mpl=2:slice=100", "bgs:mpl=2:slice=100:plan=rebuild",
                           "mgs:mpl=2:slice=100", "mbgs:mpl=2:slice=100"}) {
    SCOPED_TRACE(spec);
    const CheckedRun c = run_checked(w, spec);
    EXPECT_TRUE(c.violations.empty()) << c.violations.front();
    EXPECT_EQ(outcome(c.result, 2).start, -1);
    EXPECT_EQ(outcome(c.result, 1).start, 0);
    // Job 3 runs in row 1 from its first slice on, sharing the machine
    // with job 1 slice by slice.
    EXPECT_GE(outcome(c.result, 3).start, 60);
    EXPECT_LE(outcome(c.result, 3).start, 200);
    EXPECT_EQ(outcome(c.result, 3).executed, 300);
  }
}

// Every policy on the first 8,000 jobs of SDSC-SP2 with its 400-odd
// withdrawn records among them: the schedules pass the invariant checker
// (gang, bgs, mgs, mbgs and pect-search used to start withdrawn jobs).
TEST(CancelEvent, EveryPolicyKeepsItsSchedulesSoundWithWithdrawnRecordsOnSdscSp2) {
  const std::string path = test::shared_trace("SDSC-SP2-1998-4.2-cln.swf.gz");
  if (path.empty()) GTEST_SKIP() << "shared trace absent";
  SwfReadOptions read;
  read.cancelled = CancelledRecords::Withdraw;
  Workload w = read_swf(path, read);
  if (w.jobs.size() > 8000) w.jobs.resize(8000);
  std::size_t withdrawn_records = 0;
  for (const Job& j : w.jobs) withdrawn_records += j.cancel_lag >= 0;
  ASSERT_GT(withdrawn_records, 0u);
  for (const PolicyInfo& info : policy_catalog()) {
    SCOPED_TRACE(info.name);
    const CheckedRun c = run_checked(w, info.name);
    EXPECT_TRUE(c.violations.empty()) << c.violations.front();
    const Summary s = summarize(c.result, 10);
    EXPECT_EQ(s.jobs + s.withdrawn_waiting + s.withdrawn_started, w.jobs.size());
  }
}

}  // namespace
}  // namespace los
