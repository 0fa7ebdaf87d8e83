#include "policies/tabu.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

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

TabuPlan::TabuPlan(int capacity, Time origin) : capacity_(capacity), now_(origin), profile_(capacity, origin) {}

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

double TabuPlan::job_bsd(Time submit, Time duration, Time start) {
  const double response = static_cast<double>(start + duration - submit);
  return std::max(1.0, response) / static_cast<double>(std::max<Time>(1, duration));
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

const FreeAt& TabuPlan::base() const {
  if (base_dirty_) {
    base_.reset(capacity_, now_);
    for (const auto& [end, id] : running_by_end_) base_.hold(running_.at(id).size, end);
    base_dirty_ = false;
  }
  return base_;
}

const Planner& TabuPlan::profile() const {
  if (profile_dirty_) {
    profile_ = Planner(capacity_, now_);
    for (const auto& [id, r] : running_) {
      if (r.end > now_) profile_.add(now_, r.end, -r.size);
    }
    for (const Entry& e : list_) profile_.add(std::max(e.start, now_), e.start + e.duration, -e.size);
    profile_dirty_ = false;
  }
  return profile_;
}

void TabuPlan::advance_to(Time now) {
  if (now <= now_) return;
  now_ = now;
  base_dirty_ = true;
  changed();
}

void TabuPlan::add_running(const Job& job, Time start, Time end) {
  const int u = user_index(job.user);
  const Time d = planned_duration(job.estimate);
  const Time wait = std::max<Time>(0, start - job.submit);
  running_[job.id] = Running{u, job.size, start, end, d, wait};
  running_by_end_.insert({end, job.id});
  users_[u].fixed_wait += wait;
  users_[u].area += static_cast<double>(d) * job.size;
  base_dirty_ = true;
  changed();
}

bool TabuPlan::end_running(JobId id, Time now, bool& freed) {
  const auto it = running_.find(id);
  if (it == running_.end()) return false;
  const Running r = it->second;
  running_by_end_.erase({r.end, id});
  running_.erase(it);
  if (r.end > now) freed = true;
  // The area counted the estimate while the job ran; now its run time is known.
  users_[r.user].area += static_cast<double>((now - r.start) - r.duration) * r.size;
  base_dirty_ = true;
  changed();
  return true;
}

Time TabuPlan::first_running_end() const {
  return running_by_end_.empty() ? kTimeInfinity : running_by_end_.begin()->first;
}

void TabuPlan::replay(std::vector<Entry>& list, std::size_t from, FreeAt& free, std::vector<Move>* journal) const {
  for (std::size_t i = from; i < list.size(); ++i) {
    Entry& e = list[i];
    const Time s = free.kth(e.size);
    if (s != e.start) {
      if (journal) journal->push_back({e.user, e.submit, e.duration, e.start, s});
      e.start = s;
    }
    free.place(e.size, s + e.duration);
  }
}

void TabuPlan::free_before(std::size_t pos, FreeAt& free) const {
  if (!marks_valid_) {
    marks_.resize(list_.size() / kMarkEvery + 1);
    free.assign(base());
    for (std::size_t i = 0; i < list_.size(); ++i) {
      if (i % kMarkEvery == 0) marks_[i / kMarkEvery].assign(free);
      free.place(list_[i].size, list_[i].start + list_[i].duration);
    }
    if (list_.size() % kMarkEvery == 0) marks_[list_.size() / kMarkEvery].assign(free);
    marks_valid_ = true;
  }
  free.assign(marks_[pos / kMarkEvery]);
  for (std::size_t i = pos - pos % kMarkEvery; i < pos; ++i) free.place(list_[i].size, list_[i].start + list_[i].duration);
}

std::pair<std::size_t, Time> TabuPlan::earliest_insert(const std::vector<Entry>& list, int size, Time duration,
                                                        Time give_up) const {
  // The spec's exact insertion (2.4) in one forward pass. At position i the
  // job X starts at s_i, the size-th smallest free time before i, and s_i
  // never decreases with i; the answer is the first position where X delays
  // nobody. While the jobs after X are not delayed, the free times they see
  // are the list's own with X's `size` first ones moved to X's end e, so job
  // m (starting before e) keeps its start iff ok(m): the (size + k_m)-th
  // smallest free time before m is at most S_m. ok(m) does not depend on i:
  // when it fails at m, every position up to m fails too (their windows end
  // after S_m), and the scan resumes after m. Each position is stepped once,
  // and nothing is copied.
  FreeAt& free = scan_;
  free.assign(base());
  std::size_t i = 0;  // the position tried; `free` is the state before `m`
  std::size_t m = 0;
  for (;;) {
    const Time s = free.kth(size);
    if (s > give_up) return {list.size(), s};  // every later position starts later still
    const Time end = s + duration;
    bool delays = false;
    for (; m < list.size() && list[m].start < end; ++m) {
      const Entry& y = list[m];
      if (free.kth(size + y.size) > y.start) {
        delays = true;
        break;
      }
      free.place(y.size, y.start + y.duration);
    }
    if (!delays) return {i, s};
    const Entry& blocked = list[m];
    free.place(blocked.size, blocked.start + blocked.duration);
    i = ++m;
  }
}

Time TabuPlan::insert(const Job& job, Time now, Time promise) {
  if (job.size > capacity_ || job.size <= 0 || listed_.count(job.id)) return kTimeInfinity;
  advance_to(now);
  const Time d = planned_duration(job.estimate);
  const auto [at, s] = earliest_insert(list_, job.size, d);
  if (s >= kTimeInfinity) return kTimeInfinity;
  const int u = user_index(job.user);
  const bool carried = promise < kTimeInfinity;
  const Entry e{job.id, u, job.size, job.submit, d, s, carried ? promise : s, false, carried};
  if (!carried) ++unconfirmed_;
  list_.insert(list_.begin() + static_cast<std::ptrdiff_t>(at), e);
  listed_.insert(job.id);
  add_movable(job.id);
  users_[u].planned_wait += s - job.submit;
  users_[u].area += static_cast<double>(d) * job.size;
  changed();
  return s;
}

bool TabuPlan::append(const Job& job, Time now, Time promise) {
  if (job.size > capacity_ || job.size <= 0 || listed_.count(job.id)) return false;
  advance_to(now);
  const Time d = planned_duration(job.estimate);
  const int u = user_index(job.user);
  // Starts at `now` until the replay (compress) gives it its place.
  list_.push_back(Entry{job.id, u, job.size, job.submit, d, now, promise, false, true});
  listed_.insert(job.id);
  add_movable(job.id);
  users_[u].planned_wait += now - job.submit;
  users_[u].area += static_cast<double>(d) * job.size;
  changed();
  return true;
}

void TabuPlan::confirm_promises() {
  if (unconfirmed_ == 0) return;
  for (Entry& e : list_) {
    if (!e.confirmed) {
      e.promise = e.start;
      e.confirmed = true;
    }
  }
  unconfirmed_ = 0;
}

bool TabuPlan::remove(JobId id) {
  const auto it = std::find_if(list_.begin(), list_.end(), [id](const Entry& e) { return e.id == id; });
  if (it == list_.end()) return false;
  drop_movable(id);
  if (!it->confirmed) --unconfirmed_;
  users_[it->user].planned_wait -= it->start - it->submit;
  users_[it->user].area -= static_cast<double>(it->duration) * it->size;
  list_.erase(it);
  listed_.erase(id);
  changed();
  return true;
}

void TabuPlan::reset(int capacity, Time now) {
  for (const Entry& e : list_) {
    users_[e.user].planned_wait -= e.start - e.submit;
    users_[e.user].area -= static_cast<double>(e.duration) * e.size;
  }
  for (const auto& [id, r] : running_) {
    users_[r.user].fixed_wait -= r.wait;
    users_[r.user].area -= static_cast<double>(r.duration) * r.size;
  }
  capacity_ = capacity;
  now_ = now;
  unconfirmed_ = 0;
  list_.clear();
  listed_.clear();
  running_.clear();
  running_by_end_.clear();
  movable_.clear();
  movable_at_.clear();
  base_dirty_ = true;
  changed();
}

void TabuPlan::compress() {
  journal_.clear();
  scan_.assign(base());
  replay(list_, 0, scan_, &journal_);
  apply_to_users(journal_);
  if (!journal_.empty()) changed();
  journal_.clear();
}

void TabuPlan::apply_to_users(const std::vector<Move>& moves) {
  for (const Move& m : moves) users_[m.user].planned_wait += m.to - m.from;
}

bool TabuPlan::start_planned(JobId id, Time start) {
  const auto it = std::find_if(list_.begin(), list_.end(), [id](const Entry& e) { return e.id == id; });
  if (it == list_.end() || !it->starting || it->start != start) return false;
  const Entry e = *it;
  if (!e.confirmed) --unconfirmed_;
  list_.erase(it);
  listed_.erase(id);
  drop_movable(id);
  UserTotals& u = users_[e.user];
  u.planned_wait -= e.start - e.submit;
  const Time wait = std::max<Time>(0, start - e.submit);
  u.fixed_wait += wait;
  // The units the list gave it become the running job's: the starts of the
  // rest of the list are unchanged.
  running_[id] = Running{e.user, e.size, start, start + e.duration, e.duration, wait};
  running_by_end_.insert({start + e.duration, id});
  base_dirty_ = true;
  changed();
  return true;
}

const TabuPlan::Entry* TabuPlan::find(JobId id) const {
  if (!listed_.count(id)) return nullptr;
  for (const Entry& e : list_) {
    if (e.id == id) return &e;
  }
  return nullptr;
}

std::vector<PlannedStart> TabuPlan::starts() const {
  std::vector<PlannedStart> out;
  out.reserve(list_.size());
  for (const Entry& e : list_) out.push_back({e.id, e.start});
  return out;
}

std::vector<JobId> TabuPlan::take_due(Time now) {
  // Starts do not decrease along the list: the due jobs are a prefix.
  std::vector<JobId> due;
  for (Entry& e : list_) {
    if (e.start > now) break;
    if (e.starting) continue;
    e.starting = true;
    drop_movable(e.id);
    due.push_back(e.id);
  }
  return due;
}

Time TabuPlan::first_start() const { return list_.empty() ? kTimeInfinity : list_.front().start; }

TabuCriteria TabuPlan::criteria() const {
  TabuCriteria c;
  std::int64_t wait = 0, duration = 0;
  double bsd = 0;
  for (const Entry& e : list_) {
    wait += e.start - e.submit;
    duration += e.duration;
    bsd += job_bsd(e.submit, e.duration, e.start);
  }
  const double n = static_cast<double>(std::max<std::size_t>(1, list_.size()));
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
  for (const Entry& e : list_) {
    wait_sum_ += e.start - e.submit;
    duration_sum_ += e.duration;
    bsd_sum_ += job_bsd(e.submit, e.duration, e.start);
  }
  nuwt_sum_ = 0;
  for (const UserTotals& u : users_) nuwt_sum_ += nuwt(u, 0);
  current_ = criteria();
}

TabuPlan::Delta TabuPlan::evaluate(const std::vector<Move>& moves, TabuCriteria& candidate) {
  Delta d;
  for (const Move& m : moves) {
    d.wait += m.to - m.from;
    // One division of an exact integer difference: equal and opposite
    // changes of equal jobs cancel exactly.
    d.bsd += static_cast<double>(std::max<Time>(1, m.to + m.duration - m.submit) -
                                 std::max<Time>(1, m.from + m.duration - m.submit)) /
             static_cast<double>(std::max<Time>(1, m.duration));
    if (user_delta_[m.user] == 0) touched_.push_back(m.user);
    user_delta_[m.user] += m.to - m.from;
  }
  // F = S2 - S1^2 / u with S1, S2 the sum of NUWT and of its squares; only
  // the users whose planned wait changed contribute to the difference.
  double ds1 = 0, ds2 = 0;
  for (const int u : touched_) {
    const std::int64_t delta = user_delta_[u];
    user_delta_[u] = 0;
    if (delta == 0) continue;
    const double before = nuwt(users_[u], 0);
    const double after = nuwt(users_[u], delta);
    ds1 += after - before;
    ds2 += after * after - before * before;
  }
  touched_.clear();
  d.nuwt_sum = ds1;
  const double n = static_cast<double>(std::max<std::size_t>(1, list_.size()));
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
  advance_to(now);
  const auto at = static_cast<std::size_t>(
      std::find_if(list_.begin(), list_.end(), [id](const Entry& e) { return e.id == id; }) - list_.begin());
  if (at == list_.size()) return MoveResult::Rejected;
  Entry moved = list_[at];

  // Remove, compress, re-insert at the earliest start (Algorithm 2, 10-12),
  // on a copy of the list: the current plan stays as it is until the move is
  // kept.
  candidate_.assign(list_.begin(), list_.begin() + static_cast<std::ptrdiff_t>(at));
  candidate_.insert(candidate_.end(), list_.begin() + static_cast<std::ptrdiff_t>(at) + 1, list_.end());
  // The jobs before the removed one keep their starts: replay from there.
  journal_.clear();
  free_before(at, scan_);
  replay(candidate_, at, scan_, &journal_);
  // Safe mode: once the job could only start after its promise, the move
  // is refused; the insertion pass stops there.
  const auto [to, s] = earliest_insert(candidate_, moved.size, moved.duration, safe ? moved.promise : kTimeInfinity);
  if (safe && s > moved.promise) return MoveResult::Unsafe;
  if (s != moved.start) journal_.push_back({moved.user, moved.submit, moved.duration, moved.start, s});
  if (journal_.empty()) return MoveResult::Rejected;  // the same plan: scores 0

  TabuCriteria candidate;
  const Delta d = evaluate(journal_, candidate);
  if (tabu_improvement(current_, candidate) <= kTabuAcceptEpsilon) return MoveResult::Rejected;
  moved.start = s;
  candidate_.insert(candidate_.begin() + static_cast<std::ptrdiff_t>(to), moved);
  list_.swap(candidate_);
  apply_to_users(journal_);
  current_ = candidate;
  wait_sum_ += d.wait;
  bsd_sum_ += d.bsd;
  nuwt_sum_ += d.nuwt_sum;
  changed();
  return MoveResult::Kept;
}

std::int64_t TabuPlan::search(Time now, std::int64_t iterations, std::size_t tabu_size, bool safe,
                              std::mt19937_64& rng, std::chrono::steady_clock::time_point deadline,
                              TabuSearchStats& stats) {
  if (movable_.size() < 2) return 0;
  advance_to(now);
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
  // A fixed point of the replay, in order, not in the past.
  std::vector<Entry> replayed = list_;
  FreeAt free;
  free.assign(base());
  replay(replayed, 0, free, nullptr);
  Time previous = now_;
  std::vector<std::int64_t> planned_wait(users_.size(), 0);
  for (std::size_t i = 0; i < list_.size(); ++i) {
    const Entry& e = list_[i];
    if (replayed[i].start != e.start || e.start < previous || !listed_.count(e.id)) return false;
    previous = e.start;
    planned_wait[e.user] += e.start - e.submit;
  }
  if (listed_.size() != list_.size()) return false;
  for (std::size_t u = 0; u < users_.size(); ++u) {
    if (planned_wait[u] != users_[u].planned_wait) return false;
  }
  // The units are never overbooked.
  Planner check(capacity_, now_);
  try {
    for (const auto& [id, r] : running_) {
      if (r.end > now_) check.reserve(now_, r.end - now_, r.size);
    }
    for (const Entry& e : list_) check.reserve(e.start, e.duration, e.size);
  } catch (const std::logic_error&) {
    return false;
  }
  return true;
}

// ---------------------------------------------------------------------------
// TabuPolicy

TabuPolicy::TabuPolicy(Options options, RunMode mode, std::string label)
    : options_(options),
      mode_(mode),
      label_(std::move(label)),
      rng_(options.seed),
      next_search_(options.period > 0 ? options.period : kTimeInfinity) {}

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
  // Re-plan the old reservations in their old order, keeping their promises
  // (one replay: O(n), where n insertions would be O(n^2)); the queue pass
  // in step() plans the rest.
  std::vector<std::pair<JobId, Time>> holders;
  for (const TabuPlan::Entry& e : plan_.entries()) holders.push_back({e.id, e.promise});
  plan_.reset(snapshot.total_units, now);
  for (const RunningJob& r : snapshot.running) {
    if (!r.suspended) plan_.add_running(r.job, r.start, r.expected_end(now));
  }
  std::unordered_map<JobId, const Job*> queued;
  queued.reserve(snapshot.queue.size());
  for (const Job& j : snapshot.queue) queued[j.id] = &j;
  for (const auto& [id, promise] : holders) {
    const auto it = queued.find(id);
    if (it != queued.end()) plan_.append(*it->second, now, promise);
  }
  plan_.compress();
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
      plan_.compress();
    }
  }

  for (const Job& job : snapshot.queue) {
    if (!plan_.contains(job.id)) plan_.insert(job, now);
  }

  if (options_.period > 0 && now >= next_search_) {
    if (plan_.movable().size() >= 2) {
      ++stats_.searches;
      // The wall-clock cap applies live only: a simulation counts
      // iterations, so every run is reproducible.
      auto deadline = std::chrono::steady_clock::time_point::max();
      if (mode_ == RunMode::Live && options_.time_limit > 0) {
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
  plan_.confirm_promises();

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
  for (const TabuPlan::Entry& e : plan_.entries()) {
    if (!e.starting) out.push_back({e.id, e.start});
  }
  return out;
}

const ParamTable& tabu_parameters() {
  static const TabuPolicy::Options d;
  static const ParamTable table = {
      Param::flag("safe", d.safe, "never move a job past its first reservation"),
      Param::integer("period", d.period, 0, 1000000000, "seconds between searches (0: never)"),
      Param::integer("budget", d.budget, 0, 1000000, "iterations per waiting job"),
      Param::integer("tabu", static_cast<long long>(d.tabu_size), 0, 1000000, "tabu list length"),
      Param::integer("seed", static_cast<long long>(d.seed), 0, 1LL << 62, "random seed"),
      Param::number("time-limit", d.time_limit, 0, 3600,
                    "wall-clock seconds per search, live partitions only (0: none)"),
  };
  return table;
}

PolicyPtr make_tabu(const ParamValues& values, RunMode mode) {
  TabuPolicy::Options o;
  o.safe = values.flag("safe");
  o.period = values.integer("period");
  o.budget = values.integer("budget");
  o.tabu_size = static_cast<std::size_t>(values.integer("tabu"));
  o.seed = static_cast<std::uint64_t>(values.integer("seed"));
  o.time_limit = values.number("time-limit");
  return std::make_unique<TabuPolicy>(o, mode, values.canonical());
}

}  // namespace los
