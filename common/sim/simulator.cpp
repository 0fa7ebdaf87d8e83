#include "sim/simulator.hpp"

#include <algorithm>
#include <chrono>
#include <queue>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "workload/transform.hpp"

namespace los {
namespace {

enum class State : std::uint8_t { Future, Queued, Executing, Suspended, Done };

// The latest simulated time: 2^10 durations of kTimeMax below kTimeInfinity.
constexpr Time kClockLimit = kTimeInfinity / 2;
static_assert(kClockLimit + 1024 * kTimeMax <= kTimeInfinity);

struct JobState {
  State state = State::Future;
  Time remaining = 0;           // dedicated work still to do
  Time stall = 0;               // overhead to pay before progressing
  Time resumed_at = 0;          // when it last started executing
  std::uint32_t version = 0;    // invalidates a scheduled completion
  std::int32_t run_index = -1;  // position in snapshot.running
};

struct Event {
  Time time;
  std::uint8_t kind;  // 0 completion, 1 cancel (Job::cancel_lag), 2 wake-up: in this order at one instant
  std::uint64_t seq;
  std::uint32_t job;
  std::uint32_t version;
  bool operator>(const Event& o) const {
    if (time != o.time) return time > o.time;
    if (kind != o.kind) return kind > o.kind;
    return seq > o.seq;
  }
};

class Engine {
 public:
  Engine(const Workload& w, Policy& policy, const SimOptions& options, SimObserver* observer)
      : w_(w), jobs_(w.jobs), policy_(&policy), options_(options), observer_(observer), state_(w.jobs.size()) {
    result_.policy = policy.name();
    result_.workload = w.source;
    result_.units = w.units;
    result_.dropped = w.cleaning.dropped();
    result_.jobs.resize(w.jobs.size());
    index_.reserve(w.jobs.size());
    for (std::size_t i = 0; i < w.jobs.size(); ++i) {
      result_.jobs[i].job = w.jobs[i];
      if (!index_.emplace(w.jobs[i].id, static_cast<std::uint32_t>(i)).second) {
        throw SimulationError(w.source + ": job " + std::to_string(w.jobs[i].id) + " appears twice");
      }
      if (w.jobs[i].size <= 0 || w.jobs[i].size > w.units) {
        throw SimulationError(w.source + ": job " + std::to_string(w.jobs[i].id) + " has size " +
                              std::to_string(w.jobs[i].size) + " outside [1, " + std::to_string(w.units) + "]");
      }
    }
    snap_.total_units = w.units;
    snap_.free_units = w.units;
  }

  SimResult run() {
    const auto wall0 = std::chrono::steady_clock::now();
    const std::size_t n = w_.jobs.size();
    std::size_t next_arrival = 0;
    Time last = n ? w_.jobs.front().submit : 0;
    std::uint64_t loops = 0;
    while (next_arrival < n || !events_.empty()) {
      Time t = kTimeInfinity;
      if (next_arrival < n) t = w_.jobs[next_arrival].submit;
      if (!events_.empty()) t = std::min(t, events_.top().time);
      // Each input time is at most kTimeMax, but enough of them in a row
      // carry the clock towards the planner's infinity, where a real time
      // and "never" blur and the policies loop: stop with a reason instead.
      if (t > kClockLimit) {
        throw SimulationError(w_.source + ": the simulated clock passed 2^60 s (" + std::to_string(kClockLimit) +
                              "): the workload's times and run times add up beyond what the policies can plan");
      }
      integrate(last, t);
      last = t;
      snap_.now = t;

      while (!events_.empty() && events_.top().time == t) {
        const Event e = events_.top();
        events_.pop();
        if (e.kind == 0) {
          if (state_[e.job].state == State::Executing && state_[e.job].version == e.version) {
            complete(e.job, t);
            unseen_ = true;
          }
        } else if (e.kind == 1) {
          cancel(e.job, t);
          unseen_ = true;
        } else if (e.version == wake_version_) {
          unseen_ = true;
        }
      }
      while (next_arrival < n && w_.jobs[next_arrival].submit == t) {
        arrive(static_cast<std::uint32_t>(next_arrival++));
        unseen_ = true;
      }
      if (unseen_) schedule();
      if (options_.progress && (++loops & 0x1fff) == 0) options_.progress(static_cast<double>(next_arrival) / n);
    }
    if (!snap_.queue.empty()) {
      throw SimulationError("policy " + policy_->name() + " left " + std::to_string(snap_.queue.size()) +
                            " jobs waiting (first: job " + std::to_string(std::as_const(snap_.queue).front().id) +
                            ") with nothing running and nothing to come: it would never start them");
    }
    if (!snap_.running.empty()) {
      throw SimulationError("policy " + policy_->name() + " left " + std::to_string(snap_.running.size()) +
                            " jobs suspended at the end of the simulation");
    }
    result_.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    if (options_.progress) options_.progress(1.0);
    return std::move(result_);
  }

