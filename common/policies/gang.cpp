#include "policies/gang.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <numeric>
#include <sstream>
#include <stdexcept>

namespace los {

GangPolicy::GangPolicy(GangOptions options, std::string label)
    : options_(options),
      label_(std::move(label)),
      cs_stall_(static_cast<Time>(std::llround(static_cast<double>(options.slice) * options.cs_percent / 100.0))) {}

GangPolicy::~GangPolicy() {
  // A policy that never stepped (one made only to read its name) prints nothing.
  if (options_.stats && options_.backfill && matrix_) std::cerr << stats_line() << "\n";
}

std::string GangPolicy::stats_line() const {
  const PlanStats& st = plan_stats_;
  std::ostringstream s;
  s << label_ << " stats: reservations=" << st.reservations << " compress_moves=" << st.compress_moves
    << " compress_s=" << st.compress_seconds << " ended=" << st.ended << " ended_early=" << st.ended_early
    << " early_slack_s=" << st.early_slack_seconds << " overrun_jobs=" << st.overrun_jobs
    << " overrun_extensions=" << st.overrun_extensions << " replan_delays=" << st.replan_delays
    << " replan_delay_s=" << st.replan_delay_seconds;
  return s.str();
}

Time GangPolicy::plan_factor() const {
  // Under time sharing a job gets at least one slice in every cycle of at
  // most MPL slices (its home row), so MPL x estimate bounds its wall time
  // (§2.4); plan_factor=k plans k x estimate instead (an ablation).
  return options_.plan_factor > 0 ? options_.plan_factor : static_cast<Time>(options_.mpl);
}

Time GangPolicy::planned_duration(const Job& j) const { return plan_factor() * std::max<Time>(j.estimate, 1); }

StepBudget GangPolicy::step_budget(const Snapshot& s) const {
  if (!budgeted()) return {};
  return StepBudget::for_step(options_.searches, options_.live_seconds, options_.live, s.received);
}

void GangPolicy::init(const Snapshot& s) {
  matrix_.emplace(options_.mpl, s.total_units);
  if (options_.backfill) {
    // A resync keeps the rows' objects (their bounds' buffers) but nothing
    // of their plans.
    plans_.resize(static_cast<std::size_t>(options_.mpl), GangRowPlan(s.total_units, s.now));
    for (RowPlan& p : plans_) {
      p.restart(s.total_units, s.now);
      p.reserved.clear();
    }
    freed_.assign(static_cast<std::size_t>(options_.mpl), false);
  }
}

// ---- resync ----------------------------------------------------------------------

std::vector<int> GangPolicy::units_of(const RunningJob& r, int columns) const {
  // The job's units in the snapshot's order (switch_to_active_row compares
  // them with its columns), or none if the list is empty or not a set of
  // distinct columns of this partition.
  std::vector<int> sorted = r.nodes;
  std::sort(sorted.begin(), sorted.end());
  const bool valid = !sorted.empty() && sorted.front() >= 0 && sorted.back() < columns &&
                     std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
  return valid ? r.nodes : std::vector<int>{};
}

Time GangPolicy::hold_end(Time start, Time estimate, Time now) const {
  // A running job's hold on its home row, rebuilt. plan=rebuild: MPL x the
  // remaining estimate, the work done being unknown (taken as 0). plan=keep:
  // from its first start, or one more cycle if that is past (as rebuild_row
  // extends an overrun).
  if (options_.rebuild_plan) return now + plan_factor() * std::max<Time>(estimate, 1);
  const Time end = start + plan_factor() * std::max<Time>(estimate, 1);
  return end > now ? end : now + static_cast<Time>(options_.mpl) * options_.slice;
}

void GangPolicy::place_running(JobId id, Time start, Time estimate, int row, std::vector<int> cols, Time now) {
  const int size = static_cast<int>(cols.size());
  matrix_->place(id, size, row, std::move(cols));
  if (!options_.backfill) return;
  const Time end = hold_end(start, estimate, now);
  occupied_[id] = Occupation{row, size, end, std::max<Time>(estimate, 1)};
  // Given back with add() when it ends (occupied_ knows where).
  plans_[static_cast<std::size_t>(row)].planner().reserve(now, end - now, size);
}

void GangPolicy::place_orphans(Time now) {
  for (auto it = orphans_.begin(); it != orphans_.end();) {
    int row = -1;
    std::vector<int> cols;
    for (int r = 0; r < options_.mpl && row < 0; ++r) {
      std::vector<int> c = it->cols;
      if (c.empty()) {
        if (it->size > matrix_->columns() || matrix_->free_count(r) < it->size) continue;
        c = matrix_->lowest_free(r, it->size);
      } else if (!matrix_->columns_free(r, c)) {
        continue;
      }
      if (options_.backfill && plans_[static_cast<std::size_t>(r)].planner().min_free(
                                   now, hold_end(it->start, it->estimate, now)) < static_cast<int>(c.size())) {
        continue;
      }
      row = r;
      cols = std::move(c);
    }
    if (row < 0) {
      ++it;
      continue;
    }
    place_running(it->id, it->start, it->estimate, row, std::move(cols), now);
    it = orphans_.erase(it);
  }
}

void GangPolicy::resync(const Snapshot& s, StepBudget& budget) {
  const Time now = s.now;
  matrix_.reset();
  active_ = 0;
  slice_end_ = kTimeInfinity;
  tasks_migrated_in_slice_ = 0;
  pending_stall_.clear();
  moved_in_event_.clear();
  freed_.clear();
  occupied_.clear();
  reserved_.clear();
  next_order_ = 0;
  progress_.clear();
  orphans_.clear();
  replan_backlog_.clear();
  compact_due_ = false;
  init(s);

  std::vector<const RunningJob*> jobs;
  jobs.reserve(s.running.size());
  for (const RunningJob& r : s.running) jobs.push_back(&r);
  std::sort(jobs.begin(), jobs.end(), [](const RunningJob* a, const RunningJob* b) {
    return std::tuple(a->suspended, a->start, a->job.id) < std::tuple(b->suspended, b->start, b->job.id);
  });
  const int n = matrix_->columns();
  for (const RunningJob* r : jobs) {
    const JobId id = r->job.id;
    // Work done is unknown: it restarts at 0 (plan=rebuild holds the rows
    // for the whole estimate).
    if (options_.rebuild_plan) progress_[id] = Progress{r->suspended ? -1 : now, 0, 0};
    const std::vector<int> units = units_of(*r, n);
    const int size = units.empty() ? r->job.size : static_cast<int>(units.size());
    int row = -1;
    std::vector<int> cols;
    for (int k = 0; k < options_.mpl && row < 0; ++k) {
      // Executing jobs: the active row 0 first; suspended ones: rows 1.. first.
      const int r_try = r->suspended ? (k + 1) % options_.mpl : k;
      if (units.empty()) {
        if (size > n || matrix_->free_count(r_try) < size) continue;
        cols = matrix_->lowest_free(r_try, size);
      } else if (matrix_->columns_free(r_try, units)) {
        cols = units;
      } else {
        continue;
      }
      row = r_try;
    }
    if (row < 0) {
      orphans_.push_back(Orphan{id, size, units, r->start, r->job.estimate});
    } else {
      place_running(id, r->start, r->job.estimate, row, std::move(cols), now);
    }
  }
  if (options_.backfill) {
    schedule_backfill(s, budget);  // Schedule-1: reservations re-planned in queue order
  } else {
    schedule_gang(s);
  }
  // FillMatrix-1 even past the budget: its replicas use columns idle in
  // this slice, and the next recompute's CleanMatrix removes them before
  // anything is placed, so the plan's continuation is not changed by them.
  fill();
}

// ---- reservations (BGS, MBGS) ----------------------------------------------

void GangPolicy::drop_reservation(JobId id) {
  const auto it = reserved_.find(id);
  if (it == reserved_.end()) return;
  const Reservation& r = it->second;
  plans_[static_cast<std::size_t>(r.row)].reserved.erase(r.start, r.order);
  reserved_.erase(it);
}

GangPolicy::Reservation GangPolicy::reserve_missed_again(JobId id, Time now) {
  Reservation& r = reserved_.at(id);
  RowPlan& plan = plans_[static_cast<std::size_t>(r.row)];
  plan.reserved.erase(r.start, r.order);
  plan.planner().release(r.span);
  freed_[static_cast<std::size_t>(r.row)] = true;  // its old span's units from now on
  r.start = plan.planner().earliest_start(r.size, r.duration, now);
  r.span = plan.planner().reserve(r.start, r.duration, r.size);
  plan.reserved.insert({r.start, r.order, id, r.size, r.duration});
  return r;
}

void GangPolicy::place(JobId id, int size, int row, Time now, Time duration) {
  matrix_->place(id, size, row, matrix_->lowest_free(row, size));
  if (options_.backfill) occupied_[id] = Occupation{row, size, now + duration, duration / plan_factor()};
}

void GangPolicy::compress(int row, Time now, StepBudget& budget) {
  // The conservative policy's compression, inside one row: holders in order
  // of their reserved start each move to their earliest start if earlier;
  // only those that could move are visited (gang_row_plan.hpp).
  RowPlan& plan = plans_[static_cast<std::size_t>(row)];
  const auto span_of = [this](JobId id) -> Planner::SpanId& { return reserved_.at(id).span; };
  for (const RowPlan::Move& m : plan.compress(now, span_of, options_.compression, &budget)) {
    Time& start = reserved_.at(m.id).start;
    ++plan_stats_.compress_moves;
    plan_stats_.compress_seconds += start - m.to;
    start = m.to;
  }
}

void GangPolicy::compress_freed(Time now, StepBudget& budget) {
  for (int r = 0; r < options_.mpl; ++r) {
    const std::size_t i = static_cast<std::size_t>(r);
    if (!freed_[i] && !plans_[i].sweeping()) continue;
    // Past the budget no new sweep starts: the row stays marked freed, so
    // the next step's sweep sees every gain at once, as a whole step would.
    if (budget.spent() && !plans_[i].sweeping()) continue;
    compress(r, now, budget);
    freed_[i] = false;
  }
}

void GangPolicy::rebuild_row(int row, Time now, StepBudget& budget) {
  // A running job outlived its planned hold (overheads stretched it): it
  // holds the row for one more cycle, and the row's reservations are
  // re-planned in their old order, as the conservative policy rebuilds;
  // those past the budget wait in replan_backlog_, in that order.
  RowPlan& plan = plans_[static_cast<std::size_t>(row)];
  plan.restart(matrix_->columns(), now);
  const Time extension = static_cast<Time>(options_.mpl) * options_.slice;
  for (auto& [id, occ] : occupied_) {
    if (occ.row != row) continue;
    if (occ.end <= now) {
      occ.end = now + extension;
      ++plan_stats_.overrun_extensions;
      if (!occ.overran) ++plan_stats_.overrun_jobs;
      occ.overran = true;
    }
    plan.planner().add(now, occ.end, -occ.size);
  }
  // Holders of this row still waiting from an earlier re-plan take their
  // place among the row's holders by their old (start, order).
  std::vector<HolderIndex::Holder> holders = plan.reserved.sorted();
  plan.reserved.clear();
  const std::size_t held = holders.size();
  std::vector<std::pair<JobId, Reservation>> waiting;
  for (auto& w : replan_backlog_) {
    if (w.second.row == row) {
      holders.push_back({w.second.start, w.second.order, w.first, w.second.size, w.second.duration});
      reserved_[w.first] = w.second;
    } else {
      waiting.push_back(w);
    }
  }
  replan_backlog_ = std::move(waiting);
  if (holders.size() > held) {  // merge the waiting ones in; the index's part is sorted already
    const auto by_key = [](const HolderIndex::Holder& a, const HolderIndex::Holder& b) {
      return std::tie(a.start, a.order) < std::tie(b.start, b.order);
    };
    const auto mid = holders.begin() + static_cast<std::ptrdiff_t>(held);
    std::sort(mid, holders.end(), by_key);
    std::inplace_merge(holders.begin(), mid, holders.end(), by_key);
  }
  for (const HolderIndex::Holder& h : holders) {
    if (!budget.take()) {
      replan_backlog_.emplace_back(h.id, reserved_.at(h.id));
      reserved_.erase(h.id);
      continue;
    }
    replan_reservation(h.id, reserved_.at(h.id), now);
  }
}

void GangPolicy::replan_reservation(JobId id, Reservation& r, Time now) {
  RowPlan& plan = plans_[static_cast<std::size_t>(r.row)];
  const Time before = r.start;
  r.start = plan.earliest_start(r.size, r.duration, now);  // the profile only loses units here
  if (r.start > before) {
    ++plan_stats_.replan_delays;
    plan_stats_.replan_delay_seconds += r.start - before;
  }
  r.span = plan.planner().reserve(r.start, r.duration, r.size);
  plan.reserved.insert({r.start, r.order, id, r.size, r.duration});
}

void GangPolicy::replan_backlog(Time now, StepBudget& budget) {
  if (replan_backlog_.empty()) return;
  std::vector<std::pair<JobId, Reservation>> waiting = std::move(replan_backlog_);
  replan_backlog_.clear();
  for (auto& [id, r] : waiting) {
    if (!budget.take()) {
      replan_backlog_.emplace_back(id, r);
      continue;
    }
    replan_reservation(id, reserved_[id] = r, now);
  }
}

void GangPolicy::replan_overruns(Time now, StepBudget& budget) {
  std::vector<bool> stale(static_cast<std::size_t>(options_.mpl), false);
  for (const auto& [id, occ] : occupied_) {
    if (occ.end <= now) stale[static_cast<std::size_t>(occ.row)] = true;
  }
  for (int r = 0; r < options_.mpl; ++r) {
    if (stale[static_cast<std::size_t>(r)]) rebuild_row(r, now, budget);
  }
}

bool GangPolicy::fits_reservations(int row, JobId id, Time now) const {
  if (!options_.backfill) return true;
  const Occupation& occ = occupied_.at(id);
  return plans_[static_cast<std::size_t>(row)].planner().min_free(now, occ.end) >= occ.size;
}

void GangPolicy::move_home(JobId id, int to_row, std::vector<int> cols, Time now) {
  const int from = matrix_->home_of(id);
  matrix_->move_home(id, to_row, std::move(cols));
  if (!options_.backfill) return;
  Occupation& occ = occupied_.at(id);
  plans_[static_cast<std::size_t>(from)].planner().add(now, occ.end, occ.size);
  // A running job's units: given back with add() when it ends (occupied_
  // knows where), so the span's handle is not kept.
  plans_[static_cast<std::size_t>(to_row)].planner().reserve(now, occ.end - now, occ.size);
  occ.row = to_row;
  freed_[static_cast<std::size_t>(from)] = true;
}

// ---- events -------------------------------------------------------------------

void GangPolicy::leave_matrix(JobId id, Time now, bool ended) {
  matrix_->remove(id);
  pending_stall_.erase(id);
  progress_.erase(id);
  if (!options_.backfill) return;
  const Occupation occ = occupied_.at(id);
  occupied_.erase(id);
  if (ended) ++plan_stats_.ended;
  if (occ.end > now) {
    if (ended) {
      ++plan_stats_.ended_early;
      plan_stats_.early_slack_seconds += occ.end - now;
    }
    plans_[static_cast<std::size_t>(occ.row)].planner().add(now, occ.end, occ.size);
    freed_[static_cast<std::size_t>(occ.row)] = true;
  }
}

void GangPolicy::apply_events(const Snapshot& s) {
  const Time now = s.now;
  const std::unordered_set<JobId> back = requeued(s);
  for (const SnapshotEvent& ev : s.events) {
    switch (ev.kind) {
      case SnapshotEvent::Kind::Ended: {
        const auto orphan =
            std::find_if(orphans_.begin(), orphans_.end(), [&](const Orphan& o) { return o.id == ev.job; });
        if (orphan != orphans_.end()) {
          orphans_.erase(orphan);
          progress_.erase(ev.job);
          break;
        }
        if (!matrix_->contains(ev.job)) {
          throw std::logic_error(label_ + ": job " + std::to_string(ev.job) + " ended outside the matrix");
        }
        if (back.count(ev.job)) break;  // back through the queue: keeps its place
        leave_matrix(ev.job, now, true);
        break;
      }
      case SnapshotEvent::Kind::Withdrawn: {
        // Cancelled while it waited. An admitted job (placed in the matrix,
        // its row's slice not come yet) leaves the matrix and gives its
        // hold back, as one that ended; a reserved one gives back its
        // reservation.
        if (matrix_->contains(ev.job)) {
          leave_matrix(ev.job, now, false);
          break;
        }
        const auto it = reserved_.find(ev.job);
        if (it != reserved_.end()) {
          const Reservation r = it->second;
          plans_[static_cast<std::size_t>(r.row)].planner().release(r.span);
          freed_[static_cast<std::size_t>(r.row)] = true;
          drop_reservation(ev.job);
        }
        // A holder still waiting for its re-plan holds no units.
        std::erase_if(replan_backlog_, [&](const auto& w) { return w.first == ev.job; });
        break;
      }
      case SnapshotEvent::Kind::Arrived:
      case SnapshotEvent::Kind::Started:
      case SnapshotEvent::Kind::Suspended:
      case SnapshotEvent::Kind::Resumed:
        break;  // arrivals wait in the queue; the rest are this policy's own decisions
    }
  }
}

// ---- the phases -----------------------------------------------------------------

std::vector<int> GangPolicy::rows_by_population(bool ascending) const {
  std::vector<int> rows(static_cast<std::size_t>(options_.mpl));
  std::iota(rows.begin(), rows.end(), 0);
  std::stable_sort(rows.begin(), rows.end(), [&](int a, int b) {
    return ascending ? matrix_->population(a) < matrix_->population(b)
                     : matrix_->population(a) > matrix_->population(b);
  });
  return rows;
}

void GangPolicy::compact(Time now) {
  // CompactMatrix / CollapseMatrix-1 (§2.3): jobs move, on their own
  // columns, from less to more populated rows.
  const std::vector<int> sources = rows_by_population(true);
  const std::vector<int> targets = rows_by_population(false);
  for (int i : sources) {
    for (int p : targets) {
      if (p == i) continue;
      for (JobId x : matrix_->homed_in(i)) {
        if (matrix_->population(p) < matrix_->population(i)) break;
        if (!matrix_->columns_free(p, matrix_->columns_of(x))) continue;
        if (!fits_reservations(p, x, now)) continue;
        move_home(x, p, matrix_->columns_of(x), now);
      }
    }
  }
}

void GangPolicy::pin(const Snapshot& s) {
  pinned_.clear();
  for (const RunningJob& r : s.running) {
    if (!r.job.migratable) pinned_.insert(r.job.id);
  }
}

std::unordered_set<JobId> GangPolicy::requeued(const Snapshot& s) const {
  std::unordered_set<JobId> out;
  if (!options_.live) return out;
  std::unordered_set<JobId> ended;
  for (const SnapshotEvent& ev : s.events) {
    if (ev.kind == SnapshotEvent::Kind::Ended) ended.insert(ev.job);
  }
  if (ended.empty()) return out;
  // One pass over the snapshot, not one per ended job (1,000 early ends
  // among 100,000 waiting jobs).
  for (const Job& j : s.queue) {
    if (ended.count(j.id)) out.insert(j.id);
  }
  for (const RunningJob& r : s.running) {
    if (ended.count(r.job.id)) out.insert(r.job.id);
  }
  return out;
}

bool GangPolicy::migration_fits(long long tasks) const {
  return options_.max_tasks < 0 || tasks_migrated_in_slice_ + tasks <= options_.max_tasks;
}

void GangPolicy::relocate_out_of(JobId job, int row, const std::vector<int>& avoid) {
  // Option 1's victim: keeps its columns outside `avoid` and takes the
  // lowest free columns of the row outside `avoid` for the rest.
  std::vector<int> cols;
  int missing = 0;
  for (int c : matrix_->columns_of(job)) {
    if (std::find(avoid.begin(), avoid.end(), c) == avoid.end()) {
      cols.push_back(c);
    } else {
      ++missing;
    }
  }
  for (int c = 0; c < matrix_->columns() && missing > 0; ++c) {
    if (matrix_->at(row, c) != GangMatrix::kNoJob) continue;
    if (std::find(avoid.begin(), avoid.end(), c) != avoid.end()) continue;
    cols.push_back(c);
    --missing;
  }
  if (missing > 0) throw std::logic_error(label_ + ": no room to relocate job " + std::to_string(job));
  std::sort(cols.begin(), cols.end());
  matrix_->relocate(job, std::move(cols));
}

void GangPolicy::collapse_with_migration(Time now) {
  // CollapseMatrix-2 (§2.6): as CollapseMatrix-1, but a job may change
  // columns: option 1 moves the jobs in its way inside the target row,
  // option 2 moves the job to the target row's free columns.
  const Time c_full = options_.migration_cost;
  const Time c_half = c_full / 2;
  const std::vector<int> sources = rows_by_population(true);
  const std::vector<int> targets = rows_by_population(false);
  for (int i : sources) {
    for (int p : targets) {
      if (p == i) continue;
      for (JobId a : matrix_->homed_in(i)) {
        if (matrix_->population(p) < matrix_->population(i)) break;
        if (moved_in_event_.count(a)) continue;
        const int size_a = matrix_->size_of(a);
        if (matrix_->free_count(p) < size_a) continue;
        if (!fits_reservations(p, a, now)) continue;
        const std::vector<int> cols_a = matrix_->columns_of(a);
        if (matrix_->columns_free(p, cols_a)) {  // no migration needed
          move_home(a, p, cols_a, now);
          moved_in_event_.insert(a);
          continue;
        }
        const std::vector<JobId> in_way = matrix_->jobs_on(p, cols_a);
        long long in_way_tasks = 0;
        bool option1_valid = true;
        for (JobId j : in_way) {
          in_way_tasks += matrix_->size_of(j);
          if (matrix_->row_count(j) != 1 || moved_in_event_.count(j) || pinned(j)) option1_valid = false;
        }
        const double cost1 = static_cast<double>(c_half) * size_a + static_cast<double>(c_full) * in_way_tasks;
        const double cost2 = static_cast<double>(c_full) * size_a + static_cast<double>(c_half) * in_way_tasks;
        option1_valid = option1_valid && migration_fits(in_way_tasks);
        const bool option2_valid = migration_fits(size_a) && !pinned(a);
        if (!option1_valid && !option2_valid) continue;
        bool use1 = option1_valid;
        if (option1_valid && option2_valid) {
          use1 = cost1 < cost2 || (cost1 == cost2 && in_way_tasks < size_a);
        }
        if (use1) {
          for (JobId j : in_way) {
            relocate_out_of(j, p, cols_a);
            pending_stall_[j] += c_full;
            moved_in_event_.insert(j);
          }
          move_home(a, p, cols_a, now);
          pending_stall_[a] += c_half;
          tasks_migrated_in_slice_ += in_way_tasks;
        } else {
          move_home(a, p, matrix_->lowest_free(p, size_a), now);
          pending_stall_[a] += c_full;
          for (JobId j : in_way) pending_stall_[j] += c_half;
          tasks_migrated_in_slice_ += size_a;
        }
        moved_in_event_.insert(a);
      }
    }
  }
}

bool GangPolicy::schedule_gang(const Snapshot& s) {
  // Schedule (§2.3): FCFS into the best-fit row; stops at the first job
  // that fits no row. Returns whether a job is left waiting.
  const int n = matrix_->columns();
  for (const Job& job : s.queue) {
    if (matrix_->contains(job.id) || job.size > n) continue;
    int best = -1;
    for (int r = 0; r < options_.mpl; ++r) {
      const int f = matrix_->free_count(r);
      if (f >= job.size && (best < 0 || f < matrix_->free_count(best))) best = r;
    }
    if (best < 0) return true;
    place(job.id, job.size, best, s.now, planned_duration(job));
  }
  return false;
}

bool GangPolicy::schedule_backfill(const Snapshot& s, StepBudget& budget) {
  // Schedule of BGS (§2.4): conservative backfilling in every row. A job
  // that fits some row now for MPL x estimate starts there (best fit);
  // otherwise it holds a reservation in the row where it can start first.
  // Returns whether a job is left waiting.
  const Time now = s.now;
  const int n = matrix_->columns();
  const std::size_t rows = static_cast<std::size_t>(options_.mpl);
  std::vector<std::pair<Time, int>> by_bound(rows);  // (search bound, row)
  bool again = true;
  while (again) {
    again = false;
    std::vector<std::int64_t> free_now(rows);
    for (std::size_t r = 0; r < rows; ++r) free_now[r] = plans_[r].planner().free_at(now);
    const std::int64_t most_free = *std::max_element(free_now.begin(), free_now.end());
    auto fits_now = [&](std::size_t r, const Job& job, Time d) {
      return free_now[r] >= job.size && plans_[r].planner().min_free(now, now + d) >= job.size;
    };
    auto best_fit = [&](const Job& job, Time d, int skip) {
      int best = -1;
      for (std::size_t r = 0; r < rows; ++r) {
        if (static_cast<int>(r) == skip || !fits_now(r, job, d)) continue;
        if (best < 0 || matrix_->free_count(static_cast<int>(r)) < matrix_->free_count(best))
          best = static_cast<int>(r);
      }
      return best;
    };
    auto start_now = [&](const Job& job, Time d, int row) {
      // Running now: occupied_ gives the units back at its end, no handle kept.
      plans_[static_cast<std::size_t>(row)].planner().reserve(now, d, job.size);
      free_now[static_cast<std::size_t>(row)] -= job.size;
      ++next_order_;
      place(job.id, job.size, row, now, d);
    };
    for (const Job& job : s.queue) {
      if (matrix_->contains(job.id) || job.size > n) continue;
      const Time d = planned_duration(job);
      const auto held = reserved_.find(job.id);
      if (held != reserved_.end()) {
        // A start missed between steps (live) is planned again first: a
        // simulation steps at every end, so its holders never miss one.
        const Reservation r = held->second.start < now ? reserve_missed_again(job.id, now) : held->second;
        if (r.start == now) {
          drop_reservation(job.id);
          if (matrix_->free_count(r.row) < job.size) {
            throw std::logic_error(label_ + ": reserved job " + std::to_string(job.id) + " finds no columns");
          }
          place(job.id, job.size, r.row, now, d);
          continue;
        }
        if (budget.spent()) continue;  // past the budget only due holders start
        // It may start now in another row (the paper: "a job may start
        // earlier than its reservation, and in a different row").
        if (rows > 1 && job.size <= most_free) {
          const int other = best_fit(job, d, r.row);
          if (other >= 0) {
            plans_[static_cast<std::size_t>(r.row)].planner().release(r.span);
            freed_[static_cast<std::size_t>(r.row)] = true;
            drop_reservation(job.id);
            start_now(job, d, other);
            again = true;
            continue;
          }
        }
        continue;
      }
      // Past the budget nothing else starts or is reserved: a job not planned
      // yet would lose its place to the jobs after it.
      if (!budget.take()) continue;
      if (job.size <= most_free) {
        const int best = best_fit(job, d, -1);
        if (best >= 0) {
          start_now(job, d, best);
          continue;
        }
      }
      // The row where it starts first, the lowest such row on a tie. Each
      // row is searched from its dominance bound (gang_row_plan.hpp), rows
      // in order of (bound, row): once a row's bound cannot beat the best
      // start found (a later start, or the same start in a higher row),
      // neither can the rows after it, and they are not searched.
      for (std::size_t r = 0; r < rows; ++r) {
        by_bound[r] = {plans_[r].lower_bound(job.size, d, now), static_cast<int>(r)};
      }
      std::sort(by_bound.begin(), by_bound.end());
      Time first = kTimeInfinity;
      int row = -1;
      for (const auto& [bound, r] : by_bound) {
        if (row >= 0 && (bound > first || (bound == first && r > row))) break;
        const Time t = plans_[static_cast<std::size_t>(r)].earliest_start(job.size, d, now);
        if (t < first || (t == first && r < row)) {
          first = t;
          row = r;
        }
      }
      if (row < 0) continue;
      const Planner::SpanId span = plans_[static_cast<std::size_t>(row)].planner().reserve(first, d, job.size);
      reserved_[job.id] = Reservation{row, job.size, first, d, next_order_, span};
      ++plan_stats_.reservations;
      plans_[static_cast<std::size_t>(row)].reserved.insert({first, next_order_, job.id, job.size, d});
      ++next_order_;
    }
    if (again) compress_freed(now, budget);
  }
  bool waiting = false;
  for (const Job& job : s.queue) {
    if (!matrix_->contains(job.id) && job.size <= n) waiting = true;
  }
  return waiting;
}

void GangPolicy::fill() {
  // FillMatrix (§2.3): replicate jobs, in placement order, into rows where
  // their columns are free; at most one new replica per job per pass.
  bool changed = true;
  while (changed) {
    changed = false;
    for (JobId x : matrix_->by_placement()) {
      for (int r = 0; r < options_.mpl; ++r) {
        if (matrix_->in_row(x, r) || !matrix_->columns_free(r, matrix_->columns_of(x))) continue;
        matrix_->replicate(x, r);
        changed = true;
        break;
      }
    }
  }
}

void GangPolicy::fill_with_migration() {
  // FillMatrix-2 (§2.6): replicate a job into a row after moving the jobs in
  // its way (option 1 only: a replica keeps its columns). The jobs moved must
  // appear in that row only and not have moved in this event. Columns that
  // relocations here set free are used by plain replication as well (the
  // spec's loop would skip them, FillMatrix-1 having run already).
  const Time c_full = options_.migration_cost;
  const Time c_half = c_full / 2;
  bool changed = true;
  while (changed) {
    changed = false;
    for (JobId a : matrix_->by_placement()) {
      const std::vector<int>& cols_a = matrix_->columns_of(a);
      for (int p = 0; p < options_.mpl; ++p) {
        if (matrix_->in_row(a, p)) continue;
        if (matrix_->columns_free(p, cols_a)) {
          // A relocation in this phase opened the columns: a FillMatrix-1
          // replica, free of cost.
          matrix_->replicate(a, p);
          changed = true;
          break;
        }
        if (matrix_->free_count(p) < matrix_->size_of(a)) continue;
        const std::vector<JobId> in_way = matrix_->jobs_on(p, cols_a);
        long long tasks = 0;
        bool valid = true;
        for (JobId j : in_way) {
          tasks += matrix_->size_of(j);
          if (matrix_->row_count(j) != 1 || moved_in_event_.count(j) || pinned(j)) valid = false;
        }
        if (!valid || !migration_fits(tasks)) continue;
        for (JobId j : in_way) {
          relocate_out_of(j, p, cols_a);
          pending_stall_[j] += c_full;
          moved_in_event_.insert(j);
        }
        matrix_->replicate(a, p);
        pending_stall_[a] += c_half;
        tasks_migrated_in_slice_ += tasks;
        changed = true;
        break;
      }
    }
  }
}

// ---- slices and switching -------------------------------------------------------

void GangPolicy::advance_slice(Time now, bool idle_before) {
  auto next_nonempty = [&](int from) {
    for (int k = 1; k <= options_.mpl; ++k) {
      const int r = (from + k) % options_.mpl;
      if (matrix_->population(r) > 0) return r;
    }
    return from;
  };
  if (matrix_->empty()) {
    slice_end_ = kTimeInfinity;
    return;
  }
  if (idle_before || slice_end_ == kTimeInfinity) {
    // The machine was idle: a new slice opens now on the first busy row.
    active_ = next_nonempty(options_.mpl - 1);
    slice_end_ = now + options_.slice;
    tasks_migrated_in_slice_ = 0;
  } else if (now >= slice_end_) {
    active_ = next_nonempty(active_);
    slice_end_ = now + options_.slice;
    tasks_migrated_in_slice_ = 0;
  } else if (matrix_->population(active_) == 0) {
    active_ = next_nonempty(active_);
  }
}

std::vector<Decision> GangPolicy::switch_to_active_row(const Snapshot& s) {
  std::vector<Decision> suspends;
  std::vector<Decision> runs;
  std::unordered_map<JobId, const RunningJob*> running;
  running.reserve(s.running.size());
  std::unordered_set<JobId> keeps;
  for (const RunningJob& r : s.running) {
    running[r.job.id] = &r;
    if (r.suspended) continue;
    const JobId id = r.job.id;
    const bool here = matrix_->contains(id) && matrix_->in_row(id, active_) && r.nodes == matrix_->columns_of(id);
    if (here && !pending_stall_.count(id)) {
      keeps.insert(id);
    } else {
      suspends.push_back(Decision::suspend(id));
    }
  }
  for (JobId id : matrix_->jobs_in_row(active_)) {
    if (keeps.count(id)) continue;
    Time stall = 0;
    if (const auto p = pending_stall_.find(id); p != pending_stall_.end()) {
      stall += p->second;
      pending_stall_.erase(p);
    }
    const auto r = running.find(id);
    Decision d;
    if (r == running.end()) {
      d = Decision::start(id);
      if (options_.charge_start) stall += cs_stall_;
    } else {
      d = Decision::resume(id);
      // Executing on the same columns before this step: only the migration
      // stall is new, there is no context switch.
      const bool was_here = !r->second->suspended && r->second->nodes == matrix_->columns_of(id);
      if (!was_here) stall += cs_stall_;
    }
    d.nodes = matrix_->columns_of(id);
    d.overhead = stall;
    runs.push_back(std::move(d));
  }
  suspends.insert(suspends.end(), std::make_move_iterator(runs.begin()), std::make_move_iterator(runs.end()));
  return suspends;
}

Time GangPolicy::done_now(JobId id, Time now) const {
  const auto it = progress_.find(id);
  if (it == progress_.end()) return 0;
  const Progress& p = it->second;
  return p.since < 0 ? p.done : p.done + std::max<Time>(0, now - p.since - p.budget);
}

void GangPolicy::track_switches(const std::vector<Decision>& decisions, Time now) {
  for (const Decision& d : decisions) {
    Progress& p = progress_[d.job];
    if (d.kind == Decision::Kind::Suspend) {
      const Time elapsed = now - p.since;
      const Time paid = std::min(elapsed, p.budget);
      p.budget -= paid;
      p.done += elapsed - paid;
      p.since = -1;
    } else {
      p.since = now;
      p.budget += d.overhead;
    }
  }
}

void GangPolicy::rebuild_plans(Time now, bool with_reservations) {
  // plan=rebuild: each row's profile from its running jobs' remaining
  // estimates (§2.4, remaining-work form); the reservations of the previous
  // event are laid over it only for the Compact check.
  for (RowPlan& p : plans_) p.restart(matrix_->columns(), now);
  for (auto& [id, occ] : occupied_) {
    occ.end = now + plan_factor() * std::max<Time>(1, occ.estimate - done_now(id, now));
    plans_[static_cast<std::size_t>(occ.row)].planner().add(now, occ.end, -occ.size);
  }
  if (with_reservations) {
    // Laid on unchecked, without spans: the reservations are dropped by the
    // second call before anything could release them.
    for (auto& [id, r] : reserved_) {
      r.span = Planner::SpanId{};
      if (r.start + r.duration > now) {
        plans_[static_cast<std::size_t>(r.row)].planner().add(std::max(now, r.start), r.start + r.duration, -r.size);
      }
    }
    return;
  }
  reserved_.clear();
  for (RowPlan& p : plans_) p.reserved.clear();
}

Time GangPolicy::next_reserved_start() const {
  Time first = kTimeInfinity;
  for (const RowPlan& p : plans_) {
    if (const HolderIndex::Holder* h = p.reserved.first()) first = std::min(first, h->start);
  }
  return first;
}

// ---- the step --------------------------------------------------------------------

StepResult GangPolicy::step(const Snapshot& s) {
  const Time now = s.now;
  StepBudget budget = step_budget(s);
  if (s.resync) {
    resync(s, budget);
    advance_slice(now, true);  // the slice clock restarts now
    return finish_step(s, budget);
  }
  if (!matrix_) init(s);
  if (matrix_->columns() != s.total_units) {
    throw std::runtime_error(label_ + ": the partition changed from " + std::to_string(matrix_->columns()) + " to " +
                             std::to_string(s.total_units) + " units at t=" + std::to_string(s.now));
  }
  moved_in_event_.clear();
  pin(s);
  if (options_.backfill) {
    for (RowPlan& p : plans_) p.planner().advance_to(now);
  }
  apply_events(s);
  const bool idle_before = matrix_->empty();
  bool recompute = false;
  for (const SnapshotEvent& ev : s.events) {
    if (ev.kind == SnapshotEvent::Kind::Arrived || ev.kind == SnapshotEvent::Kind::Ended ||
        ev.kind == SnapshotEvent::Kind::Withdrawn) {
      recompute = true;
    }
  }
  // A reservation falls due at an instant with no arrival or completion:
  // the policy asked to be woken for it.
  if (options_.backfill && next_reserved_start() <= now) recompute = true;
  // An event or a due reservation: Compact is due, as in a whole step (it
  // runs when the re-plans before it are done). The last step's budget left
  // planning undone: go on with it, event or not; a continuation alone does
  // not compact again, so continued steps at one instant end as one step.
  if (recompute) compact_due_ = true;
  if (planning_left_) recompute = true;
  if (recompute) {
    const bool rebuild = options_.backfill && options_.rebuild_plan;
    if (rebuild) {
      rebuild_plans(now, true);
    } else if (options_.backfill) {
      replan_backlog(now, budget);  // holders an earlier re-plan left, first
      replan_overruns(now, budget);
    }
    matrix_->remove_replicas();  // CleanMatrix
    if (compact_due_ && !budget.spent()) {
      compact(now);  // CompactMatrix / CollapseMatrix-1
      compact_due_ = false;
    }
    if (rebuild) {
      rebuild_plans(now, false);  // the queue is re-planned from scratch
    } else if (options_.backfill) {
      compress_freed(now, budget);
    }
    // Past the budget the phases that place or move jobs wait for the next
    // step (schedule_backfill still starts the due reservations).
    if (!orphans_.empty() && !budget.spent()) place_orphans(now);  // a resync's misfits, before the queue
    bool waiting = options_.backfill ? schedule_backfill(s, budget) : schedule_gang(s);  // Schedule-1
    const bool migrating = options_.migrate && options_.max_tasks != 0;
    if (migrating && (waiting || options_.migrate_idle) && !budget.spent()) {
      collapse_with_migration(now);  // CollapseMatrix-2
      if (options_.backfill) compress_freed(now, budget);
      if (!orphans_.empty() && !budget.spent()) place_orphans(now);
      waiting = options_.backfill ? schedule_backfill(s, budget) : schedule_gang(s);  // Schedule-2
    }
    // FillMatrix-1 even past the budget (as after a resync); FillMatrix-2
    // moves jobs for good, so it waits for the step that completes the plan.
    fill();                                                   // FillMatrix-1
    if (migrating && !budget.spent()) fill_with_migration();  // FillMatrix-2
  }
  advance_slice(now, idle_before);
  return finish_step(s, budget);
}

StepResult GangPolicy::finish_step(const Snapshot& s, const StepBudget& budget) {
  const Time now = s.now;
  StepResult result;
  planning_left_ = budget.spent() || !replan_backlog_.empty();
  for (const RowPlan& p : plans_) planning_left_ = planning_left_ || p.sweeping();
  // An executing job a resync could not fit is suspended even with an
  // empty matrix.
  if (!matrix_->empty() || !orphans_.empty()) result.decisions = switch_to_active_row(s);
  if (options_.rebuild_plan) track_switches(result.decisions, now);
  // Jobs placed in the matrix that have not run yet stay in the simulator's
  // queue until their row's slice; they no longer wait for the scheduler.
  std::size_t starting = 0;
  for (const Decision& d : result.decisions) starting += d.kind == Decision::Kind::Start;
  result.admitted = matrix_->job_count() - starting;
  for (const RunningJob& r : s.running) result.admitted -= matrix_->contains(r.job.id);
  result.wakeup = slice_end_;
  if (options_.backfill) result.wakeup = std::min(result.wakeup, next_reserved_start());
  // Planning left for the next step: a second from now, the earliest a
  // step can come.
  if (planning_left_) {
    result.wakeup = now + 1;
    result.work_left = true;
  }
  return result;
}

std::vector<PlannedStart> GangPolicy::reservations() const {
  std::vector<PlannedStart> out;
  if (options_.mpl != 1 || options_.rebuild_plan || plans_.empty()) return out;
  for (const HolderIndex::Holder& h : plans_.front().reserved.sorted()) out.push_back({h.id, h.start});
  return out;
}

std::vector<PlannedStart> GangPolicy::row_reservations(int row) const {
  std::vector<PlannedStart> out;
  if (row < 0 || static_cast<std::size_t>(row) >= plans_.size()) return out;
  for (const HolderIndex::Holder& h : plans_[static_cast<std::size_t>(row)].reserved.sorted()) {
    out.push_back({h.id, h.start});
  }
  return out;
}

// ---- factories -------------------------------------------------------------------

namespace {

PolicyPtr make(const ParamValues& values, bool backfill, bool migrate, RunMode mode) {
  GangOptions o;
  o.live = mode == RunMode::Live;
  o.backfill = backfill;
  o.migrate = migrate;
  o.mpl = static_cast<int>(values.integer("mpl"));
  o.slice = values.integer("slice");
  o.cs_percent = values.number("cs");
  o.charge_start = values.flag("charge_start");
  if (backfill) {
    o.rebuild_plan = values.choice("plan") == "rebuild";
    o.plan_factor = values.integer("plan_factor");
    o.stats = values.flag("stats");
    o.searches = values.integer("searches");
    o.live_seconds = values.number("live-limit");
  }
  if (migrate) {
    o.migration_cost = values.integer("c");
    o.max_tasks = values.integer("q");
    o.migrate_idle = values.flag("migrate_idle");
  }
  return std::make_unique<GangPolicy>(o, values.canonical());
}

const GangOptions kDefaults;

ParamTable with_backfilling(const ParamTable& t) {
  return t.with({Param::choice("plan", {"keep", "rebuild"},
                               "keep: reservations kept and compressed as in conservative; rebuild: re-planned in "
                               "FCFS order at every event from remaining estimates"),
                 Param::integer("plan_factor", kDefaults.plan_factor, 0, 1000,
                                "a job holds its row for this x its estimate; 0: MPL (the spec's worst case)"),
                 Param::flag("stats", kDefaults.stats,
                             "print the plan's counters to stderr at the end (reservations, compressions, overruns)"),
                 Param::integer("searches", kDefaults.searches, 0, 1000000000,
                                "plan=keep: planning searches a step at most, the rest in the next steps (0: no cap; "
                                "for studies)"),
                 Param::number("live-limit", kDefaults.live_seconds, 0, 3600,
                               "plan=keep, live: a step plans until this many wall-clock seconds after losd "
                               "received the snapshot (at least half of it), the rest in the next steps (0: none)")});
}

ParamTable with_migration(const ParamTable& t) {
  return t.with({
      Param::integer("c", kDefaults.migration_cost, 0, 100000000, "seconds per migration (checkpoint + restart)"),
      Param::integer("q", kDefaults.max_tasks, -1, 1000000000, "tasks migrated per slice, -1 unlimited"),
      Param::flag("migrate_idle", kDefaults.migrate_idle, "migrate even when no job waits"),
  });
}

}  // namespace

const ParamTable& gang_parameters() {
  static const ParamTable table = {
      Param::integer("mpl", kDefaults.mpl, 1, 64, "rows of the matrix (multiprogramming level)"),
      Param::integer("slice", kDefaults.slice, 1, 100000000, "time slice, seconds"),
      Param::number("cs", kDefaults.cs_percent, 0, 100, "context-switch stall, % of the slice"),
      Param::flag("charge_start", kDefaults.charge_start, "first starts pay the switch-in stall too"),
  };
  return table;
}
const ParamTable& bgs_parameters() {
  static const ParamTable table = with_backfilling(gang_parameters());
  return table;
}
const ParamTable& mgs_parameters() {
  static const ParamTable table = with_migration(gang_parameters());
  return table;
}
const ParamTable& mbgs_parameters() {
  static const ParamTable table = with_migration(with_backfilling(gang_parameters()));
  return table;
}

PolicyPtr make_gang(const ParamValues& values, RunMode mode) { return make(values, false, false, mode); }
PolicyPtr make_bgs(const ParamValues& values, RunMode mode) { return make(values, true, false, mode); }
PolicyPtr make_mgs(const ParamValues& values, RunMode mode) { return make(values, false, true, mode); }
PolicyPtr make_mbgs(const ParamValues& values, RunMode mode) { return make(values, true, true, mode); }

}  // namespace los
