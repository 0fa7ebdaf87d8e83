#include "policies/los.hpp"

#include <algorithm>

namespace los {
namespace {

// A zero estimate would occupy nothing; one second is the smallest span the
// profile holds (the same rule as the backfilling policies).
Time planned_duration(Time estimate) { return std::max<Time>(estimate, 1); }

}  // namespace

std::int64_t los_slowdown_merit(Time now, Time submit, Time estimate) {
  const Time d = planned_duration(estimate);
  const Time wait = std::max<Time>(now - submit, 0);
  // round((wait + d) / d * 10^6) in integers: exact, so ties are reproducible.
  // A slowdown above 10^6 counts as 10^6, so that a sum over any set the
  // solver can choose (at most one job per unit) stays far inside int64.
  constexpr std::int64_t kMicro = 1000000;
  constexpr Time kMaxSlowdown = 1000000;
  if (wait / d >= kMaxSlowdown) return kMaxSlowdown * kMicro;
  return ((wait + d) * kMicro + d / 2) / d;
}

LosPolicy::LosPolicy(LosOptions options, std::string label) : options_(options), label_(std::move(label)) {}

void LosPolicy::add_running(JobId id, int size, Time end) {
  running_[id] = Occupation{size, end};
  running_by_end_.insert({end, id});
}

bool LosPolicy::apply_events(const Snapshot& snapshot) {
  const Time now = snapshot.now;
  for (const SnapshotEvent& ev : snapshot.events) {
    switch (ev.kind) {
      case SnapshotEvent::Kind::Arrived:
        break;
      case SnapshotEvent::Kind::Started: {
        // Only starts this policy decided are already in the profile.
        const auto it = starting_.find(ev.job);
        if (it == starting_.end()) return false;
        add_running(ev.job, it->second.size, it->second.end);
        starting_.erase(it);
        break;
      }
      case SnapshotEvent::Kind::Ended: {
        const auto it = running_.find(ev.job);
        if (it == running_.end()) return false;
        const Occupation occ = it->second;
        running_by_end_.erase({occ.end, ev.job});
        running_.erase(it);
        if (occ.end > now) planner_.add(now, occ.end, occ.size);
        break;
      }
      case SnapshotEvent::Kind::Withdrawn:
        if (starting_.count(ev.job)) return false;
        break;
      case SnapshotEvent::Kind::Suspended:
      case SnapshotEvent::Kind::Resumed:
        return false;  // not space sharing: rebuild from the snapshot
    }
  }
  // A start decision not carried out, a job past its estimate, or a free
  // count that disagrees: the profile no longer matches the cluster.
  if (!starting_.empty()) return false;
  if (!running_by_end_.empty() && running_by_end_.begin()->first <= now) return false;
  return planner_.free_at(now) == snapshot.free_units;
}

void LosPolicy::rebuild(const Snapshot& snapshot) {
  const Time now = snapshot.now;
  planner_ = Planner(snapshot.total_units, now);
  running_.clear();
  running_by_end_.clear();
  starting_.clear();
  for (const RunningJob& r : snapshot.running) {
    if (r.suspended) continue;
    const Time end = r.expected_end(now);
    planner_.add(now, end, -r.job.size);
    add_running(r.job.id, r.job.size, end);
  }
  // The snapshot's free count is the truth (a drained unit, a job the
  // profile cannot see): the profile follows it from now until the first end.
  const std::int64_t gap = snapshot.free_units - planner_.free_at(now);
  if (gap != 0) {
    const Time first_end = running_by_end_.empty() ? kTimeInfinity : running_by_end_.begin()->first;
    planner_.add(now, first_end, gap);
  }
}

void LosPolicy::start_now(const Job& job, Time now, StepResult& result) {
  const Time d = planned_duration(job.estimate);
  planner_.add(now, now + d, -job.size);
  starting_[job.id] = Occupation{job.size, now + d};
  result.decisions.push_back(Decision::start(job.id));
}

StepResult LosPolicy::step(const Snapshot& snapshot) {
  const Time now = snapshot.now;
  StepResult result;
  reservation_.clear();

  if (snapshot.resync || planner_.capacity() != snapshot.total_units || now < planner_.origin()) {
    rebuild(snapshot);
  } else {
    planner_.advance_to(now);
    if (!apply_events(snapshot)) rebuild(snapshot);
  }

  std::int64_t free_now = snapshot.free_units;
  const std::vector<Job>& queue = snapshot.queue;
  std::size_t pos = 0;
  // Jobs larger than the partition can never start here; they are skipped
  // everywhere (never the head, never a candidate).
  auto next_eligible = [&]() {
    while (pos < queue.size() && queue[pos].size > snapshot.total_units) ++pos;
  };

  next_eligible();
  if (options_.head == LosHead::Loop) {
    while (pos < queue.size() && queue[pos].size <= free_now) {
      start_now(queue[pos], now, result);
      free_now -= queue[pos].size;
      ++pos;
      next_eligible();
    }
  } else if (pos < queue.size() && queue[pos].size <= free_now) {
    start_now(queue[pos], now, result);
    free_now -= queue[pos].size;
    ++pos;
  }

  // The head still waiting (if any) is blocked: reserve its shadow time.
  Time shadow = kTimeInfinity;
  std::int64_t extra = 0;
  next_eligible();
  const bool blocked = pos < queue.size() && queue[pos].size > free_now &&
                       (options_.head == LosHead::Loop || result.decisions.empty());
  if (blocked) {
    const Job& head = queue[pos];
    shadow = planner_.earliest_start(head.size, 1, now);
    extra = planner_.free_at(shadow) - head.size;
    reservation_.push_back({head.id, shadow});
    ++pos;
  }
  if (!options_.use_extra) extra = 0;
  if (free_now <= 0) return result;

  // WQ': the next jobs that fit now, at most `lookahead` of them.
  problem_.jobs.clear();
  candidates_.clear();
  const bool merit_slowdown = options_.merit == LosMerit::MaxSlowdown;
  for (; pos < queue.size() && candidates_.size() < static_cast<std::size_t>(options_.lookahead); ++pos) {
    const Job& j = queue[pos];
    if (j.size > free_now) continue;
    const Time d = planned_duration(j.estimate);
    LosCandidate c;
    c.size = j.size;
    c.ssize = (shadow >= kTimeInfinity || now + d <= shadow) ? 0 : j.size;
    c.merit = options_.merit == LosMerit::MaxJobs ? 1 : merit_slowdown ? los_slowdown_merit(now, j.submit, j.estimate) : 0;
    problem_.jobs.push_back(c);
    candidates_.push_back(&j);
  }
  if (problem_.jobs.empty()) return result;
  problem_.free_now = static_cast<int>(free_now);
  problem_.extra = static_cast<int>(std::min<std::int64_t>(extra, free_now));
  problem_.traceback = options_.traceback;
  const LosSelection chosen = los_select(problem_);
  for (std::size_t i : chosen.chosen) start_now(*candidates_[i], now, result);
  return result;
}

std::vector<PlannedStart> LosPolicy::reservations() const { return reservation_; }

namespace {

PolicyPtr make_variant(const PolicySpec& spec, bool use_extra, LosMerit merit) {
  LosOptions o;
  o.use_extra = use_extra;
  o.merit = merit;
  o.lookahead = static_cast<int>(spec.get_int("lookahead", 50, 1, 1000000));
  o.traceback = spec.get_choice("traceback", "bypassed-first", {"bypassed-first", "selected-first"}) == "selected-first"
                    ? LosTraceback::SelectedFirst
                    : LosTraceback::BypassedFirst;
  o.head = spec.get_choice("head", "loop", {"loop", "once"}) == "once" ? LosHead::Once : LosHead::Loop;
  spec.reject_unknown();
  // Canonical spelling: the name, then the non-default parameters in key order.
  std::string label = spec.name;
  if (o.head == LosHead::Once) label += ":head=once";
  if (o.lookahead != 50) label += ":lookahead=" + std::to_string(o.lookahead);
  if (o.traceback == LosTraceback::SelectedFirst) label += ":traceback=selected-first";
  return std::make_unique<LosPolicy>(o, std::move(label));
}

}  // namespace

PolicyPtr make_los(const PolicySpec& spec) { return make_variant(spec, true, LosMerit::None); }
PolicyPtr make_los_basic(const PolicySpec& spec) { return make_variant(spec, false, LosMerit::None); }
PolicyPtr make_los_maxjobs(const PolicySpec& spec) { return make_variant(spec, true, LosMerit::MaxJobs); }
PolicyPtr make_los_maxsd(const PolicySpec& spec) { return make_variant(spec, true, LosMerit::MaxSlowdown); }

}  // namespace los