 private:
  void integrate(Time from, Time to) {
    if (to <= from || snap_.queue.size() <= admitted_) return;
    result_.idle_while_waiting += static_cast<double>(snap_.free_units) * static_cast<double>(to - from);
    if (stalled_ == 0) return;
    // Executing jobs still paying overhead in [from, to).
    for (const RunningJob& r : snap_.running) {
      if (r.suspended) continue;
      const JobState& s = state_[index_.at(r.job.id)];
      if (s.stall <= 0) continue;
      const Time paid_until = std::min(to, s.resumed_at + s.stall);
      if (paid_until > from) {
        result_.overhead_while_waiting += static_cast<double>(r.job.size) * static_cast<double>(paid_until - from);
      }
    }
  }

  std::string who(JobId id) const {
    return "policy " + policy_->name() + " at t=" + std::to_string(snap_.now) + ", job " + std::to_string(id);
  }

  // The work a job asks for. A withdrawn record never ran, so its run time
  // is unknown: started, it would run until its estimate (or its cancel).
  Time work_of(const Job& j) const {
    return j.cancel_lag >= 0 ? j.estimate : effective_runtime(j, options_.kill_at_estimate);
  }

  void arrive(std::uint32_t i) {
    if (options_.on_submit) submit_hook(i);
    const Job& j = jobs_[i];
    JobState& s = state_[i];
    if (j.cancel_lag == 0) {  // withdrawn at its submission: the policy never sees it
      s.state = State::Done;
      return;
    }
    if (j.cancel_lag > 0) events_.push({j.submit + j.cancel_lag, 1, seq_++, i, 0});
    s.state = State::Queued;
    s.remaining = work_of(j);
    if (snap_.queue.empty()) {
      queue_by_submit_ = true;
    } else if (j.submit < std::as_const(snap_.queue).back().submit) {
      queue_by_submit_ = false;
    }
    snap_.queue.push_back(j);
    snap_.events.push_back({SnapshotEvent::Kind::Arrived, j.id, j.size, 0, j.estimate});
  }

  // The submission hook sees the policy's state as of now: if anything
  // happened at this instant that the policy has not yet seen (completions,
  // earlier arrivals), it steps first. The job may come back reshaped.
  void submit_hook(std::uint32_t i) {
    if (unseen_) schedule();
    Job& j = jobs_[i];
    const Job before = j;
    options_.on_submit(j, snap_, *policy_);
    const std::string what = w_.source + ": on_submit of job " + std::to_string(before.id);
    if (j.id != before.id || j.submit != before.submit) {
      throw SimulationError(what + ": the hook may not change the job's id or submit time");
    }
    if (j.size <= 0 || j.size > w_.units) {
      throw SimulationError(what + ": size " + std::to_string(j.size) + " outside [1, " + std::to_string(w_.units) +
                            "]");
    }
    if (j.estimate < 0 || j.runtime < 0) {
      throw SimulationError(what + ": negative estimate or run time");
    }
    result_.jobs[i].job = j;
  }

