// The event-driven simulator behind los-sim.
//
// Events: arrivals (from the workload), completions, and policy wake-ups (a
// policy asks for one to end a time slice). All events at one instant are
// processed first, in the order completions, arrivals, wake-ups; then the
// policy takes one step and its decisions are applied in order.
//
// A running job has remaining work, not only an end time: it progresses at
// rate 1 while executing, first paying off any overhead charged to it
// (context switch, migration), and stops progressing while suspended. So the
// same loop runs space-sharing policies (start only) and time-sharing ones
// (start, suspend, resume). With kill_at_estimate (the default) a job's work
// is min(run time, estimate): its limit counts execution time.
//
// A job with a cancel lag (Job::cancel_lag, a trace record cancelled before
// it ran, read with los-sim --cancelled=withdraw) is withdrawn by its user at
// submit + lag, whatever the policy did: still waiting, it leaves the queue
// (the policy sees a Withdrawn event, as for a live scancel); started, it
// ends then (an Ended event), unless its estimate ended it first. Its work is
// its estimate: its run time is unknown (it never ran).
//
// The simulator checks every decision against the machine: a start or resume
// beyond the free units, or of a job in the wrong state, is a policy bug and
// throws SimulationError naming the policy, time and job.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "policy/policy.hpp"
#include "workload/swf.hpp"

namespace los {

class SimulationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SimOptions {
  bool kill_at_estimate = true;
  // Called now and then with the fraction of arrivals processed.
  std::function<void(double)> progress;
  // Called as each job is submitted, before it joins the queue: it may
  // change the job's size, estimate and run time (a moldable job choosing
  // its shape, e.g. with SA), never its id or submit time. The snapshot and
  // policy are as of the submission instant: when anything happened at that
  // instant that the policy has not seen yet (completions, earlier arrivals),
  // the policy takes a step first. Unset (the default), the simulation is
  // exactly as without the hook.
  std::function<void(Job&, const Snapshot&, const Policy&)> on_submit;
  // Test seam for resync (losd after a restart, a policy switch, a lost
  // message). Before step k (0-based, counted as SimResult::steps) for each k
  // listed, ascending, the events since the previous step are dropped: with
  // on_resync set, the step and the rest of the run go to the policy it
  // returns (a fresh instance the caller owns), prepared by
  // begin_from_snapshot as losd prepares a new instance; unset, the same
  // policy gets the snapshot marked resync (mark_resync). Empty (the
  // default): the simulation is exactly as without the seam.
  std::vector<std::size_t> resync_steps;
  std::function<Policy&()> on_resync;
};

// What happened to one job.
struct JobOutcome {
  Job job;
  Time start = -1;  // first start
  Time end = -1;
  Time executed = 0;    // dedicated run time actually done
  bool killed = false;  // stopped at its estimate
  bool cut = false;     // a withdrawn record that was running: ended by its user's cancel
  int suspensions = 0;

  // A record its user withdrew (Job::cancel_lag): not a job of the workload
  // for the per-job metrics (it never ran in reality). It waited until its
  // cancel time when start < 0; else it ran from start to end.
  bool withdrawn() const { return job.cancel_lag >= 0; }

  Time wait() const { return start - job.submit; }
  Time response() const { return end - job.submit; }
};

struct SimResult {
  std::string policy;
  std::string workload;
  int units = 0;
  std::size_t dropped = 0;       // jobs the workload's cleaning dropped
  std::vector<JobOutcome> jobs;  // in workload order
  // Integrals over simulated time, in unit-seconds.
  double idle_while_waiting = 0;  // free units while some job waits (loss of capacity)
  double overhead = 0;            // units executing but paying overhead
  // Units executing but paying overhead while some job waits: with
  // idle_while_waiting, the loss of capacity of time sharing (a job the
  // policy has admitted to its matrix does not count as waiting).
  double overhead_while_waiting = 0;
  std::size_t steps = 0;
  double queue_length_sum = 0;  // summed over steps (mean queue = sum / steps)
  std::size_t suspensions = 0;
  double wall_seconds = 0;
};

// Sees every step: the invariant checker and tests hook in here.
class SimObserver {
 public:
  virtual ~SimObserver() = default;
  virtual void after_step(const Snapshot& snapshot, const StepResult& result, const Policy& policy) = 0;
};

SimResult simulate(const Workload& workload, Policy& policy, const SimOptions& options = {},
                   SimObserver* observer = nullptr);

}  // namespace los
