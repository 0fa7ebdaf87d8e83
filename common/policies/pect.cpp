#include "policies/pect.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <tuple>

namespace los {
namespace {

// The slice cycle, §1.3: MEDIUM -> LONG -> SHORT -> MEDIUM ...
constexpr std::array<PectClass, 3> kCycle = {PectClass::Medium, PectClass::Long, PectClass::Short};
// Smart backfilling takes the other classes "by increasing runtime class".
constexpr std::array<PectClass, 3> kByRuntime = {PectClass::Short, PectClass::Medium, PectClass::Long};

std::size_t idx(PectClass c) { return static_cast<std::size_t>(c); }

PectClass after(PectClass c) {
  for (std::size_t i = 0; i < kCycle.size(); ++i) {
    if (kCycle[i] == c) return kCycle[(i + 1) % kCycle.size()];
  }
  return PectClass::Medium;
}

}  // namespace

const char* pect_class_name(PectClass c) {
  switch (c) {
    case PectClass::Short:
      return "short";
    case PectClass::Medium:
      return "medium";
    case PectClass::Long:
      return "long";
  }
  return "?";
}

PectClass PectOptions::classify(Time estimate) const {
  if (estimate < short_limit) return PectClass::Short;
  if (estimate <= long_limit) return PectClass::Medium;
  return PectClass::Long;
}

Time PectOptions::long_slice() const {
  return std::max<Time>(1,
                        static_cast<Time>(std::llround(static_cast<double>(medium_slice) * long_share / medium_share)));
}

Time PectOptions::slice_of(PectClass c) const {
  switch (c) {
    case PectClass::Short:
      return short_slice;
    case PectClass::Medium:
      return medium_slice;
    case PectClass::Long:
      return long_slice();
  }
  return medium_slice;
}

PectPolicy::PectPolicy(PectOptions options, std::string label) : options_(options), label_(std::move(label)) {}

Time PectPolicy::remaining(const Tracked& t, Time now) const {
  const Time done = t.done + (t.executing ? now - t.since : 0);
  return std::max<Time>(1, t.estimate - done);
}

bool PectPolicy::class_has_work(PectClass c, const std::array<std::vector<const Job*>, 3>& waiting) const {
  if (!waiting[idx(c)].empty()) return true;
  return tracked_[idx(c)] > 0;
}

// ---- nodes ------------------------------------------------------------------------

int PectPolicy::free_count_for(PectClass c) const { return eligible_[idx(c)]; }

std::vector<int> PectPolicy::free_nodes_for(PectClass c, int size) const {
  std::vector<int> nodes;
  nodes.reserve(static_cast<std::size_t>(size));
  const std::vector<JobId>& bound = bound_[idx(c)];
  for (int n = 0; n < units_ && static_cast<int>(nodes.size()) < size; ++n) {
    if (busy_[static_cast<std::size_t>(n)] == 0 && bound[static_cast<std::size_t>(n)] == 0) nodes.push_back(n);
  }
  return nodes;
}

bool PectPolicy::nodes_free(const std::vector<int>& nodes) const {
  return std::all_of(nodes.begin(), nodes.end(), [&](int n) { return busy_[static_cast<std::size_t>(n)] == 0; });
}

void PectPolicy::occupy(const std::vector<int>& nodes, JobId id) {
  for (int n : nodes) {
    const auto u = static_cast<std::size_t>(n);
    if (busy_[u] != 0) throw std::logic_error(label_ + ": node " + std::to_string(n) + " is busy");
    busy_[u] = id;
    for (std::size_t k = 0; k < 3; ++k) eligible_[k] -= bound_[k][u] == 0;
  }
}

void PectPolicy::vacate(const std::vector<int>& nodes) {
  for (int n : nodes) {
    const auto u = static_cast<std::size_t>(n);
    busy_[u] = 0;
    for (std::size_t k = 0; k < 3; ++k) eligible_[k] += bound_[k][u] == 0;
  }
}

void PectPolicy::start(const Job& j, PectClass c, std::vector<int> nodes, Time now, std::vector<Decision>& out) {
  if (static_cast<int>(nodes.size()) != j.size) {
    throw std::logic_error(label_ + ": job " + std::to_string(j.id) + " finds no nodes");
  }
  occupy(nodes, j.id);
  for (int n : nodes) bound_[idx(c)][static_cast<std::size_t>(n)] = j.id;
  Tracked t{c, j.size, std::max<Time>(j.estimate, 1), nodes, true, now, 0};
  ++tracked_[idx(c)];
  Decision d = Decision::start(j.id);
  d.nodes = std::move(nodes);
  out.push_back(std::move(d));
  jobs_.emplace(j.id, std::move(t));
}

void PectPolicy::resume(JobId id, Time now, std::vector<Decision>& out) {
  Tracked& t = jobs_.at(id);
  occupy(t.nodes, id);
  t.executing = true;
  t.since = now;
  Decision d = Decision::resume(id);
  d.nodes = t.nodes;
  out.push_back(std::move(d));
}

void PectPolicy::suspend(JobId id, Time now, std::vector<Decision>& out) {
  Tracked& t = jobs_.at(id);
  vacate(t.nodes);
  t.done += now - t.since;
  t.executing = false;
  out.push_back(Decision::suspend(id));
}

void PectPolicy::release(JobId id) {
  const auto it = jobs_.find(id);
  if (it == jobs_.end()) throw std::logic_error(label_ + ": job " + std::to_string(id) + " ended unknown");
  Tracked& t = it->second;
  if (t.executing) vacate(t.nodes);
  for (int n : t.nodes) {
    const auto u = static_cast<std::size_t>(n);
    if (bound_[idx(t.cls)][u] != id) continue;  // shared after a resync
    bound_[idx(t.cls)][u] = 0;
    if (busy_[u] == 0) ++eligible_[idx(t.cls)];
  }
  --tracked_[idx(t.cls)];
  jobs_.erase(it);
}

std::vector<JobId> PectPolicy::started_of(PectClass c, bool executing) const {
  std::vector<JobId> ids;
  for (const auto& [id, t] : jobs_) {
    if (t.cls == c && t.executing == executing) ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

// ---- slices -----------------------------------------------------------------------

void PectPolicy::begin_slice(PectClass c, Time now, std::vector<Decision>& out) {
  phase_ = Phase::Slice;
  current_ = c;
  slice_begin_ = now;
  phase_end_ = now + options_.slice_of(c);
  ++slices_;
  // §1.3 rule 2: the class's preempted jobs resume on their nodes. Their
  // node sets are disjoint and nothing executes at a slice begin.
  for (JobId id : started_of(c, false)) {
    if (!nodes_free(jobs_.at(id).nodes)) {
      // Only after a resync found jobs of one class sharing nodes: the job
      // resumes in a later pass of the slice, when its nodes are free.
      if (!resynced_) {
        throw std::logic_error(label_ + ": preempted job " + std::to_string(id) + " cannot resume at its slice");
      }
      continue;
    }
    resume(id, now, out);
  }
}

void PectPolicy::transitions(const std::array<std::vector<const Job*>, 3>& waiting, Time now,
                             std::vector<Decision>& out) {
  auto has_work = [&](PectClass c) { return class_has_work(c, waiting); };
  auto any_work = [&] { return std::any_of(kCycle.begin(), kCycle.end(), [&](PectClass c) { return has_work(c); }); };
  // The next class after `c` in the cycle (c itself last) that gets a slice.
  auto next_class = [&](PectClass c) {
    PectClass k = c;
    for (std::size_t i = 0; i < kCycle.size(); ++i) {
      k = after(k);
      if (!options_.skip_empty || has_work(k)) return k;
    }
    return k;  // == c
  };
  for (int guard = 0; guard < 8; ++guard) {
    if (phase_ == Phase::None) {
      if (!any_work()) return;
      PectClass c = next_;
      if (options_.skip_empty && !has_work(c)) c = next_class(c);
      begin_slice(c, now, out);
      continue;
    }
    if (phase_ == Phase::Gap) {
      if (now < phase_end_) return;
      if (!any_work()) {
        phase_ = Phase::None;
        phase_end_ = kTimeInfinity;
        return;
      }
      PectClass c = next_;
      if (options_.skip_empty && !has_work(c)) c = next_class(c);
      begin_slice(c, now, out);
      continue;
    }
    // In a slice.
    const bool ended = now >= phase_end_;
    const bool emptied = options_.skip_empty && !has_work(current_);
    if (!ended && !emptied) return;
    slice_seconds_[idx(current_)] += now - slice_begin_;
    if (!any_work()) {  // nothing waits and nothing is started
      phase_ = Phase::None;
      phase_end_ = kTimeInfinity;
      next_ = after(current_);
      return;
    }
    const PectClass k = next_class(current_);
    if (k == current_) {  // only this class has work: a new slice, no switch
      slice_begin_ = now;
      phase_end_ = now + options_.slice_of(k);
      ++slices_;
      return;
    }
    // §1.3 rule 1: everything executing moves to disk, then the switch gap.
    std::vector<JobId> executing;
    for (const auto& [id, t] : jobs_) {
      if (t.executing) executing.push_back(id);
    }
    std::sort(executing.begin(), executing.end());
    for (JobId id : executing) suspend(id, now, out);
    ++switches_;
    if (options_.switch_cost > 0) {
      phase_ = Phase::Gap;
      next_ = k;
      phase_end_ = now + options_.switch_cost;
      return;
    }
    begin_slice(k, now, out);
  }
}

// ---- the scheduling pass ------------------------------------------------------------

void PectPolicy::schedule_pass(const std::array<std::vector<const Job*>, 3>& waiting, Time now,
                               std::vector<Decision>& out) {
  const PectClass c = current_;
  const Time slice_end = phase_end_;
  // Preempted jobs of the class whose nodes are free (all of them at the
  // slice begin, which begin_slice did).
  for (JobId id : started_of(c, false)) {
    if (nodes_free(jobs_.at(id).nodes)) resume(id, now, out);
  }
  // FIFO within the class until the first job that does not fit.
  const std::vector<const Job*>& wc = waiting[idx(c)];
  std::size_t i = 0;
  for (; i < wc.size(); ++i) {
    const Job& j = *wc[i];
    if (j.size > free_count_for(c)) break;
    start(j, c, free_nodes_for(c, j.size), now, out);
  }
  // The head's shadow time and extra nodes (EASY). A job releases its nodes
  // at its estimated end, one of another class at the slice end at the
  // latest; a node becomes usable for c when no c-job is bound to it.
  Time shadow = kTimeInfinity;
  long long extra = units_;
  if (i < wc.size()) {
    const Job& head = *wc[i];
    std::vector<std::pair<Time, int>> releases;
    for (const auto& [id, t] : jobs_) {
      if (!t.executing) continue;
      const Time end = now + remaining(t, now);
      if (t.cls == c) {
        releases.push_back({end, t.size});
      } else {
        int usable = 0;
        for (int n : t.nodes) usable += bound_[idx(c)][static_cast<std::size_t>(n)] == 0;
        releases.push_back({std::min(end, slice_end), usable});
      }
    }
    std::sort(releases.begin(), releases.end());
    long long avail = free_count_for(c);
    extra = 0;
    for (const auto& [t, n] : releases) {
      avail += n;
      if (avail >= head.size) {
        shadow = t;
        extra = avail - head.size;
        break;
      }
    }
  }
  auto no_collision = [&](Time end, int size) {
    if (end <= shadow) return true;
    if (size <= extra) {
      extra -= size;
      return true;
    }
    return false;
  };
  if (options_.easy && i < wc.size()) {
    for (std::size_t k = i + 1; k < wc.size(); ++k) {
      const Job& j = *wc[k];
      if (j.size > free_count_for(c)) continue;
      if (!no_collision(now + std::max<Time>(j.estimate, 1), j.size)) continue;
      start(j, c, free_nodes_for(c, j.size), now, out);
    }
  }
  if (!options_.smart) return;
  // Smart backfilling (§6.2): preempted queues first, then waiting queues,
  // each by increasing runtime class, FIFO inside.
  for (PectClass k : kByRuntime) {
    if (k == c) continue;
    for (JobId id : started_of(k, false)) {
      const Tracked& t = jobs_.at(id);
      if (!nodes_free(t.nodes)) continue;
      if (!no_collision(std::min(now + remaining(t, now), slice_end), t.size)) continue;
      resume(id, now, out);
    }
  }
  for (PectClass k : kByRuntime) {
    if (k == c) continue;
    for (const Job* j : waiting[idx(k)]) {
      if (jobs_.count(j->id) || j->size > free_count_for(k)) continue;
      if (!no_collision(std::min(now + std::max<Time>(j->estimate, 1), slice_end), j->size)) continue;
      start(*j, k, free_nodes_for(k, j->size), now, out);
    }
  }
}

// ---- the step ---------------------------------------------------------------------

void PectPolicy::init(const Snapshot& s) {
  units_ = s.total_units;
  busy_.assign(static_cast<std::size_t>(units_), 0);
  for (auto& b : bound_) b.assign(static_cast<std::size_t>(units_), 0);
  eligible_.fill(units_);
}

std::array<std::vector<const Job*>, 3> PectPolicy::classify_queue(const Snapshot& s) const {
  std::array<std::vector<const Job*>, 3> waiting;
  for (const Job& j : s.queue) {
    if (jobs_.count(j.id)) continue;
    waiting[idx(options_.classify(j.estimate))].push_back(&j);
  }
  return waiting;
}

void PectPolicy::resync(const Snapshot& s) {
  const Time now = s.now;
  jobs_.clear();
  tracked_.fill(0);
  resynced_ = true;
  init(s);
  // Executing jobs first, then suspended ones, each by (first start, id).
  std::vector<const RunningJob*> running;
  running.reserve(s.running.size());
  for (const RunningJob& r : s.running) running.push_back(&r);
  std::sort(running.begin(), running.end(), [](const RunningJob* a, const RunningJob* b) {
    return std::tuple(a->suspended, a->start, a->job.id) < std::tuple(b->suspended, b->start, b->job.id);
  });
  std::vector<JobId> to_suspend;
  std::array<long long, 3> executing_units{};
  for (const RunningJob* r : running) {
    const Job& j = r->job;
    const PectClass c = options_.classify(j.estimate);
    std::vector<int> nodes = r->nodes;
    std::vector<int> sorted = nodes;
    std::sort(sorted.begin(), sorted.end());
    const bool valid = !sorted.empty() && sorted.front() >= 0 && sorted.back() < units_ &&
                       std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
    if (!valid) {
      // No usable node list: the lowest nodes neither executing nor bound to
      // the class (as a start would take), else the lowest nodes.
      nodes = free_nodes_for(c, std::min(j.size, units_));
      if (static_cast<int>(nodes.size()) < std::min(j.size, units_)) {
        nodes.clear();
        for (int n = 0; n < std::min(j.size, units_); ++n) nodes.push_back(n);
      }
    }
    // Work done is unknown: the whole estimate is taken as remaining.
    Tracked t{c, static_cast<int>(nodes.size()), std::max<Time>(j.estimate, 1), nodes, false, now, 0};
    for (int n : nodes) {
      auto& b = bound_[idx(c)][static_cast<std::size_t>(n)];
      if (b == 0) {
        b = j.id;
        for (std::size_t k = 0; k < 3; ++k) eligible_[k] -= k == idx(c) && busy_[static_cast<std::size_t>(n)] == 0;
      }
    }
    ++tracked_[idx(c)];
    const bool executes = !r->suspended;
    jobs_.emplace(j.id, std::move(t));
    if (executes) {
      if (nodes_free(nodes)) {
        occupy(nodes, j.id);
        Tracked& tt = jobs_.at(j.id);
        tt.executing = true;
        executing_units[idx(c)] += static_cast<long long>(nodes.size());
      } else {
        to_suspend.push_back(j.id);  // shares a node with an executing job
      }
    }
  }
  // The active slice: the class executing on the most nodes (ties: MEDIUM,
  // LONG, SHORT), its clock restarting now; nothing executing: no slice
  // (a switch gap in progress ends), the next slice begins at once.
  phase_ = Phase::None;
  next_ = PectClass::Medium;
  phase_end_ = kTimeInfinity;
  long long most = 0;
  for (PectClass c : kCycle) {
    if (executing_units[idx(c)] > most) {
      most = executing_units[idx(c)];
      current_ = c;
    }
  }
  if (most > 0) {
    phase_ = Phase::Slice;
    slice_begin_ = now;
    phase_end_ = now + options_.slice_of(current_);
    ++slices_;
  }
  resync_suspend_ = std::move(to_suspend);
}

void PectPolicy::begin_step(const Snapshot& s) {
  if (s.resync) {
    resync(s);
    return;
  }
  if (units_ == 0) init(s);
  if (units_ != s.total_units) {
    throw std::runtime_error(label_ + ": the partition changed from " + std::to_string(units_) + " to " +
                             std::to_string(s.total_units) + " units at t=" + std::to_string(s.now));
  }
  for (const SnapshotEvent& ev : s.events) {
    if (ev.kind == SnapshotEvent::Kind::Ended) release(ev.job);
  }
}

void PectPolicy::resync_decisions(std::vector<Decision>& out) {
  // Executing jobs a resync found on nodes already executing another job:
  // suspended now, resumed when their nodes are free.
  for (JobId id : resync_suspend_) out.push_back(Decision::suspend(id));
  resync_suspend_.clear();
}

StepResult PectPolicy::step(const Snapshot& s) {
  begin_step(s);
  const auto waiting = classify_queue(s);
  StepResult result;
  resync_decisions(result.decisions);
  transitions(waiting, s.now, result.decisions);
  if (phase_ == Phase::Slice) schedule_pass(waiting, s.now, result.decisions);
  result.wakeup = phase_ == Phase::None ? kTimeInfinity : phase_end_;
  return result;
}

// ---- parameters ---------------------------------------------------------------------

namespace {
const PectOptions kDefaults;
}  // namespace

const ParamTable& pect_parameters() {
  static const ParamTable table = {
      Param::integer("short_limit", kDefaults.short_limit, 1, 100000000,
                     "estimate below this (s) is SHORT (spec 1.2: 600, not the table's 60)"),
      Param::integer("long_limit", kDefaults.long_limit, 1, 100000000, "estimate above this (s) is LONG"),
      Param::integer("medium_slice", kDefaults.medium_slice, 1, 100000000, "MEDIUM slice, seconds"),
      Param::number("long_share", kDefaults.long_share, 0.1, 100,
                    "LONG share of machine time, %; the long slice is medium_slice x long_share / medium_share"),
      Param::number("medium_share", kDefaults.medium_share, 0.1, 100, "MEDIUM share of machine time, %"),
      Param::integer("short_slice", kDefaults.short_slice, 1, 100000000, "SHORT slice, seconds"),
      Param::integer("switch", kDefaults.switch_cost, 0, 100000000,
                     "slice switch overhead: seconds with nothing executing between slices"),
      Param::flag("skip_empty", kDefaults.skip_empty, "skip (and end) slices of classes without work"),
      Param::flag("smart", kDefaults.smart, "smart backfilling of other classes' jobs into the slice"),
      Param::flag("easy", kDefaults.easy, "EASY backfilling within the slice's class"),
  };
  return table;
}

PectOptions pect_options(const ParamValues& v) {
  PectOptions o;
  o.short_limit = v.integer("short_limit");
  o.long_limit = v.integer("long_limit");
  o.medium_slice = v.integer("medium_slice");
  o.long_share = v.number("long_share");
  o.medium_share = v.number("medium_share");
  o.short_slice = v.integer("short_slice");
  o.switch_cost = v.integer("switch");
  o.skip_empty = v.flag("skip_empty");
  o.smart = v.flag("smart");
  o.easy = v.flag("easy");
  if (o.long_limit < o.short_limit) {
    throw SpecError(v.name() + ": long_limit (" + std::to_string(o.long_limit) + ") is below short_limit (" +
                    std::to_string(o.short_limit) + ")");
  }
  return o;
}

PolicyPtr make_pect(const ParamValues& values, RunMode) {
  return std::make_unique<PectPolicy>(pect_options(values), values.canonical());
}

}  // namespace los