  void schedule_completion(std::uint32_t i) {
    JobState& s = state_[i];
    ++s.version;
    events_.push({s.resumed_at + s.stall + s.remaining, 0, seq_++, i, s.version});
  }

  // Progress of an executing job up to now: overhead first, then work.
  void account_progress(std::uint32_t i) {
    JobState& s = state_[i];
    Time elapsed = snap_.now - s.resumed_at;
    const Time paid = std::min(elapsed, s.stall);
    s.stall -= paid;
    elapsed -= paid;
    s.remaining -= std::min(elapsed, s.remaining);
    s.resumed_at = snap_.now;
  }

  void add_running(std::uint32_t i, Time start) {
    state_[i].run_index = static_cast<std::int32_t>(snap_.running.size());
    RunningJob r;
    r.job = jobs_[i];
    r.start = start;
    snap_.running.push_back(std::move(r));
  }

  void remove_running(std::uint32_t i) {
    const std::int32_t at = state_[i].run_index;
    if (at != static_cast<std::int32_t>(snap_.running.size()) - 1) {
      snap_.running[at] = std::move(snap_.running.back());
      state_[index_.at(snap_.running[at].job.id)].run_index = at;
    }
    snap_.running.pop_back();
    state_[i].run_index = -1;
  }

  // A running job (executing or suspended) ends at t: the units it holds
  // come back and the policy sees it end.
  void end_running(std::uint32_t i, Time t) {
    JobState& s = state_[i];
    const Job& j = jobs_[i];
    if (s.state == State::Executing) snap_.free_units += j.size;
    s.state = State::Done;
    result_.jobs[i].end = t;
    const RunningJob& r = snap_.running[s.run_index];
    snap_.events.push_back({SnapshotEvent::Kind::Ended, j.id, j.size, r.start, j.estimate});
    remove_running(i);
  }

  void complete(std::uint32_t i, Time t) {
    JobOutcome& o = result_.jobs[i];
    const Job& j = jobs_[i];
    o.executed = work_of(j);
    // A withdrawn record that reaches its estimate before its cancel time
    // is killed there (it asked for more than its limit, or would have).
    o.killed = j.cancel_lag >= 0 ? options_.kill_at_estimate : o.executed < j.runtime;
    end_running(i, t);
  }

  // Where waiting job i stands in the queue, or the queue's size if it is
  // not there. While the queue is in submit order, a binary search on its
  // submit time and a look at the jobs that share it; else a scan.
  std::size_t queue_position(std::uint32_t i) const {
    const JobQueue& queue = snap_.queue;  // read through const: its sizes stay known
    auto first = queue.begin(), last = queue.end();
    if (queue_by_submit_) {
      const auto by_submit = [](const Job& a, const Job& b) { return a.submit < b.submit; };
      std::tie(first, last) = std::equal_range(queue.begin(), queue.end(), jobs_[i], by_submit);
    }
    const JobId id = jobs_[i].id;
    const auto it = std::find_if(first, last, [id](const Job& q) { return q.id == id; });
    return it == last ? queue.size() : static_cast<std::size_t>(it - queue.begin());
  }

  // The user's cancel of a withdrawn record (Job::cancel_lag) at t: waiting,
  // it leaves the queue as a live scancel takes it; running (executing or
  // suspended), it ends here. Ended already (at its estimate): nothing.
  void cancel(std::uint32_t i, Time t) {
    JobState& s = state_[i];
    const Job& j = jobs_[i];
    if (s.state == State::Queued) {
      const std::size_t at = queue_position(i);
      if (at == snap_.queue.size()) throw SimulationError(who(j.id) + ": a waiting job missing from the queue");
      snap_.queue.erase(std::as_const(snap_.queue).begin() + at);
      s.state = State::Done;
      snap_.events.push_back({SnapshotEvent::Kind::Withdrawn, j.id, j.size, 0, j.estimate});
      return;
    }
    if (s.state != State::Executing && s.state != State::Suspended) return;
    JobOutcome& o = result_.jobs[i];
    if (s.state == State::Executing) account_progress(i);
    ++s.version;  // its completion is off
    o.executed = work_of(j) - s.remaining;
    o.cut = true;
    end_running(i, t);
  }

