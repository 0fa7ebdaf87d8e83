#include "policies/tabu_plan.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "model/job_id_index.hpp"
#include "planner/running_profile.hpp"

namespace los {

TabuPlan::TabuPlan(int capacity, Time origin) : capacity_(capacity), now_(origin), profile_(capacity, origin) {}

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
    std::int64_t held = 0;
    for (const auto& [end, id] : running_by_end_) {
      const int size = running_.at(id).size;
      base_.hold(size, end);
      if (end > now_) held += size;
    }
    overbooked_ = held > capacity_;
    base_dirty_ = false;
  }
  return base_;
}

const Planner& TabuPlan::profile() const {
  if (profile_dirty_) {
    profile_.reset(capacity_, now_);
    std::vector<Planner::RangeAdd> held;
    held.reserve(running_.size() + list_.size());
    for (const auto& [id, r] : running_) {
      if (r.end > now_) held.push_back({now_, r.end, -r.size});
    }
    for (const Entry& e : list_) held.push_back({std::max(e.start, now_), e.start + e.duration, -e.size});
    profile_.add_all(held);
    profile_dirty_ = false;
    ++profile_builds_;
  }
  return profile_;
}

void TabuPlan::advance_to(Time now) {
  if (now <= now_) return;
  now_ = now;
  base_dirty_ = true;
  marks_valid_ = false;
  // The profile before now is gone either way; what follows is the same.
  if (!profile_dirty_) profile_.advance_to(now);
}

void TabuPlan::add_running(const Job& job, Time start, Time end) {
  const int u = score_.user_index(job.user);
  const Time d = planned_duration(job.estimate);
  const Time wait = std::max<Time>(0, start - job.submit);
  running_[job.id] = Running{u, job.size, start, end, d, wait};
  running_by_end_.insert({end, job.id});
  score_.add_fixed_wait(u, wait);
  score_.add_area(u, static_cast<double>(d) * job.size);
  base_dirty_ = true;
  shift_profile(now_, end - now_, job.size, -1);
  if (!list_.empty()) replayed_ = false;  // fewer units for the list
}

bool TabuPlan::end_running(JobId id, Time now, bool& freed) {
  const auto it = running_.find(id);
  if (it == running_.end()) return false;
  const Running r = it->second;
  running_by_end_.erase({r.end, id});
  running_.erase(it);
  if (r.end > now) freed = true;
  // The area counted the estimate while the job ran; now its run time is known.
  score_.add_area(r.user, static_cast<double>((now - r.start) - r.duration) * r.size);
  base_dirty_ = true;
  marks_valid_ = false;
  if (r.end > now_) {
    shift_profile(now_, r.end - now_, r.size, +1);
    if (!list_.empty()) replayed_ = false;  // units free early: compress() moves jobs
  }
  return true;
}

void TabuPlan::end_missing(std::span<const RunningJob> running, Time now) {
  JobIdIndex still(running.size());
  for (const RunningJob& r : running) still.insert(r.job.id);
  std::vector<JobId> gone;
  for (const auto& [id, r] : running_) {
    if (!still.contains(id)) gone.push_back(id);
  }
  bool freed = false;
  for (const JobId id : gone) end_running(id, now, freed);
}

Time TabuPlan::first_running_end() const {
  return running_by_end_.empty() ? kTimeInfinity : running_by_end_.begin()->first;
}

bool TabuPlan::extend_overruns(Time now) {
  bool extended = false;
  while (!running_by_end_.empty() && running_by_end_.begin()->first <= now) {
    const JobId id = running_by_end_.begin()->second;
    running_by_end_.erase(running_by_end_.begin());
    Running& r = running_.at(id);
    r.end = now + 1;
    running_by_end_.insert({r.end, id});
    shift_profile(now_, r.end - now_, r.size, -1);  // its units were free from its old end on
    extended = true;
  }
  if (extended) {
    base_dirty_ = true;
    marks_valid_ = false;
    if (!list_.empty()) replayed_ = false;
  }
  return extended;
}

void TabuPlan::order_movable_as_listed() {
  std::size_t at = 0;
  for (const Entry& e : list_) {
    if (e.starting) continue;
    movable_[at] = e.id;
    movable_at_[e.id] = at;
    ++at;
  }
}

