#include "policies/tabu.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace los {
namespace {

// A zero estimate would reserve nothing; one second is the smallest span the
// profile holds.
Time planned_duration(Time estimate) { return std::max<Time>(estimate, 1); }

// (a - b) / max(floor, a), and exactly 0 when the criterion did not change.
double relative_gain(double a, double b, double floor) {
  if (a == b) return 0;
  return (a - b) / std::max(floor, a);
}

}  // namespace

double tabu_improvement(const TabuCriteria& current, const TabuCriteria& candidate) {
  return relative_gain(current.bsd, candidate.bsd, 1.0) + relative_gain(current.wait, candidate.wait, 1e-13) +
         relative_gain(current.response, candidate.response, 1e-13) +
         relative_gain(current.fairness, candidate.fairness, 1e-13);
}

// ---------------------------------------------------------------------------
// TabuPlan

TabuPlan::TabuPlan(int capacity, Time origin) : profile_(capacity, origin) {}

int TabuPlan::user_index(int user) {
  const auto [it, added] = user_of_id_.emplace(user, static_cast<int>(users_.size()));
  if (added) {
    users_.emplace_back();
    user_delta_.push_back(0);
  }
  return it->second;
}

double TabuPlan::nuwt(const UserTotals& u, std::int64_t extra_wait) const {
  return static_cast<double>(u.fixed_wait + u.planned_wait + extra_wait) / std::max(1.0, u.area);
}

double TabuPlan::job_bsd(const Entry& e, Time start) {
  const double response = static_cast<double>(start + e.duration - e.submit);
  return std::max(1.0, response) / static_cast<double>(std::max<Time>(1, e.duration));
}

void TabuPlan::add_movable(JobId id) {
  movable_at_[id] = movable_.size();
  movable_.push_back(id);
}

void TabuPlan::drop_movable(JobId id) {
  const auto it = movable_at_.find(id);
  if (it == movable_at_.end()) return;
  const std::size_t at = it->second;
  movable_at_.erase(it);
  if (at + 1 != movable_.size()) {
    movable_[at] = movable_.back();
    movable_at_[movable_[at]] = at;
  }
  movable_.pop_back();
}

void TabuPlan::add_running(const Job& job, Time start, Time end) {
  const int u = user_index(job.user);
  const Time d = planned_duration(job.estimate);
  const Time wait = std::max<Time>(0, start - job.submit);
  if (end > profile_.origin()) profile_.add(profile_.origin(), end, -job.size);
  running_[job.id] = Running{u, job.size, start, end, d, wait};
  running_by_end_.insert({end, job.id});
  users_[u].fixed_wait += wait;
  users_[u].area += static_cast<double>(d) * job.size;
}

bool TabuPlan::end_running(JobId id, Time now, bool& freed) {
  const auto it = running_.find(id);
  if (it == running_.end()) return false;
  const Running r = it->second;
  running_by_end_.erase({r.end, id});
  running_.erase(it);
  if (r.end > now) {
    profile_.add(now, r.end, r.size);
    freed = true;
  }
  // The area counted the estimate while the job ran; now its run time is known.
  users_[r.user].area += static_cast<double>((now - r.start) - r.duration) * r.size;
  return true;
}

Time TabuPlan::first_running_end() const {
  return running_by_end_.empty() ? kTimeInfinity : running_by_end_.begin()->first;
}

Time TabuPlan::insert(const Job& job, Time now, Time promise) {
  if (job.size > capacity()) return kTimeInfinity;
  const Time d = planned_duration(job.estimate);
  const Time s = profile_.earliest_start(job.size, d, now);
  if (s >= kTimeInfinity) return kTimeInfinity;
  profile_.reserve(s, d, job.size);
  const int u = user_index(job.user);
  const Entry e{job.id, u, job.size, job.submit, d, s, promise < kTimeInfinity ? promise : s, next_order_++, false};
  planned_[job.id] = e;
  by_start_.insert({s, e.order, job.id});
  add_movable(job.id);
  users_[u].planned_wait += s - job.submit;
  users_[u].area += static_cast<double>(d) * job.size;
  return s;
}

