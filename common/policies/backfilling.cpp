#include "policies/backfilling.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "planner/indexed_compression.hpp"
#include "planner/replan.hpp"

namespace los {

BackfillingPolicy::BackfillingPolicy(int depth, std::string label, Compression compression, Pass pass, Limits limits,
                                     RunMode mode)
    : depth_(depth), label_(std::move(label)), limits_(limits), mode_(mode), compression_(compression), pass_(pass) {}

StepBudget BackfillingPolicy::step_budget(const Snapshot& s) const {
  return StepBudget::for_step(limits_.searches, limits_.live_seconds, mode_ == RunMode::Live, s.received);
}

Time BackfillingPolicy::insertion_start(std::int64_t size, Time duration, Time now) {
  const Planner& planner = profile_.planner();
  if (planner.additions() != insertions_additions_) {  // units came back: bounds void
    insertions_.reset();
    insertions_additions_ = planner.additions();
  }
  const Time s = planner.earliest_start(size, duration, std::max(now, insertions_.lower(size, duration)));
  insertions_.record(size, duration, s);
  return s;
}

void BackfillingPolicy::add_reservation(JobId id, int size, Time start, Time duration, Planner::SpanId span) {
  reserved_.assign(id, Reservation{size, start, duration, next_order_, span});
  holders_.insert({start, next_order_, id, size, duration});
  ++next_order_;
}

BackfillingPolicy::Reservation& BackfillingPolicy::reservation_of(JobId id) {
  Reservation* r = reserved_.find(id);
  if (r == nullptr) throw std::logic_error("backfilling: job " + std::to_string(id) + " holds no reservation");
  return *r;
}

void BackfillingPolicy::drop_reservation(JobId id) {
  const Reservation* r = reserved_.find(id);
  if (r == nullptr) return;
  holders_.erase(r->start, r->order);
  reserved_.erase(id);
}

void BackfillingPolicy::move_reservation(JobId id, Reservation& r, Time s) {
  r.span = profile_.planner().move(r.span, s, r.duration, r.size);
  holders_.erase(r.start, r.order);
  r.start = s;
  holders_.insert({r.start, r.order, id, r.size, r.duration});
}

void BackfillingPolicy::move_span(JobId id, Reservation& r, Time s) {
  r.span = profile_.planner().move(r.span, s, r.duration, r.size);
  moved_.push_back({r.start, r.order, id, r.size, r.duration});
  r.start = s;
}

void BackfillingPolicy::reindex_moved() {
  // A moved holder's reservation has its new start; its index entry the old.
  holders_.move_all(moved_, [&](std::size_t i) { return reservation_of(moved_[i].id).start; });
  moved_.clear();
}

bool BackfillingPolicy::update(const Snapshot& snapshot, bool& freed) {
  const Time now = snapshot.now;
  // Live, a job past its limit (Slurm kills it there; it holds its nodes
  // until they are clean) is taken in place; a simulation rebuilds, as
  // the results were made (los-sim --no-kill).
  const bool live = mode_ == RunMode::Live;
  if (!profile_.update(snapshot, freed, live)) return false;
  for (const SnapshotEvent& ev : snapshot.events) {
    if (ev.kind != SnapshotEvent::Kind::Withdrawn) continue;
    const Reservation* r = reserved_.find(ev.job);
    if (r == nullptr) continue;
    profile_.planner().release(r->span);
    drop_reservation(ev.job);
    held_order_valid_ = false;
    freed = true;
  }
  replace_missed_starts(now, freed);
  return !live || move_overbooked_holders(now, freed);
}

bool BackfillingPolicy::move_overbooked_holders(Time now, bool& freed) {
  // Only [now, now + 1) can be overbooked (the overruns' second), so only
  // holders due now meet it; the latest promises move first, each to its
  // earliest start from now, until the units suffice.
  while (profile_.planner().free_at(now) < 0) {
    collect_due_ids(now, due_ids_);
    if (due_ids_.empty()) return false;  // the running jobs alone overbook: rebuild
    const JobId id = due_ids_.back();
    const Reservation& r = reservation_of(id);
    reserve_again({now, r.order, id, r.size, r.duration}, now);
    freed = true;  // its span's units after the overbooked second: a gain
  }
  return true;
}

void BackfillingPolicy::reserve_again(HolderIndex::Holder h, Time now) {
  Planner& planner = profile_.planner();
  Reservation& r = reservation_of(h.id);
  planner.release(r.span);
  const Time s = planner.earliest_start(r.size, r.duration, now);
  holders_.erase(h.start, h.order);
  r.start = s;
  r.span = planner.reserve(s, r.duration, r.size);
  holders_.insert({s, r.order, h.id, r.size, r.duration});
}

void BackfillingPolicy::replace_missed_starts(Time now, bool& freed) {
  // A reservation in the past: no step came at its start (live, the plugin's
  // cycle came later; a simulation steps at every end, so never there). Its
  // holder gets the earliest start from now, in the order of the missed
  // starts: usually now, so the pass starts it; the rest of the plan stays
  // (a rebuild re-planned every holder: at 100,000 jobs, a minute of cut
  // steps). Its old span's units from now on come back: a gain for the
  // compression.
  for (const HolderIndex::Holder* first = holders_.first(); first != nullptr && first->start < now;
       first = holders_.first()) {
    reserve_again(*first, now);
    freed = true;
  }
}

void BackfillingPolicy::rebuild(const Snapshot& snapshot, StepBudget& budget) {
  const Time now = snapshot.now;
  profile_.rebuild(snapshot);
  replan_backlog_.clear();
  sweep_.reset();
  Planner& planner = profile_.planner();
  insertions_.reset();  // a new planner: its additions() count starts again
  insertions_additions_ = planner.additions();
  held_order_valid_ = false;
  // Re-plan the jobs that held reservations, in their old order, so the
  // promise order survives; the queue pass hands out the rest.
  std::vector<JobId> holders;
  holders.reserve(holders_.size());
  for (const HolderIndex::Holder& h : holders_.sorted()) holders.push_back(h.id);
  reserved_.clear();
  holders_.clear();
  for (const QueuedHolder& held : queued_holders(holders, snapshot.queue)) {
    if (!budget.take()) {
      replan_backlog_.push_back(held.job->id);
      continue;
    }
    replan_holder(*held.job, now);
  }
}

void BackfillingPolicy::replan_holder(const Job& job, Time now) {
  if (job.size > profile_.planner().capacity()) return;  // can never run here
  const Time d = planned_duration(job.estimate);
  const Time s = insertion_start(job.size, d, now);
  if (s >= kTimeInfinity) return;
  add_reservation(job.id, job.size, s, d, profile_.planner().reserve(s, d, job.size));
}

void BackfillingPolicy::replan_backlog(const Snapshot& snapshot, StepBudget& budget) {
  if (replan_backlog_.empty()) return;
  const std::vector<JobId> waiting = std::move(replan_backlog_);
  replan_backlog_.clear();
  // Those no longer queued (withdrawn meanwhile) drop out here.
  for (const QueuedHolder& held : queued_holders(waiting, snapshot.queue)) {
    if (!budget.take()) {
      replan_backlog_.push_back(held.job->id);
      continue;
    }
    replan_holder(*held.job, snapshot.now);
  }
}

void BackfillingPolicy::compress(Time now, StepBudget& budget, StepBudget* share) {
  Planner& planner = profile_.planner();
  if (compression_ == Compression::FullScan || !planner.logging_gains()) {  // the reference: no budget
    compress_full_scan(now);
    planner.clear_gains();
    return;
  }
  // A sweep the budget stopped goes on at its cursor (planner/compression_sweep.hpp).
  sweep_.run(
      planner, holders_, visited_, now, [&] { return (share == nullptr || share->take()) && budget.take(); },
      [&](const HolderIndex::Holder& h, Time s) { move_span(h.id, reservation_of(h.id), s); },
      [&] { reindex_moved(); });
}

void BackfillingPolicy::start_fitting_holders(Time now) {
  const Planner& planner = profile_.planner();
  std::int64_t free_now = planner.free_at(now);
  // Where the run of >= size free units from now ends (now when fewer are
  // free now); cached by size until the next move changes the profile.
  struct RunEnd {
    std::int64_t size = -1;
    Time end = 0;
  };
  constexpr std::size_t kSlots = 64;
  std::array<RunEnd, kSlots> run_ends{};
  const auto run_end = [&](std::int64_t size) {
    RunEnd& cached = run_ends[static_cast<std::uint64_t>(size) % kSlots];
    if (cached.size != size) cached = {size, size <= free_now ? planner.first_short_after(now, size) : now};
    return cached.end;
  };
  // A holder fits now iff its window [now, min(now + d, start)) lies in the
  // run of >= size free units from now (its own span starts after it). A
  // subtree's least size, duration and start bound that for all it holds.
  const auto may_hold = [&](const HolderIndex::Bounds& b) {
    return b.size <= free_now && std::min(b.start, saturating_end(now, b.duration)) <= run_end(b.size);
  };
  const auto accept = [&](const HolderIndex::Holder& h) {
    return h.start > now && h.size <= free_now && std::min(h.start, saturating_end(now, h.duration)) <= run_end(h.size);
  };
  // A move gives back its old span, which may lengthen a run a walk already
  // ruled out: walk again until a walk moves nothing.
  for (bool moved = true; moved && free_now > 0;) {
    moved = false;
    HolderIndex::Walk walk;
    while (const HolderIndex::Holder* found = holders_.next(walk, may_hold, accept)) {
      const HolderIndex::Holder h = *found;
      move_span(h.id, reservation_of(h.id), now);
      moved = true;
      free_now -= h.size;
      if (free_now <= 0) break;
      run_ends.fill(RunEnd{});
    }
    reindex_moved();
    run_ends.fill(RunEnd{});
  }
}

void BackfillingPolicy::compress_full_scan(Time now) {
  Planner& planner = profile_.planner();
  std::vector<JobId> order;
  order.reserve(holders_.size());
  for (const HolderIndex::Holder& h : holders_.sorted()) order.push_back(h.id);
  for (JobId id : order) {
    Reservation& r = reservation_of(id);
    if (r.start <= now) continue;
    // Asked with the job's own reservation still in place: the horizon cuts
    // the window at the old start, so this is "can it start before?".
    const Time s = planner.earliest_start(r.size, r.duration, now, r.start);
    if (s >= r.start) continue;
    move_reservation(id, r, s);
  }
}

void BackfillingPolicy::collect_due_ids(Time now, std::vector<JobId>& out) const {
  out.clear();
  const auto any = [](const auto&) { return true; };
  for (const HolderIndex::Holder* h = holders_.first(); h != nullptr && h->start == now;
       h = holders_.next_after(h->start, h->order, any, any)) {
    out.push_back(h->id);
  }
}

void BackfillingPolicy::find_due_holders(const JobQueue& queue, std::size_t from, Time now) {
  due_at_.clear();
  collect_due_ids(now, due_ids_);
  if (due_ids_.empty()) return;
  // Their first places at or after `from`; usually near the front, so the
  // search stops early once all are found.
  std::size_t missing = due_ids_.size();
  for (std::size_t p = from; p < queue.size() && missing > 0; ++p) {
    const auto it = std::find(due_ids_.begin(), due_ids_.end(), queue[p].id);
    if (it == due_ids_.end()) continue;
    due_at_.push_back(p);
    *it = due_ids_.back();
    due_ids_.pop_back();
    --missing;
  }
}

StepResult BackfillingPolicy::step(const Snapshot& snapshot) {
  const Time now = snapshot.now;
  StepResult result;
  StepBudget budget = step_budget(snapshot);

  bool freed = false;
  if (snapshot.resync || profile_.stale(snapshot) || !update(snapshot, freed)) {
    rebuild(snapshot, budget);
  } else {
    replan_backlog(snapshot, budget);
    if (freed || sweep_.active()) {
      // With stopped=fill, a compression carried over from an earlier step
      // takes at most half of this one's budget: the pass gets the rest for
      // the jobs without a reservation, so under early ends at every step
      // new jobs still get promises. A compression that fits in one step
      // is not cut.
      StepBudget share = budget.share(0.5);
      const bool carried_over = sweep_.active() && limits_.fill_now && replan_backlog_.empty();
      compress(now, budget, carried_over ? &share : nullptr);
    }
    if (limits_.fill_now && sweep_.active() && replan_backlog_.empty()) start_fitting_holders(now);
  }
  // Old holders still waiting for their re-plan go first: while any wait,
  // the budget is spent (it stopped their re-plan), so the pass below hands
  // out no start and no reservation ahead of them.

  Planner& planner = profile_.planner();
  std::int64_t free_now = planner.free_at(now);
  // A job beyond the depth starts only if at least its size is free
  // throughout [now, now + d), so never if its window holds the earliest
  // reservation's start and fewer units are free there. That refusal needs
  // no profile query, and under EASY at high load it is the common one (the
  // head's reservation leaves few extra units); the others are asked as
  // before. Recomputed after every change to the plan.
  Time first_reserved = kTimeInfinity;
  std::int64_t free_at_first = 0;
  bool first_known = false;
  auto know_first = [&] {
    if (first_known) return;
    const HolderIndex::Holder* first = holders_.first();
    first_reserved = first != nullptr ? first->start : kTimeInfinity;
    free_at_first = first_reserved < kTimeInfinity && first_reserved >= now ? planner.free_at(first_reserved) : 0;
    first_known = true;
  };
  // Under EASY and small depths a holder is found among the few by id
  // instead of hashing every queued job.
  constexpr std::size_t kFewHolders = 8;
  std::array<JobId, kFewHolders> few{};
  std::size_t few_count = 0;
  bool few_known = false;
  auto holds = [&](JobId id) {
    if (reserved_.size() > kFewHolders) return true;  // ask the map
    if (!few_known) {
      few_count = 0;
      reserved_.for_each([&](JobId holder, const Reservation&) { few[few_count++] = holder; });
      few_known = true;
    }
    return std::find(few.begin(), few.begin() + static_cast<std::ptrdiff_t>(few_count), id) !=
           few.begin() + static_cast<std::ptrdiff_t>(few_count);
  };
  // Beyond the depth the pass skips the jobs it would refuse anyway, without
  // reading them (Pass::Skipping; Pass::Plain reads every job, the reference
  // the tests compare with). While reserved_ holds `depth_` jobs or more, the
  // body below changes nothing for a job (it continues, and its only writes
  // are the caches first_* and few*, functions of the plan and reserved_)
  // unless
  //   (a) it is a holder whose reservation starts now (it starts), or
  //   (b) it is no holder, size <= total_units, and either free_now <= 0
  //       (the pass ends there) or size <= free_now and not refused by the
  //       first reservation: size <= free_at_first, or its planned duration
  //       d = max(estimate, 1) <= gap = first_reserved - now (then
  //       first_reserved >= now + d), which for gap >= 1 is estimate <= gap
  //       and for gap 0 never holds.
  // A holder reserved later only continues; every other job fails (b)'s
  // tests and continues. Skipped jobs change nothing, so the state at the
  // next visited job (reserved_, free_now, the plan) is the plain loop's
  // there: the next visit is the first position p >= i that is (a) or
  // passes (b)'s shape tests (JobQueue::first_fitting); a holder that passes
  // them is visited too and only continues, as in the plain loop. The (a)
  // positions are found once per step: the set only shrinks during the pass
  // (a reservation made in it starts after now, and a holder starts only at
  // its own visit), and one still due sits at or after the first skip.
  const JobQueue& queue = snapshot.queue;
  const std::size_t queued = queue.size();
  // (Unlimited depth is never reached: conservative never skips.)
  const bool may_skip = pass_ == Pass::Skipping && depth_ < kUnlimited && queue.shapes_known();
  bool due_known = false;
  std::size_t next_due = 0;
  // Conservative (every job visited): a job whose id is the next one of
  // held_order_ (the holders after the last pass, in queue order) holds a
  // reservation without a look-up. It held one after that pass, and since
  // then reservations were dropped only by a withdrawal or a rebuild (which
  // void held_order_) or by a start earlier in this pass (of a due holder,
  // which this shortcut never takes, so a repeated id is looked up). The
  // body below then only continues, unless the reservation starts now: only
  // the holders in due_now_ (a reservation made in this pass starts after
  // now). A job off that order (new, reordered, or one that holds nothing)
  // takes the body's look-up, as before.
  const bool tandem = pass_ == Pass::Skipping && depth_ == kUnlimited;
  const bool use_held_order = tandem && held_order_valid_;
  std::size_t held_next = 0;
  if (tandem) next_held_order_.clear();
  if (use_held_order) collect_due_ids(now, due_now_);
  const bool fill_when_cut = limits_.fill_now && replan_backlog_.empty();
  const auto due = [&](JobId id) {
    return !due_now_.empty() && std::find(due_now_.begin(), due_now_.end(), id) != due_now_.end();
  };
  for (std::size_t i = 0; i < queued; ++i) {
    if (use_held_order) {
      // The run of jobs from i on in held_order_'s order, none due: they
      // keep their reservations and their places in the order.
      const std::size_t from = held_next, held_count = held_order_.size();
      while (i < queued && held_next < held_count && held_order_[held_next] == queue[i].id && !due(queue[i].id)) {
        ++i;
        ++held_next;
      }
      next_held_order_.insert(next_held_order_.end(), held_order_.begin() + static_cast<std::ptrdiff_t>(from),
                              held_order_.begin() + static_cast<std::ptrdiff_t>(held_next));
      if (i == queued) break;
      if (held_next < held_count && held_order_[held_next] == queue[i].id) ++held_next;  // due: the body starts it
    }
    if (may_skip && static_cast<int>(std::min<std::size_t>(reserved_.size(), kUnlimited)) >= depth_) {
      if (!due_known) {
        find_due_holders(queue, i, now);
        due_known = true;
      }
      while (next_due < due_at_.size() && due_at_[next_due] < i) ++next_due;
      const std::size_t due = next_due < due_at_.size() ? due_at_[next_due] : queued;
      JobQueue::Fit fit{snapshot.total_units, snapshot.total_units, kTimeInfinity};  // free_now <= 0
      if (free_now > 0) {
        know_first();
        fit.units = std::min<std::int64_t>(free_now, snapshot.total_units);
        if (first_reserved >= now) {  // else no refusal by the first reservation
          const Time gap = first_reserved - now;
          fit.narrow_units = free_at_first;
          fit.short_estimate = gap >= 1 ? gap : std::numeric_limits<Time>::min();
        }
      }
      i = queue.first_fitting(i, due, fit);
      if (i == queued) break;
    }
    const Job& job = queue[i];
    // Conservative: once every holder is behind (each visited holder that
    // still holds is in next_held_order_), the rest of the queue holds
    // nothing, and no job there needs a look-up in the (large) map.
    const bool holders_behind = tandem && next_held_order_.size() == reserved_.size();
    if (!holders_behind && holds(job.id)) {
      if (const Reservation* held = reserved_.find(job.id); held != nullptr) {
        const Reservation r = *held;
        if (r.start == now) {  // its units are already taken: the promise is kept
          drop_reservation(job.id);
          profile_.adopt_start(job.id, r.size, now, now + r.duration);
          result.decisions.push_back(Decision::start(job.id));
          first_known = few_known = false;
        } else if (tandem) {
          next_held_order_.push_back(job.id);
        }
        continue;
      }
    }
    if (job.size > snapshot.total_units) continue;  // can never run here
    bool may_reserve = static_cast<int>(std::min<std::size_t>(reserved_.size(), kUnlimited)) < depth_;
    // Out of budget: this job and the rest get no reservation in this step;
    // the next one goes on from here (a holder due now still starts, above).
    // With stopped=fill, and no old holder waiting for its re-plan, the job
    // may still start now if it fits for its whole estimate, as beyond the
    // depth: it takes only units free now, so no promise moves.
    bool filling = false;
    if (may_reserve && !budget.take()) {
      if (!fill_when_cut) continue;
      may_reserve = false;
      filling = true;
    }
    if (!may_reserve) {
      if (free_now <= 0) {
        if (filling && !holders_behind) continue;  // holders due now may come later in the queue
        break;
      }
      if (job.size > free_now) continue;
    }
    const Time d = planned_duration(job.estimate);
    if (!may_reserve) {
      know_first();
      if (first_reserved >= now && first_reserved < now + d && job.size > free_at_first) continue;
      if (!filling && !budget.take()) continue;
    }
    // Beyond the depth a job may only start now, for its whole estimate.
    const Time s = may_reserve ? insertion_start(job.size, d, now)
                               : (planner.min_free(now, now + d) >= job.size ? now : kTimeInfinity);
    if (s == now) {
      profile_.start(job.id, job.size, now, d);
      free_now -= job.size;
      result.decisions.push_back(Decision::start(job.id));
      first_known = false;
    } else if (may_reserve && s < kTimeInfinity) {
      add_reservation(job.id, job.size, s, d, planner.reserve(s, d, job.size));
      first_known = few_known = false;
      if (tandem) next_held_order_.push_back(job.id);
    }
  }
  if (tandem) {
    held_order_.swap(next_held_order_);
    held_order_valid_ = true;
  }
  // The plan is a fixpoint now (or a stopped sweep's, which keeps its log):
  // from here on, log where units come back.
  planner.log_gains(true);
  // Work left for the next step: ask for it a second from now.
  if (budget.spent() || !replan_backlog_.empty() || sweep_.active()) {
    result.wakeup = now + 1;
    result.work_left = true;
  }
  return result;
}

std::vector<PlannedStart> BackfillingPolicy::reservations() const {
  std::vector<PlannedStart> out;
  out.reserve(holders_.size());
  for (const HolderIndex::Holder& h : holders_.sorted()) out.push_back({h.id, h.start});
  return out;
}

PolicyPtr make_easy(const ParamValues& values, RunMode) {
  return std::make_unique<BackfillingPolicy>(1, values.canonical());
}

const ParamTable& conservative_parameters() {
  static const ParamTable table = {
      Param::integer("searches", 0, 0, 1000000000,
                     "planning searches a step at most, the rest in the next steps (0: no cap; for studies)"),
      Param::number("live-limit", 0.015, 0, 3600,
                    "live: a step plans until this many wall-clock seconds after losd received the snapshot (at least "
                    "half of it), the rest in the next steps (0: none)"),
      Param::choice("stopped", {"fill", "wait"},
                    "when the budget cuts a step: fill (what fits now still starts: holders the compression "
                    "has not reached, jobs the pass has not planned) or wait (they wait for the steps that "
                    "finish the work: the plan of one whole step)"),
  };
  return table;
}

PolicyPtr make_conservative(const ParamValues& values, RunMode mode) {
  const BackfillingPolicy::Limits limits{values.integer("searches"), values.number("live-limit"),
                                         values.choice("stopped") == "fill"};
  return std::make_unique<BackfillingPolicy>(BackfillingPolicy::kUnlimited, values.canonical(),
                                             BackfillingPolicy::Compression::Indexed, BackfillingPolicy::Pass::Skipping,
                                             limits, mode);
}

PolicyPtr make_aggressive(const ParamValues& values, RunMode) {
  return std::make_unique<BackfillingPolicy>(0, values.canonical());
}

const ParamTable& depth_parameters() {
  static const ParamTable table = {
      Param::integer("k", 4, 0, 1000000, "reservation depth: how many blocked jobs hold a reservation")};
  return table;
}

PolicyPtr make_depth(const ParamValues& values, RunMode) {
  return std::make_unique<BackfillingPolicy>(static_cast<int>(values.integer("k")), values.canonical());
}

}  // namespace los
