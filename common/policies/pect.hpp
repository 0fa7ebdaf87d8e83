// SCOJO-PECT: coarse-grain preemptive time sharing with per-class machine
// shares (Esbaugh and Sodan, HPCC 2007, as described by the thesis of seed
// 003; the implementer's spec is ../shared/specs/pect-search.md, cited as
// §x.y). `pect-search` (policies/pect_search.hpp) adds the thesis's grouped
// bi-level search on top of this policy.
//
// How it works:
//   - Classes by the runtime estimate at submission (the thesis uses exact
//     run times; los-sim gives them with exact estimates): SHORT if
//     estimate < short_limit (600 s), MEDIUM if <= long_limit (10 800 s),
//     LONG otherwise (§1.2 [D], ambiguity #1: 600 s, not 60 s; no 8 h cap).
//   - Slices cycle MEDIUM -> LONG -> SHORT (§1.3 [T?]). The medium slice is
//     `medium_slice` s (3600), the long slice medium_slice x long_share /
//     medium_share (73 / 26.5 -> 9917 s), the short slice `short_slice` s
//     (600); §8.2 [D], ambiguity #13.
//   - Slice end: every executing job is suspended (it keeps its nodes), then
//     a switch gap of `switch` s (60) during which nothing executes (§1.3
//     rule 1 [D]: machine-wide idle time, not a per-job stall, so
//     SimResult::overhead stays 0 and the cost shows as lost capacity).
//     Slice begin: every preempted job of the class resumes on its nodes.
//   - New jobs take the lowest-numbered free nodes not bound to a started,
//     unfinished job of their own class (§1.3 rule 4), so the node sets of
//     one class are pairwise disjoint and a class's preempted jobs can always
//     resume together at its slice begin.
//   - In a slice of class c: waiting jobs of c in FIFO order until the first
//     that does not fit, then EASY backfilling within c (the head's shadow
//     time from the remaining estimates of executing jobs; a job of another
//     class releases its nodes at the slice end at the latest), §6.1.
//   - Smart backfilling (§6.2): preempted jobs of the other classes (short,
//     medium, long queues in that order, FIFO), then their waiting jobs, start
//     or resume when their nodes are free and they do not delay the head of c
//     (they end by the shadow time, counting the slice end as their end, or
//     fit in the extra nodes). They run until the slice ends or they finish.
//   - Dynamic backfilling on submission (§6.3) needs no separate step here:
//     every arrival runs a full pass, which smart-backfills the new job.
//   - Empty slices are skipped at no cost (SKIP_EMPTY_SLICES, §1.3 [D]); with
//     skip_empty a slice also ends as soon as its class has no job left
//     (waiting or started) while another class has work [our reading: an
//     empty slice mid-way is skipped like an empty one at its start]. When
//     only the current class has work, a slice that ends is followed by
//     another of the same class, without a switch.
//
// Resync (snapshot.resync: a losd restart, `losctl set-policy`, a lost
// message) rebuilds the whole state from the snapshot alone; nothing of the
// previous state is kept:
//   - every running job (executing or suspended) is tracked again, its class
//     from its estimate, bound to its nodes (RunningJob::nodes; a job without
//     a valid list takes the lowest nodes free for its class); its work done
//     is unknown, so its whole estimate counts as remaining;
//   - executing jobs keep executing, in order of (first start, id); one whose
//     nodes another executing job already holds is suspended at this step
//     and resumes, like any preempted job of its class, when its nodes are
//     free in a slice of its class (jobs of one class sharing nodes after a
//     resync wait for each other instead of resuming together);
//   - the active slice is the class executing on the most nodes (ties:
//     MEDIUM, LONG, SHORT), with a full slice from the snapshot's time; the
//     other classes' executing jobs stay, as smart-backfilled ones, until
//     it ends. Nothing executing: no slice is active (a switch gap in
//     progress ends: a snapshot cannot tell it from an idle machine) and the
//     next slice, from MEDIUM in cycle order, begins at once;
//   - then the step runs as any other (its slice's pass over the queue).
// Without resync the state follows the events, as in simulation.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "policy/policy.hpp"

namespace los {

enum class PectClass : std::uint8_t { Short = 0, Medium = 1, Long = 2 };
const char* pect_class_name(PectClass c);

struct PectOptions {
  Time short_limit = 600;      // estimate < this: SHORT
  Time long_limit = 10800;     // estimate > this: LONG
  Time medium_slice = 3600;    // seconds
  double long_share = 73;      // % of machine time
  double medium_share = 26.5;  // % of machine time
  Time short_slice = 600;      // seconds
  Time switch_cost = 60;       // idle gap between slices of different classes
  bool skip_empty = true;      // slices of classes without work are skipped
  bool smart = true;           // smart backfilling of other classes' jobs
  bool easy = true;            // EASY backfilling within the current class