bool TabuPlan::remove(JobId id) {
  const auto it = planned_.find(id);
  if (it == planned_.end()) return false;
  const Entry e = it->second;
  if (e.start + e.duration > profile_.origin()) {
    profile_.add(std::max(e.start, profile_.origin()), e.start + e.duration, e.size);
  }
  by_start_.erase({e.start, e.order, id});
  drop_movable(id);
  users_[e.user].planned_wait -= e.start - e.submit;
  users_[e.user].area -= static_cast<double>(e.duration) * e.size;
  planned_.erase(it);
  return true;
}

void TabuPlan::reset(int capacity, Time now) {
  for (const auto& [id, e] : planned_) {
    users_[e.user].planned_wait -= e.start - e.submit;
    users_[e.user].area -= static_cast<double>(e.duration) * e.size;
  }
  for (const auto& [id, r] : running_) {
    users_[r.user].fixed_wait -= r.wait;
    users_[r.user].area -= static_cast<double>(r.duration) * r.size;
  }
  profile_ = Planner(capacity, now);
  planned_.clear();
  by_start_.clear();
  running_.clear();
  running_by_end_.clear();
  movable_.clear();
  movable_at_.clear();
}

void TabuPlan::place(Entry& e, Time start) {
  profile_.release(e.start, e.duration, e.size);
  profile_.reserve(start, e.duration, e.size);
  by_start_.erase({e.start, e.order, e.id});
  by_start_.insert({start, e.order, e.id});
  users_[e.user].planned_wait += start - e.start;
  if (journaling_) journal_.push_back({e.id, e.start, start});
  e.start = start;
}

void TabuPlan::compress(Time now, Time from, Time until) {
  for (auto it = by_start_.begin(); it != by_start_.end();) {
    // A moved reservation is re-keyed to an earlier start: before `next`,
    // so it is not visited twice.
    const auto next = std::next(it);
    const auto [start, order, id] = *it;
    Entry& e = planned_.at(id);
    // A new start must put the job's window over freed capacity: after
    // start - duration, before `until` (which grows as moved jobs free
    // their old spans), and before its own start.
    const Time lo = std::max(now, from - e.duration + 1);
    const Time hi = std::min(start, until);
    // Any window the search below accepts covers a point of [probe_from,
    // probe_to) (when that is not empty), and needs the units free there:
    // two descents rule most reservations out before the full search.
    // And every window starting in [lo, hi) covers [hi - 1, lo + duration)
    // (before the old start): one more descent when the range is short.
    const Time probe_from = std::max(lo, from);
    const Time probe_to = std::min({until, hi - 1 + e.duration, start});
    const Time core_to = std::min(lo + e.duration, start);
    if (!e.starting && start > now && lo < hi &&
        (probe_from >= probe_to || profile_.earliest_start(e.size, 1, probe_from, probe_to) < probe_to) &&
        (hi - 1 >= core_to || profile_.min_free(hi - 1, core_to) >= e.size)) {
      // Asked with the job's own reservation in place: cut at `hi`, the
      // window is checked up to there; the rest of it, up to the old start,
      // is checked next (from the old start on the job holds the units).
      const Time s = profile_.earliest_start(e.size, e.duration, lo, hi);
      const Time checked_to = std::min(s + e.duration, start);
      if (s < hi && (checked_to <= hi || profile_.min_free(hi, checked_to) >= e.size)) {
        // A start in [s, hi) that failed the second check would fail it
        // too (its window covers the same short point), so s is the
        // earliest start in [lo, hi).
        if (until < kTimeInfinity) until = std::max(until, start + e.duration);
        place(e, s);
      }
    }
    it = next;
  }
}