void TabuPlan::replay(std::vector<Entry>& list, std::size_t from, FreeAt& free,
                      std::vector<TabuStartChange>* journal) const {
  for (std::size_t i = from; i < list.size(); ++i) {
    Entry& e = list[i];
    const Time s = free.kth(e.size);
    if (s != e.start) {
      if (journal) journal->push_back({e.user, e.submit, e.duration, e.start, s, e.size});
      e.start = s;
    }
    free.place(e.size, s + e.duration);
  }
}

void TabuPlan::replay_probing(std::size_t until, int size, Time stop_past) {
  const std::size_t n = candidate_.size();
  while (probed_to_ < until) {
    Entry& e = candidate_[probed_to_++];
    const FreeAt::KthOfTwo k = scan_.kth_of_two(e.size, size);
    probe_start_.push_back(k.b);
    probe_fits_.push_back(k.sum <= k.a ? 1 : 0);
    if (k.a != e.start) {
      journal_.push_back({e.user, e.submit, e.duration, e.start, k.a, e.size});
      e.start = k.a;
    }
    scan_.place(e.size, k.a + e.duration);
    if (k.b > stop_past) return;
  }
  // One start per replayed position, and one more once the end is reached.
  if (probed_to_ == n && probe_start_.size() == probe_fits_.size()) probe_start_.push_back(scan_.kth(size));
}

std::size_t TabuPlan::mark_spacing(std::size_t n, std::size_t buckets, std::size_t reads) {
  // A rebuild copies n / e marks of B buckets; each read until the next one
  // steps e / 2 positions on average from its mark. A bucket copies in
  // about 1/32 of a place() (a memcpy against a bucket search), so the sum
  // n B / (32 e) + R e / 2 is least at e = sqrt(n B / (16 R)). Simulations
  // read a list ~2n times between rebuilds (e is 2 in most of HPC2N's
  // rebuilds; a fixed 32 took 7-13 % more of its run); a live search capped
  // in time reads it far fewer times, so long lists on large machines keep
  // wide spacing. The marks' memory stays within kMaxMarkBuckets buckets.
  constexpr std::size_t kMaxMarkBuckets = std::size_t{1} << 22;  // 64 MB
  const double b = static_cast<double>(std::max<std::size_t>(buckets, 1));
  const double r = static_cast<double>(std::max<std::size_t>(reads, 1));
  auto e = static_cast<std::size_t>(std::lround(std::sqrt(static_cast<double>(n) * b / (16 * r))));
  e = std::max(e, static_cast<std::size_t>(static_cast<double>(n) * b / kMaxMarkBuckets) + 1);
  return std::clamp<std::size_t>(e, 2, std::max<std::size_t>(n, 2));
}

void TabuPlan::free_before(std::size_t pos, FreeAt& free) const {
  if (!marks_valid_) {
    // The last rebuild's reads and marks stand for the next ones (the
    // first rebuild expects a simulation's search: 2n reads).
    const std::size_t n = list_.size();
    if (mark_buckets_ == 0) {
      mark_buckets_ = base().buckets();
      mark_reads_ = 2 * n;
    }
    mark_every_ = mark_spacing(n, mark_buckets_, mark_reads_);
    mark_reads_ = 0;
    marks_.resize(n / mark_every_ + 1);
    slack_.resize(n);
    fixed_point_ = true;
    free.assign(base());
    std::size_t held = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const Entry& e = list_[i];
      if (i % mark_every_ == 0) {
        marks_[i / mark_every_].assign(free);
        held += free.buckets();
      }
      slack_[i] = free.units_by(e.start) - e.size;
      if (free.kth(e.size) != e.start) fixed_point_ = false;
      free.place(e.size, e.start + e.duration);
    }
    if (n % mark_every_ == 0) marks_[n / mark_every_].assign(free);
    mark_buckets_ = std::max<std::size_t>(1, held / marks_.size());
    marks_valid_ = true;
  }
  ++mark_reads_;
  free.assign(marks_[pos / mark_every_]);
  for (std::size_t i = pos - pos % mark_every_; i < pos; ++i)
    free.place(list_[i].size, list_[i].start + list_[i].duration);
}

std::pair<std::size_t, Time> TabuPlan::insertion_after_removal(std::size_t at, int size, Time duration,
                                                               Time give_up) {
  // Without a give-up the replay went to the end: no position read needs it
  // taken on (a separate loop, as that check costs the scan a third more).
  return give_up == kTimeInfinity ? scan_after_removal<false>(at, size, duration, give_up)
                                  : scan_after_removal<true>(at, size, duration, give_up);
}