  void schedule() {
    unseen_ = false;
    resync_seam();
    const StepResult step = policy_->step(snap_);
    ++result_.steps;
    result_.queue_length_sum += static_cast<double>(snap_.queue.size());
    if (observer_) observer_->after_step(snap_, step, *policy_);
    snap_.resync = false;
    snap_.events.clear();

    started_.clear();
    for (const Decision& d : step.decisions) {
      const auto it = index_.find(d.job);
      if (it == index_.end()) throw SimulationError(who(d.job) + ": no such job");
      const std::uint32_t i = it->second;
      JobState& s = state_[i];
      const Job& j = jobs_[i];
      switch (d.kind) {
        case Decision::Kind::Start: {
          if (s.state != State::Queued) throw SimulationError(who(d.job) + ": start of a job that is not waiting");
          if (j.size > snap_.free_units) {
            throw SimulationError(who(d.job) + ": start needs " + std::to_string(j.size) + " units but only " +
                                  std::to_string(snap_.free_units) + " are free");
          }
          snap_.free_units -= j.size;
          s.state = State::Executing;
          s.resumed_at = snap_.now;
          s.stall = d.overhead;
          if (d.overhead > 0) ++stalled_;
          result_.overhead += static_cast<double>(j.size) * static_cast<double>(d.overhead);
          result_.jobs[i].start = snap_.now;
          add_running(i, snap_.now);
          if (!d.nodes.empty()) snap_.running.back().nodes = d.nodes;
          schedule_completion(i);
          snap_.events.push_back({SnapshotEvent::Kind::Started, j.id, j.size, snap_.now, j.estimate});
          started_.push_back(j.id);
          break;
        }
        case Decision::Kind::Suspend: {
          if (s.state != State::Executing)
            throw SimulationError(who(d.job) + ": suspend of a job that is not executing");
          account_progress(i);
          ++s.version;  // its completion is off
          s.state = State::Suspended;
          snap_.free_units += j.size;
          snap_.running[s.run_index].suspended = true;
          ++result_.jobs[i].suspensions;
          ++result_.suspensions;
          snap_.events.push_back({SnapshotEvent::Kind::Suspended, j.id, j.size, result_.jobs[i].start, j.estimate});
          break;
        }
        case Decision::Kind::Resume: {
          if (s.state != State::Suspended)
            throw SimulationError(who(d.job) + ": resume of a job that is not suspended");
          if (j.size > snap_.free_units) {
            throw SimulationError(who(d.job) + ": resume needs " + std::to_string(j.size) + " units but only " +
                                  std::to_string(snap_.free_units) + " are free");
          }
          snap_.free_units -= j.size;
          s.state = State::Executing;
          s.resumed_at = snap_.now;
          s.stall += d.overhead;
          if (d.overhead > 0) ++stalled_;
          result_.overhead += static_cast<double>(j.size) * static_cast<double>(d.overhead);
          RunningJob& r = snap_.running[s.run_index];
          r.suspended = false;
          if (!d.nodes.empty()) r.nodes = d.nodes;
          schedule_completion(i);
          snap_.events.push_back({SnapshotEvent::Kind::Resumed, j.id, j.size, r.start, j.estimate});
          break;
        }
        case Decision::Kind::Requeue: {
          if (s.state != State::Executing && s.state != State::Suspended) {
            throw SimulationError(who(d.job) + ": requeue of a job that is not running");
          }
          if (s.state == State::Executing) snap_.free_units += j.size;
          ++s.version;
          const RunningJob& r = snap_.running[s.run_index];
          snap_.events.push_back({SnapshotEvent::Kind::Ended, j.id, j.size, r.start, j.estimate});
          remove_running(i);
          s.state = State::Queued;
          s.stall = 0;
          s.remaining = work_of(j);
          result_.jobs[i].start = -1;
          // Back in the queue at its place by submit time.
          // (Read through const: the queue's sizes stay known, JobQueue.)
          const JobQueue& queue = snap_.queue;
          const auto pos = std::upper_bound(queue.begin(), queue.end(), j,
                                            [](const Job& a, const Job& b) { return a.submit < b.submit; });
          snap_.queue.insert(pos, j);
          snap_.events.push_back({SnapshotEvent::Kind::Arrived, j.id, j.size, 0, j.estimate});
          break;
        }
      }
    }
    if (!started_.empty()) remove_started();
    admitted_ = std::min(step.admitted, snap_.queue.size());
    if (step.wakeup < kTimeInfinity && step.wakeup > snap_.now) {
      ++wake_version_;
      events_.push({step.wakeup, 2, seq_++, 0, wake_version_});
    }
  }