bool TabuPlan::start_planned(JobId id, Time start) {
  const auto it = planned_.find(id);
  if (it == planned_.end() || !it->second.starting || it->second.start != start) return false;
  const Entry e = it->second;
  by_start_.erase({e.start, e.order, id});
  drop_movable(id);
  planned_.erase(it);
  UserTotals& u = users_[e.user];
  u.planned_wait -= e.start - e.submit;
  const Time wait = std::max<Time>(0, start - e.submit);
  u.fixed_wait += wait;
  // The reserved span becomes the running span: the profile is unchanged.
  running_[id] = Running{e.user, e.size, start, start + e.duration, e.duration, wait};
  running_by_end_.insert({start + e.duration, id});
  return true;
}

const TabuPlan::Entry* TabuPlan::find(JobId id) const {
  const auto it = planned_.find(id);
  return it == planned_.end() ? nullptr : &it->second;
}

std::vector<PlannedStart> TabuPlan::starts() const {
  std::vector<PlannedStart> out;
  out.reserve(by_start_.size());
  for (const auto& [start, order, id] : by_start_) out.push_back({id, start});
  return out;
}

std::vector<JobId> TabuPlan::take_due(Time now) {
  std::vector<JobId> due;
  for (const auto& [start, order, id] : by_start_) {
    if (start > now) break;
    Entry& e = planned_.at(id);
    if (e.starting) continue;
    e.starting = true;
    drop_movable(id);
    due.push_back(id);
  }
  return due;
}

Time TabuPlan::first_start() const {
  return by_start_.empty() ? kTimeInfinity : std::get<0>(*by_start_.begin());
}

TabuCriteria TabuPlan::criteria() const {
  TabuCriteria c;
  std::int64_t wait = 0, duration = 0;
  double bsd = 0;
  for (const auto& [id, e] : planned_) {
    wait += e.start - e.submit;
    duration += e.duration;
    bsd += job_bsd(e, e.start);
  }
  const double n = static_cast<double>(std::max<std::size_t>(1, planned_.size()));
  c.wait = std::max(0.0, static_cast<double>(wait) / n);
  c.response = std::max(0.0, static_cast<double>(wait + duration) / n);
  c.bsd = std::max(1.0, bsd / n);
  if (!users_.empty()) {
    double mean = 0;
    for (const UserTotals& u : users_) mean += nuwt(u, 0);
    mean /= static_cast<double>(users_.size());
    for (const UserTotals& u : users_) c.fairness += (mean - nuwt(u, 0)) * (mean - nuwt(u, 0));
  }
  return c;
}

void TabuPlan::prepare() {
  wait_sum_ = 0;
  duration_sum_ = 0;
  bsd_sum_ = 0;
  for (const auto& [id, e] : planned_) {
    wait_sum_ += e.start - e.submit;
    duration_sum_ += e.duration;
    bsd_sum_ += job_bsd(e, e.start);
  }
  nuwt_sum_ = 0;
  for (const UserTotals& u : users_) nuwt_sum_ += nuwt(u, 0);
  current_ = criteria();
}