  PectClass classify(Time estimate) const;
  Time long_slice() const;
  Time slice_of(PectClass c) const;
};

class PectPolicy : public Policy {
 public:
  PectPolicy(PectOptions options, std::string label);

  std::string name() const override { return label_; }
  // One started job of each class per node at most (each class's node sets
  // are disjoint): three per node, executing or suspended.
  Capabilities capabilities() const override { return {.resync = true, .time_sharing = true, .jobs_per_node = 3}; }
  StepResult step(const Snapshot& snapshot) override;

  const PectOptions& options() const { return options_; }

  // Introspection for tests and reports.
  enum class Phase : std::uint8_t { None, Slice, Gap };
  Phase phase() const { return phase_; }
  PectClass current() const { return current_; }
  long long slices_begun() const { return slices_; }
  long long switches() const { return switches_; }
  // Seconds each class's slices have lasted (gaps excluded).
  const std::array<Time, 3>& slice_seconds() const { return slice_seconds_; }

 protected:
  struct Tracked {
    PectClass cls;
    int size;
    Time estimate;
    std::vector<int> nodes;
    bool executing = false;
    Time since = 0;  // executing since
    Time done = 0;   // work done before `since`
  };

  Time remaining(const Tracked& t, Time now) const;
  bool class_has_work(PectClass c, const std::array<std::vector<const Job*>, 3>& waiting) const;

  using Waiting = std::array<std::vector<const Job*>, 3>;  // never-started jobs per class, queue order

  void init(const Snapshot& s);
  // Checks the snapshot and applies its completions, or rebuilds the state
  // from a resync snapshot.
  void begin_step(const Snapshot& s);
  void resync(const Snapshot& s);
  // The suspensions a resync needs (jobs found executing on shared nodes).
  void resync_decisions(std::vector<Decision>& out);
  Waiting classify_queue(const Snapshot& s) const;

  // Node bookkeeping. A node is eligible for class c when no job executes on
  // it and no started job of class c is bound to it.
  std::vector<int> free_nodes_for(PectClass c, int size) const;
  int free_count_for(PectClass c) const;
  bool nodes_free(const std::vector<int>& nodes) const;
  void occupy(const std::vector<int>& nodes, JobId id);
  void vacate(const std::vector<int>& nodes);
  void start(const Job& j, PectClass c, std::vector<int> nodes, Time now, std::vector<Decision>& out);
  void resume(JobId id, Time now, std::vector<Decision>& out);
  void suspend(JobId id, Time now, std::vector<Decision>& out);
  void release(JobId id);
  // Started jobs of class c, executing or preempted, by id.
  std::vector<JobId> started_of(PectClass c, bool executing) const;

  // Slice ends, gaps and begins due at `now` (suspends and resumes).
  void transitions(const Waiting& waiting, Time now, std::vector<Decision>& out);
  void begin_slice(PectClass c, Time now, std::vector<Decision>& out);
  // One scheduling pass in a slice of current_.
  void schedule_pass(const Waiting& waiting, Time now, std::vector<Decision>& out);

  PectOptions options_;
  std::string label_;
  int units_ = 0;
  std::vector<JobId> busy_;                  // per node: executing job or 0
  std::array<std::vector<JobId>, 3> bound_;  // per class, per node: started job of that class bound to it, or 0
  std::unordered_map<JobId, Tracked> jobs_;  // started, unfinished jobs
  std::array<int, 3> eligible_{};            // eligible nodes per class
  std::array<int, 3> tracked_{};             // started, unfinished jobs per class

  Phase phase_ = Phase::None;
  PectClass current_ = PectClass::Medium;
  PectClass next_ = PectClass::Medium;  // the class a gap leads to
  Time phase_end_ = kTimeInfinity;
  Time slice_begin_ = 0;
  long long slices_ = 0;
  long long switches_ = 0;
  std::array<Time, 3> slice_seconds_{};
  std::vector<JobId> resync_suspend_;  // see resync_decisions
  bool resynced_ = false;              // a resync happened (nodes of one class may be shared)
};

const ParamTable& pect_parameters();
PectOptions pect_options(const ParamValues& values);
PolicyPtr make_pect(const ParamValues& values, RunMode mode);

}  // namespace los