template <bool kLazy>
std::pair<std::size_t, Time> TabuPlan::scan_after_removal(std::size_t at, int size, Time duration, Time give_up) {
  // earliest_insert() steps a FreeAt through the list to learn two things
  // per position m: X's start s_m there, and ok(m), whether X placed before m
  // leaves m's start alone. Both are known here without stepping: ok(m) is
  // size <= slack_[m] before the removed job (the prefix is list_'s) and
  // probe_fits_ after it; s_m is probe_start_ after it and a kth() from the
  // nearest mark before it. earliest_insert() answers the first position i
  // whose first failing m lies at or after the first job starting at or
  // after s_i + duration. On a fixed point, starts and s_m never decrease
  // along the list (a placed job frees its units no earlier than it takes
  // them), so position i fails exactly when its first failing f has start_f
  // < s_i + duration; and when start_f < s_j + duration for an earlier
  // tried j, it fails without computing s_i (s_i >= s_j). Most positions
  // fail that way (on HPC2N, 127 of 132 tried positions per move). A
  // give-up found at a position skipped so is found at the next one tried:
  // its start is no smaller.
  const std::vector<Entry>& list = candidate_;
  const std::size_t n = list.size();
  std::size_t probed = probed_to_;  // probed_to_, kept in a register
  const auto probe_through = [&](std::size_t until) {
    replay_probing(until, size, kTimeInfinity);
    probed = probed_to_;
  };
  const auto fits = [&](std::size_t m) {
    if (m < at) return size <= slack_[m];
    if (kLazy && m >= probed) probe_through(m + 1);
    return probe_fits_[m - at] != 0;
  };
  std::size_t scanned = n + 1;  // prefix_scan_ holds the free times before this position
  const auto start_at = [&](std::size_t i) {
    if (i >= at) {
      if (kLazy && (i >= probed || i == n)) probe_through(std::min(i + 1, n));
      return probe_start_[i - at];
    }
    // From i's mark, or on from the last position tried when that is
    // nearer: the prefix is stepped through at most once.
    if (scanned > i || i - scanned > i % mark_every_) {
      free_before(i, prefix_scan_);
    } else {
      for (; scanned < i; ++scanned) prefix_scan_.place(list_[scanned].size, list_[scanned].start + list_[scanned].duration);
    }
    scanned = i;
    return prefix_scan_.kth(size);
  };
  std::size_t i = 0;
  std::size_t f = 0;  // the first position at or after i where X does not fit
  bool bounded = false;
  Time lower = 0;  // the start at the last position tried: s_i is no smaller
  for (;;) {
    // After the removed job a position's start is a look-up: a safe move
    // gives up at the first position tried past its promise, as the scan
    // does, and the replay need not go further.
    if (kLazy && i >= at) {
      const Time s = start_at(i);
      if (s > give_up) return {n, s};
    }
    f = std::max(f, i);
    while (f < n && fits(f)) ++f;
    if (!bounded || f == n || list[f].start >= lower + duration) {
      const Time s = start_at(i);
      if (s > give_up) return {n, s};  // every later position starts later still
      if (f == n || list[f].start >= s + duration) {
        if (kLazy && probed < n) probe_through(n);  // the rest of the journal
        return {i, s};
      }
      bounded = true;
      lower = s;
    }
    i = f + 1;
  }
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

bool TabuPlan::profile_insertion() const {
  (void)base();  // first: it decides overbooked_
  return replayed_ && !overbooked_ && first_start() >= now_;
}

std::pair<std::size_t, Time> TabuPlan::insertion_by_profile(int size, Time duration) const {
  // What earliest_insert(list_, size, duration) returns, read off the
  // availability profile: (a, E), where E is the profile's earliest start
  // of size x duration from now and a the number of jobs starting before E.
  //
  // Why. The list is a fixed point of the replay, so starts S_0 <= S_1 <= ...
  // are >= now, and every free time before position m is >= S_{m-1}: each
  // job takes the units free first, all free by its start. For t >= S_{m-1}
  // a unit is free by t unless the last job given it (running, or listed
  // before m) ends after t, so the number free by t is
  //   P_m(t) = capacity - sum of sizes of those jobs ending after t,
  // non-decreasing in t, equal to the profile's free(t) while t < S_m. X (k
  // units, duration d) at position i starts at s_i, the first t >= S_{i-1}
  // with P_i(t) >= k. The scan's test at job m (S_m < s_i + d), "the
  // (k + size_m)-th free time before m is <= S_m", is P_m(S_m) - size_m
  // >= k; along jobs sharing a start this slack falls, and for the last of
  // them it is free(S_m). So position i is accepted iff
  //   (i = n or S_i >= s_i) and free >= k on [s_i, s_i + d)
  // (the minimum of free over the window is at s_i or at a start in it,
  // and every start in (s_i, s_i + d) is some S_m with m >= i). Hence
  // s_i >= E for an accepted i, and i < a is never accepted (S_i < E).
  // At i = a: S_{a-1} < E <= S_a, P_a = free on [S_{a-1}, S_a), so P_a(E)
  // >= free(E) >= k; and a t in [S_{a-1}, E) with P_a(t) >= k would fit X
  // (free = P_a >= k up to S_a, and [S_a, t + d) lies in [E, E + d)),
  // against E's minimality. So s_a = E, position a is accepted, and the
  // scan returns (a, E). The new list is a fixed point again: nobody is
  // delayed (slack) and nobody moves earlier (X only takes units).
  // Tested against earliest_insert on random plans (TabuInsertion.*).
  const Time s = profile().earliest_start(size, duration, now_);
  const auto at = std::partition_point(list_.begin(), list_.end(), [s](const Entry& e) { return e.start < s; });
  return {static_cast<std::size_t>(at - list_.begin()), s};
}

TabuPlan::Entry TabuPlan::make_entry(const Job& job, Time start, Time promise) {
  const Time d = planned_duration(job.estimate);
  const int u = score_.user_index(job.user);
  const bool carried = promise < kTimeInfinity;
  if (!carried) ++unconfirmed_;
  listed_.insert(job.id);
  add_movable(job.id);
  score_.add_planned_wait(u, start - job.submit);
  score_.add_area(u, static_cast<double>(d) * job.size);
  return Entry{job.id, u, job.size, job.submit, d, start, carried ? promise : start, false, carried};
}

Time TabuPlan::insert(const Job& job, Time now, Time promise) {
  advance_to(now);
  return insert_now(job, promise, profile_insertion());
}

Time TabuPlan::insert_now(const Job& job, Time promise, bool by_profile) {
  if (job.size > capacity_ || job.size <= 0 || listed_.count(job.id)) return kTimeInfinity;
  const Time d = planned_duration(job.estimate);
  const auto [at, s] = by_profile ? insertion_by_profile(job.size, d) : earliest_insert(list_, job.size, d);
  if (s >= kTimeInfinity) return kTimeInfinity;
  list_.insert(list_.begin() + static_cast<std::ptrdiff_t>(at), make_entry(job, s, promise));
  shift_profile(s, d, job.size, -1);
  return s;
}

void TabuPlan::insert_all(std::span<const Job> queue, Time now) {
  StepBudget unlimited;
  insert_all(queue, now, unlimited);
}

void TabuPlan::insert_all(std::span<const Job> queue, Time now, StepBudget& budget, bool fill_when_cut) {
  advance_to(now);
  std::size_t arrivals = 0;
  for (const Job& job : queue) arrivals += !listed_.count(job.id);
  if (arrivals == 0) return;
  // A stale profile costs a rebuild (n updates of the profile); below a few
  // arrivals their scans (n cheap steps each) cost less. Same answers.
  if (!profile_insertion() || (profile_dirty_ && arrivals < kRebuildForArrivals)) {
    for (std::size_t i = 0; i < queue.size(); ++i) {
      const Job& job = queue[i];
      if (job.size > capacity_ || job.size <= 0 || listed_.count(job.id)) continue;
      if (!budget.take()) {
        // The fill reads the profile: not while the running jobs overbook
        // the machine or the list is not the replay's fixed point.
        if (fill_when_cut && profile_insertion()) {
          std::vector<Entry> staged;
          profile();
          fill_now(queue.subspan(i), staged);
          merge_staged(staged);
        }
        break;
      }
      insert_now(job, kTimeInfinity, false);
    }
    return;
  }
  // Each job goes before the first job starting at or after its start E
  // (insertion_by_profile), the ones inserted before it included. Its start
  // depends only on the profile, which follows every insertion; the list
  // is merged once at the end: by start, and among equal starts the later
  // insertion first, before the jobs already listed.
  // Within this loop the profile only loses units (each insertion takes
  // its own), so a search may start where one for a shape no larger in
  // either dimension ended (planner/start_bound.hpp): the same start, found
  // without walking the plan from now (a re-plan of 100,000 jobs).
  std::vector<Entry> staged;
  profile();
  if (profile_builds_ != bound_builds_ || profile_.additions() != bound_additions_) {
    insertion_bound_.reset();
    if (arrivals >= kSeedForArrivals) insertion_bound_.seed(profile_, capacity_);
  }
  std::size_t reached = 0;
  for (; reached < queue.size(); ++reached) {
    const Job& job = queue[reached];
    if (job.size > capacity_ || job.size <= 0 || listed_.count(job.id)) continue;
    if (!budget.take()) break;
    const Time d = planned_duration(job.estimate);
    const Time s = profile_.earliest_start(job.size, d, std::max(now_, insertion_bound_.lower(job.size, d)));
    if (s >= kTimeInfinity) continue;
    insertion_bound_.record(job.size, d, s);
    staged.push_back(make_entry(job, s, kTimeInfinity));
    shift_profile(s, d, job.size, -1);
  }
  if (fill_when_cut && reached < queue.size()) fill_now(queue.subspan(reached), staged);
  bound_builds_ = profile_builds_;
  bound_additions_ = profile_.additions();
  merge_staged(staged);
}

void TabuPlan::merge_staged(std::vector<Entry>& staged) {
  if (staged.empty()) return;
  std::reverse(staged.begin(), staged.end());
  std::stable_sort(staged.begin(), staged.end(), [](const Entry& a, const Entry& b) { return a.start < b.start; });
  // Merge from the back: the listed jobs before the first insertion stay put.
  std::size_t listed = list_.size();
  std::size_t next = staged.size();
  std::size_t to = listed + staged.size();
  list_.resize(to);
  while (next > 0) {
    if (listed > 0 && staged[next - 1].start <= list_[listed - 1].start) {
      list_[--to] = list_[--listed];
    } else {
      list_[--to] = staged[--next];
    }
  }
}

void TabuPlan::fill_now(std::span<const Job> rest, std::vector<Entry>& staged) {
  // What the budget did not reach may still start now if it fits for its
  // whole planned duration: it takes only units free now, so no listed
  // job's start moves (the list stays a fixed point), and it goes before
  // every job starting at now or later, as its insertion would. The jobs it
  // passes over are inserted in later steps, behind it.
  std::int64_t free_now = profile_.free_at(now_);
  for (const Job& job : rest) {
    if (free_now <= 0) break;
    if (job.size > free_now || job.size <= 0 || listed_.count(job.id)) continue;
    const Time d = planned_duration(job.estimate);
    if (profile_.min_free(now_, now_ + d) < job.size) continue;
    staged.push_back(make_entry(job, now_, kTimeInfinity));
    shift_profile(now_, d, job.size, -1);
    free_now -= job.size;
  }
}

TabuPlan::Entry TabuPlan::appended_entry(const Job& job, Time now, Time promise) {
  const Time d = planned_duration(job.estimate);
  const int u = score_.user_index(job.user);
  score_.add_planned_wait(u, now - job.submit);
  score_.add_area(u, static_cast<double>(d) * job.size);
  // Starts at `now` until the replay (compress) gives it its place.
  return Entry{job.id, u, job.size, job.submit, d, now, promise, false, true};
}

void TabuPlan::unlist(JobId id) {
  listed_.erase(id);
  movable_at_.erase(id);
}

bool TabuPlan::append(const Job& job, Time now, Time promise) {
  if (job.size > capacity_ || job.size <= 0 || listed_.count(job.id)) return false;
  advance_to(now);
  list_.push_back(appended_entry(job, now, promise));
  listed_.insert(job.id);
  add_movable(job.id);
  changed();
  replayed_ = false;
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
  score_.add_planned_wait(it->user, -(it->start - it->submit));
  score_.add_area(it->user, -static_cast<double>(it->duration) * it->size);
  shift_profile(it->start, it->duration, it->size, +1);
  list_.erase(it);
  listed_.erase(id);
  replayed_ = false;  // later jobs may start earlier: compress()
  return true;
}

void TabuPlan::forget_totals() {
  for (const Entry& e : list_) {
    score_.add_planned_wait(e.user, -(e.start - e.submit));
    score_.add_area(e.user, -static_cast<double>(e.duration) * e.size);
  }
  for (const auto& [id, r] : running_) {
    score_.add_fixed_wait(r.user, -r.wait);
    score_.add_area(r.user, -static_cast<double>(r.duration) * r.size);
  }
}

void TabuPlan::reset(int capacity, Time now) {
  forget_totals();
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
  replayed_ = true;
}

void TabuPlan::reset_keeping(int capacity, Time now, std::span<const KeptJob> kept) {
  // In place only when every kept job is listed, in list order.
  std::size_t at = 0;
  for (const KeptJob& k : kept) {
    while (at < list_.size() && list_[at].id != k.job->id) ++at;
    if (at == list_.size()) {
      reset(capacity, now);
      for (const KeptJob& j : kept) append(*j.job, now, j.promise);
      return;
    }
    ++at;
  }
  forget_totals();
  capacity_ = capacity;
  now_ = now;
  unconfirmed_ = 0;
  running_.clear();
  running_by_end_.clear();
  // The new list, as append() writes it; the jobs that left (or that
  // append() would refuse on the new capacity) leave the id tables.
  std::size_t to = 0;
  at = 0;
  movable_.clear();
  for (const KeptJob& k : kept) {
    const Job& job = *k.job;
    while (list_[at].id != job.id) unlist(list_[at++].id);
    ++at;
    if (job.size > capacity_ || job.size <= 0) {
      unlist(job.id);
      continue;
    }
    list_[to++] = appended_entry(job, now, k.promise);
    add_movable(job.id);
  }
  for (; at < list_.size(); ++at) unlist(list_[at].id);
  list_.resize(to);
  base_dirty_ = true;
  changed();
  replayed_ = list_.empty();
}

void TabuPlan::compress() {
  journal_.clear();
  scan_.assign(base());
  replay(list_, 0, scan_, &journal_);
  score_.apply(journal_);
  if (!journal_.empty()) shift_profile(journal_);
  journal_.clear();
  replayed_ = true;
}

void TabuPlan::shift_profile(const std::vector<TabuStartChange>& changes) {
  marks_valid_ = false;
  if (profile_dirty_) return;
  // Two updates per change; past an eighth of the list, leave it stale: it
  // is rebuilt only if a burst of arrivals needs it (insert_all()).
  if (16 * changes.size() > list_.size()) {
    profile_dirty_ = true;
    return;
  }
  for (const TabuStartChange& c : changes) {
    shift_profile(c.from, c.duration, c.size, +1);
    shift_profile(c.to, c.duration, c.size, -1);
  }
}

bool TabuPlan::start_planned(JobId id, Time start) {
  const auto it = std::find_if(list_.begin(), list_.end(), [id](const Entry& e) { return e.id == id; });
  if (it == list_.end() || !it->starting || it->start != start) return false;
  const Entry e = *it;
  if (!e.confirmed) --unconfirmed_;
  list_.erase(it);
  listed_.erase(id);
  drop_movable(id);
  score_.add_planned_wait(e.user, -(e.start - e.submit));
  const Time wait = std::max<Time>(0, start - e.submit);
  score_.add_fixed_wait(e.user, wait);
  // The units the list gave it become the running job's: the starts of the
  // rest of the list are unchanged.
  running_[id] = Running{e.user, e.size, start, start + e.duration, e.duration, wait};
  running_by_end_.insert({start + e.duration, id});
  base_dirty_ = true;
  marks_valid_ = false;
  // The profile: the reservation becomes the running job, from now on.
  if (e.start > now_) {
    shift_profile(e.start, e.duration, e.size, +1);
    shift_profile(now_, e.start + e.duration - now_, e.size, -1);
    replayed_ = false;  // its units are held from now, not from its start
  }
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

TabuWaitingSums TabuPlan::waiting_sums() const {
  TabuWaitingSums sums;
  for (const Entry& e : list_) sums.add(e.submit, e.duration, e.start);
  return sums;
}

TabuCriteria TabuPlan::criteria() const { return score_.criteria(waiting_sums()); }

void TabuPlan::prepare() { score_.prepare(waiting_sums()); }

std::size_t TabuPlan::remove_for_move(JobId id, bool safe, bool& probed) {
  const auto at = static_cast<std::size_t>(
      std::find_if(list_.begin(), list_.end(), [id](const Entry& e) { return e.id == id; }) - list_.begin());
  if (at == list_.size()) return at;
  // Remove and compress (Algorithm 2, 10-11) on a copy of the list: the
  // current plan stays as it is until the move is kept.
  candidate_.assign(list_.begin(), list_.begin() + static_cast<std::ptrdiff_t>(at));
  candidate_.insert(candidate_.end(), list_.begin() + static_cast<std::ptrdiff_t>(at) + 1, list_.end());
  // The jobs before the removed one keep their starts: replay from there.
  journal_.clear();
  free_before(at, scan_);
  probed = fixed_point_ && list_[at].size > 0;
  if (!probed) {
    replay(candidate_, at, scan_, &journal_);
    return at;
  }
  probe_start_.clear();
  probe_fits_.clear();
  probed_to_ = at;
  // A safe move stops where the job would start after its promise: the
  // insertion gives up there unless it reads further (replay_probing()).
  replay_probing(candidate_.size(), list_[at].size, safe ? list_[at].promise : kTimeInfinity);
  return at;
}

TabuPlan::MoveInsertions TabuPlan::move_insertions(JobId id, Time now, bool safe) {
  advance_to(now);
  MoveInsertions out;
  const std::size_t at = remove_for_move(id, safe, out.probed);
  if (at == list_.size()) return out;
  const Entry& moved = list_[at];
  out.give_up = safe ? moved.promise : kTimeInfinity;
  if (out.probed) {
    out.by_probe = insertion_after_removal(at, moved.size, moved.duration, out.give_up);
    replay(candidate_, probed_to_, scan_, &journal_);  // the rest, after a give-up
  }
  out.by_scan = earliest_insert(candidate_, moved.size, moved.duration, out.give_up);
  return out;
}

TabuPlan::MoveResult TabuPlan::try_move(JobId id, Time now, bool safe) {
  advance_to(now);
  bool probed = false;
  const std::size_t at = remove_for_move(id, safe, probed);
  if (at == list_.size()) return MoveResult::Rejected;
  Entry moved = list_[at];
  // Re-insert at the earliest start (Algorithm 2, 12). Safe mode: once the
  // job could only start after its promise, the move is refused; the
  // insertion pass stops there.
  const Time give_up = safe ? moved.promise : kTimeInfinity;
  const auto [to, s] = probed ? insertion_after_removal(at, moved.size, moved.duration, give_up)
                              : earliest_insert(candidate_, moved.size, moved.duration, give_up);
  if (safe && s > moved.promise) return MoveResult::Unsafe;
  if (s != moved.start) journal_.push_back({moved.user, moved.submit, moved.duration, moved.start, s, moved.size});
  if (journal_.empty()) return MoveResult::Rejected;  // the same plan: scores 0

  TabuCriteria candidate;
  const TabuScore::Delta d = score_.evaluate(journal_, list_.size(), candidate);
  if (tabu_improvement(score_.current(), candidate) <= kTabuAcceptEpsilon) return MoveResult::Rejected;
  moved.start = s;
  candidate_.insert(candidate_.begin() + static_cast<std::ptrdiff_t>(to), moved);
  list_.swap(candidate_);
  score_.accept(journal_, d, candidate);
  shift_profile(journal_);
  return MoveResult::Kept;
}

bool TabuPlan::consistent() const {
  // A fixed point of the replay, in order, not in the past.
  std::vector<Entry> replayed = list_;
  FreeAt free;
  free.assign(base());
  replay(replayed, 0, free, nullptr);
  Time previous = now_;
  std::vector<std::int64_t> planned_wait(score_.users(), 0);
  for (std::size_t i = 0; i < list_.size(); ++i) {
    const Entry& e = list_[i];
    if (replayed[i].start != e.start || e.start < previous || !listed_.count(e.id)) return false;
    previous = e.start;
    planned_wait[static_cast<std::size_t>(e.user)] += e.start - e.submit;
  }
  if (listed_.size() != list_.size()) return false;
  for (std::size_t u = 0; u < score_.users(); ++u) {
    if (planned_wait[u] != score_.planned_wait(static_cast<int>(u))) return false;
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
  // The profile, kept up to date by insertions and moves, equals one built
  // from scratch.
  if (!profile_dirty_) {
    TabuPlan copy = *this;
    copy.profile_dirty_ = true;
    if (copy.profile().slots() != profile_.slots()) return false;
  }
  return true;
}

}  // namespace los