  // Only a job started in this step left the queue (one requeued in it is
  // queued again, and then also stays where it was). While the queue is in
  // submit order, each started job is found by a binary search on its submit
  // time and the jobs that share it, and the queue closes up around the found
  // positions only (JobQueue::erase_positions): no pass over the queue.
  void remove_started() {
    if (!queue_by_submit_) {
      std::sort(started_.begin(), started_.end());
      erase_if(snap_.queue, [&](const Job& j) {
        return std::binary_search(started_.begin(), started_.end(), j.id) &&
               state_[index_.at(j.id)].state != State::Queued;
      });
      return;
    }
    started_at_.clear();
    for (const JobId id : started_) {
      const std::uint32_t i = index_.at(id);
      if (state_[i].state == State::Queued) continue;  // requeued in this step: stays
      const std::size_t at = queue_position(i);
      if (at != snap_.queue.size()) started_at_.push_back(at);
    }
    std::sort(started_at_.begin(), started_at_.end());
    started_at_.erase(std::unique(started_at_.begin(), started_at_.end()), started_at_.end());
    snap_.queue.erase_positions(started_at_);
  }

  // SimOptions::resync_steps: the events of this step are lost, as in losd
  // after a restart (a fresh policy) or a gap in the snapshots (the same one).
  void resync_seam() {
    const std::vector<std::size_t>& at = options_.resync_steps;
    bool due = false;
    while (next_resync_ < at.size() && at[next_resync_] <= result_.steps) due = at[next_resync_++] == result_.steps;
    if (!due) return;
    if (options_.on_resync) {
      policy_ = &options_.on_resync();
      begin_from_snapshot(snap_, *policy_);
    } else {
      mark_resync(snap_, *policy_);
    }
  }

  const Workload& w_;
  std::vector<Job> jobs_;  // as submitted: the workload's, after on_submit
  Policy* policy_;         // replaced only by the resync seam
  const SimOptions& options_;
  SimObserver* observer_;
  std::vector<JobState> state_;
  std::unordered_map<JobId, std::uint32_t> index_;
  std::vector<JobId> started_;           // schedule(): the jobs started in the step
  std::vector<std::size_t> started_at_;  // remove_started(): their positions in the queue
  // Every arrival came in submit order (a requeued job goes back at its place
  // by submit time), so the queue is sorted by submit: remove_started() may
  // search it. Cleared by an arrival out of order until the queue empties.
  bool queue_by_submit_ = true;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  std::uint64_t seq_ = 0;
  std::uint32_t wake_version_ = 0;
  std::size_t next_resync_ = 0;  // index into options_.resync_steps
  std::size_t admitted_ = 0;     // queued jobs the policy has admitted (time sharing)
  std::size_t stalled_ = 0;      // overhead charges so far: 0 skips the overhead integral
  bool unseen_ = false;          // something happened at this instant that the policy has not stepped on
  Snapshot snap_;
  SimResult result_;
};

}  // namespace

SimResult simulate(const Workload& workload, Policy& policy, const SimOptions& options, SimObserver* observer) {
  Engine engine(workload, policy, options, observer);
  return engine.run();
}

}  // namespace los