TabuPlan::Delta TabuPlan::evaluate(TabuCriteria& candidate) {
  Delta d;
  for (const Move& m : journal_) {
    if (m.from == m.to) continue;
    const Entry& e = planned_.at(m.id);
    d.wait += m.to - m.from;
    // One division of an exact integer difference: equal and opposite
    // changes of equal jobs cancel exactly.
    d.bsd += static_cast<double>(std::max<Time>(1, m.to + e.duration - e.submit) -
                                 std::max<Time>(1, m.from + e.duration - e.submit)) /
             static_cast<double>(std::max<Time>(1, e.duration));
    if (user_delta_[e.user] == 0) touched_.push_back(e.user);
    user_delta_[e.user] += m.to - m.from;
  }
  // F = S2 - S1^2 / u with S1, S2 the sum of NUWT and of its squares; only
  // the users whose planned wait changed contribute to the difference.
  double ds1 = 0, ds2 = 0;
  for (const int u : touched_) {
    const std::int64_t delta = user_delta_[u];
    user_delta_[u] = 0;
    if (delta == 0) continue;
    const double after = nuwt(users_[u], 0);  // the moves are already in place
    const double before = nuwt(users_[u], -delta);
    ds1 += after - before;
    ds2 += after * after - before * before;
  }
  touched_.clear();
  d.nuwt_sum = ds1;
  const double n = static_cast<double>(std::max<std::size_t>(1, planned_.size()));
  candidate = current_;
  if (d.wait != 0) {
    candidate.wait = std::max(0.0, static_cast<double>(wait_sum_ + d.wait) / n);
    candidate.response = std::max(0.0, static_cast<double>(wait_sum_ + d.wait + duration_sum_) / n);
  }
  if (d.bsd != 0) candidate.bsd = std::max(1.0, (bsd_sum_ + d.bsd) / n);
  if (ds1 != 0 || ds2 != 0) {
    const double u = static_cast<double>(users_.size());
    const double df = ds2 - (2 * nuwt_sum_ * ds1 + ds1 * ds1) / u;
    candidate.fairness = std::max(0.0, current_.fairness + df);
  }
  return d;
}

TabuPlan::MoveResult TabuPlan::try_move(JobId id, Time now, bool safe) {
  Entry& e = planned_.at(id);
  const Time old_start = e.start;
  const std::int64_t old_order = e.order;

  // Remove, compress, re-insert at the earliest start (Algorithm 2, 10-12).
  profile_.release(old_start, e.duration, e.size);
  by_start_.erase({old_start, old_order, id});
  journal_.clear();
  journaling_ = true;
  compress(now, old_start, old_start + e.duration);
  journaling_ = false;
  const Time s = profile_.earliest_start(e.size, e.duration, now);
  profile_.reserve(s, e.duration, e.size);
  e.start = s;
  e.order = next_order_++;
  by_start_.insert({s, e.order, id});
  users_[e.user].planned_wait += s - old_start;
  journal_.push_back({id, old_start, s});

  MoveResult result = MoveResult::Rejected;
  if (safe && s > e.promise) {
    result = MoveResult::Unsafe;
  } else {
    TabuCriteria candidate;
    const Delta d = evaluate(candidate);
    if (tabu_improvement(current_, candidate) > kTabuAcceptEpsilon) {
      current_ = candidate;
      wait_sum_ += d.wait;
      bsd_sum_ += d.bsd;
      nuwt_sum_ += d.nuwt_sum;
      return MoveResult::Kept;
    }
  }

  // Undo: the re-insertion, then the compression backwards, then the
  // removal. Each step restores a state that existed, so no reserve
  // overbooks; the plan is exactly the one before the move.
  profile_.release(s, e.duration, e.size);
  by_start_.erase({s, e.order, id});
  journal_.pop_back();
  for (auto m = journal_.rbegin(); m != journal_.rend(); ++m) place(planned_.at(m->id), m->from);
  e.start = old_start;
  e.order = old_order;
  profile_.reserve(old_start, e.duration, e.size);
  by_start_.insert({old_start, old_order, id});
  users_[e.user].planned_wait += old_start - s;
  journal_.clear();
  return result;
}

std::int64_t TabuPlan::search(Time now, std::int64_t iterations, std::size_t tabu_size, bool safe,
                              std::mt19937_64& rng, std::chrono::steady_clock::time_point deadline,
                              TabuSearchStats& stats) {
  if (movable_.size() < 2) return 0;
  prepare();
  const bool timed = deadline != std::chrono::steady_clock::time_point::max();
  std::deque<JobId> tabu;
  auto is_tabu = [&tabu](JobId id) { return std::find(tabu.begin(), tabu.end(), id) != tabu.end(); };
  std::vector<JobId> candidates;
  std::int64_t accepted = 0;
  for (std::int64_t i = 0; i < iterations; ++i) {
    if (timed && std::chrono::steady_clock::now() >= deadline) break;
    ++stats.iterations;
    // A uniformly random job not in the tabu list: rejection sampling while
    // most jobs are not tabu, an explicit list otherwise.
    JobId pick = -1;
    bool found = false;
    if (movable_.size() > 2 * tabu.size()) {
      std::uniform_int_distribution<std::size_t> any(0, movable_.size() - 1);
      do {
        pick = movable_[any(rng)];
      } while (is_tabu(pick));
      found = true;
    } else {
      candidates.clear();
      for (const JobId id : movable_) {
        if (!is_tabu(id)) candidates.push_back(id);
      }
      if (!candidates.empty()) {
        std::uniform_int_distribution<std::size_t> any(0, candidates.size() - 1);
        pick = candidates[any(rng)];
        found = true;
      }
    }
    if (!found) {  // every job is tabu: empty the list; the iteration is spent
      tabu.clear();
      continue;
    }
    switch (try_move(pick, now, safe)) {
      case MoveResult::Kept:
        ++accepted;
        break;
      case MoveResult::Unsafe:
        ++stats.rejected_unsafe;
        break;
      case MoveResult::Rejected:
        break;
    }
    if (tabu_size == 0) continue;
    if (tabu.size() >= tabu_size) tabu.pop_front();
    tabu.push_back(pick);
  }
  stats.accepted += accepted;
  return accepted;
}

bool TabuPlan::consistent() const {
  Planner expect(profile_.capacity(), profile_.origin());
  for (const auto& [id, r] : running_) {
    if (r.end > profile_.origin()) expect.add(profile_.origin(), r.end, -r.size);
  }
  std::vector<std::int64_t> planned_wait(users_.size(), 0);
  for (const auto& [id, e] : planned_) {
    if (e.start < profile_.origin()) return false;
    expect.reserve(e.start, e.duration, e.size);
    planned_wait[e.user] += e.start - e.submit;
    if (!by_start_.count({e.start, e.order, id})) return false;
  }
  if (by_start_.size() != planned_.size()) return false;
  for (std::size_t u = 0; u < users_.size(); ++u) {
    if (planned_wait[u] != users_[u].planned_wait) return false;
  }
  return expect.slots() == profile_.slots();
}

// ---------------------------------------------------------------------------
// TabuPolicy

TabuPolicy::TabuPolicy(Options options)
    : options_(options), rng_(options.seed), next_search_(options.period > 0 ? options.period : kTimeInfinity) {}

std::string TabuPolicy::name() const {
  const Options d;
  std::ostringstream out;
  out << "tabu";
  if (options_.budget != d.budget) out << ":budget=" << options_.budget;
  if (options_.period != d.period) out << ":period=" << options_.period;
  if (options_.safe) out << ":safe";
  if (options_.seed != d.seed) out << ":seed=" << options_.seed;
  if (options_.tabu_size != d.tabu_size) out << ":tabu=" << options_.tabu_size;
  if (options_.time_limit != d.time_limit) out << ":time-limit=" << options_.time_limit;
  return out.str();
}

bool TabuPolicy::apply_events(const Snapshot& snapshot, bool& freed) {
  const Time now = snapshot.now;
  for (const SnapshotEvent& ev : snapshot.events) {
    switch (ev.kind) {
      case SnapshotEvent::Kind::Arrived:
        break;
      case SnapshotEvent::Kind::Started:
        if (!plan_.start_planned(ev.job, ev.start)) return false;
        break;
      case SnapshotEvent::Kind::Ended:
        if (!plan_.end_running(ev.job, now, freed)) return false;
        break;
      case SnapshotEvent::Kind::Withdrawn:
        if (plan_.remove(ev.job)) freed = true;
        break;
      case SnapshotEvent::Kind::Suspended:
      case SnapshotEvent::Kind::Resumed:
        return false;  // not a space-sharing event: rebuild from the snapshot
    }
  }
  // A running job past its expected end (an overrun), or a start that was
  // not carried out: the plan no longer matches the cluster.
  if (plan_.first_running_end() <= now) return false;
  if (plan_.first_start() < now) return false;
  return true;
}

void TabuPolicy::rebuild(const Snapshot& snapshot) {
  const Time now = snapshot.now;
  // Re-plan the old reservations in their old order, keeping their promises;
  // the queue pass in step() plans the rest.
  std::vector<std::pair<JobId, Time>> holders;
  for (const PlannedStart& p : plan_.starts()) holders.push_back({p.job, plan_.find(p.job)->promise});
  plan_.reset(snapshot.total_units, now);
  for (const RunningJob& r : snapshot.running) {
    if (!r.suspended) plan_.add_running(r.job, r.start, r.expected_end(now));
  }
  std::unordered_map<JobId, const Job*> queued;
  queued.reserve(snapshot.queue.size());
  for (const Job& j : snapshot.queue) queued[j.id] = &j;
  for (const auto& [id, promise] : holders) {
    const auto it = queued.find(id);
    if (it != queued.end()) plan_.insert(*it->second, now, promise);
  }
}

StepResult TabuPolicy::step(const Snapshot& snapshot) {
  const Time now = snapshot.now;
  StepResult result;

  bool freed = false;
  if (snapshot.resync || plan_.capacity() != snapshot.total_units || now < plan_.origin()) {
    rebuild(snapshot);
  } else {
    plan_.advance_to(now);
    if (!apply_events(snapshot, freed)) {
      rebuild(snapshot);
    } else if (freed) {
      plan_.compress(now, now);
    }
  }

  for (const Job& job : snapshot.queue) {
    if (!plan_.find(job.id)) plan_.insert(job, now);
  }

  if (options_.period > 0 && now >= next_search_) {
    if (plan_.movable().size() >= 2) {
      ++stats_.searches;
      // The wall-clock cap applies live only (a named partition): a
      // simulation counts iterations, so every run is reproducible.
      auto deadline = std::chrono::steady_clock::time_point::max();
      if (!snapshot.partition.empty() && options_.time_limit > 0) {
        deadline = std::chrono::steady_clock::now() +
                   std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                       std::chrono::duration<double>(options_.time_limit));
      }
      const std::int64_t iterations = options_.budget * static_cast<std::int64_t>(plan_.movable().size());
      plan_.search(now, iterations, options_.tabu_size, options_.safe, rng_, deadline, stats_);
    }
    next_search_ = (now / options_.period + 1) * options_.period;
  }

  for (const JobId id : plan_.take_due(now)) result.decisions.push_back(Decision::start(id));

  // Reservations come due at job ends, which are events anyway; the wake-up
  // is a safeguard. The next search needs one when jobs wait.
  const Time first = plan_.first_start();
  if (first > now && first < kTimeInfinity) result.wakeup = first;
  if (options_.period > 0 && plan_.movable().size() >= 2) result.wakeup = std::min(result.wakeup, next_search_);
  return result;
}

std::vector<PlannedStart> TabuPolicy::reservations() const {
  if (!options_.safe) return {};  // predictions, not promises: the search may delay a job
  std::vector<PlannedStart> out;
  for (const PlannedStart& p : plan_.starts()) {
    if (!plan_.find(p.job)->starting) out.push_back(p);
  }
  return out;
}

PolicyPtr make_tabu(const PolicySpec& spec) {
  TabuPolicy::Options o;
  o.safe = spec.get_bool("safe", o.safe);
  o.period = spec.get_int("period", o.period, 0, 1000000000);
  o.budget = spec.get_int("budget", o.budget, 0, 1000000);
  o.tabu_size = static_cast<std::size_t>(spec.get_int("tabu", static_cast<long long>(o.tabu_size), 0, 1000000));
  o.seed = static_cast<std::uint64_t>(spec.get_int("seed", static_cast<long long>(o.seed), 0, (1LL << 62)));
  o.time_limit = spec.get_double("time-limit", o.time_limit, 0, 3600);
  spec.reject_unknown();
  return std::make_unique<TabuPolicy>(o);
}

}  // namespace los
