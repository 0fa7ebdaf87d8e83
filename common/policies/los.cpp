#include "policies/los.hpp"

#include <algorithm>
#include <limits>

namespace los {
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

void weigh_jobs_over_slowdown(std::vector<LosCandidate>& window) {
  // Each job weighs more than the slowdowns of the whole window together, so
  // a set with more jobs always wins and the slowdowns only break ties. The
  // slowdowns are halved until (q + 1) weights fit far inside int64 (with the
  // default window they never are: 50 * 10^12 per weight).
  if (window.empty()) return;
  std::int64_t largest = 0;
  for (const LosCandidate& c : window) largest = std::max(largest, c.merit);
  const auto q = static_cast<__int128>(window.size());
  constexpr __int128 kLimit = static_cast<__int128>(1) << 62;
  int shift = 0;
  while ((q + 1) * (q * (largest >> shift) + 1) > kLimit) ++shift;
  const std::int64_t weight = static_cast<std::int64_t>(q * (largest >> shift) + 1);
  for (LosCandidate& c : window) c.merit = weight + (c.merit >> shift);
}

namespace {

// The first position p >= from at which a job may have size <= units and
// (size <= narrow_units or estimate <= short_estimate): JobQueue::first_fitting
// over the queue's compact size and estimate arrays when it knows them, else
// `from`. The loops below still test every job they stop at, so this only
// skips jobs their own tests would refuse, without reading them (issue 17:
// the hybrid's EASY steps walk queues of thousands).
std::size_t skip_to_fit(const JobQueue& queue, std::size_t from, std::int64_t units, std::int64_t narrow_units,
                        Time short_estimate) {
  if (from >= queue.size() || !queue.shapes_known()) return from;
  return queue.first_fitting(from, queue.size(), {units, narrow_units, short_estimate});
}

// Jobs of at most `units` units (whatever their estimate).
std::size_t skip_to_size(const JobQueue& queue, std::size_t from, std::int64_t units) {
  return skip_to_fit(queue, from, units, units, 0);
}

}  // namespace

LosPolicy::LosPolicy(LosOptions options, std::string label) : options_(options), label_(std::move(label)) {}

void LosPolicy::start_now(const Job& job, Time now, StepResult& result) {
  profile_.start(job.id, job.size, now, planned_duration(job.estimate));
  if (!passed_over_.empty()) passed_over_.erase(job.id);
  result.decisions.push_back(Decision::start(job.id));
}

StepResult LosPolicy::step(const Snapshot& snapshot) {
  const Time now = snapshot.now;
  StepResult result;
  reservation_.clear();
  if (passed_over_.size() > snapshot.queue.size()) {
    // Some picks passed over left the queue without this policy starting
    // them (withdrawn, or started by another scheduler): forget those.
    std::unordered_set<JobId> waiting;
    for (const Job& j : snapshot.queue) waiting.insert(j.id);
    std::erase_if(passed_over_, [&](JobId id) { return waiting.count(id) == 0; });
  }

  if (options_.protect == LosProtect::LateInexact || options_.rules == LosRules::LongInexact) {
    for (const SnapshotEvent& ev : snapshot.events) {
      if (ev.kind != SnapshotEvent::Kind::Ended) continue;
      const double ran = static_cast<double>(std::max<Time>(now - ev.start, 0));
      const double accuracy = std::min(1.0, ran / static_cast<double>(planned_duration(ev.estimate)));
      estimate_accuracy_ += (accuracy - estimate_accuracy_) * kEstimateAccuracyWeight;
    }
  }
  // LOS keeps no promises between steps, so the profile holds exactly the
  // running jobs and its free count at `now` must be the snapshot's.
  bool freed = false;
  if (snapshot.resync || profile_.stale(snapshot) || !profile_.update(snapshot, freed) ||
      profile_.planner().free_at(now) != snapshot.free_units) {
    profile_.rebuild(snapshot);
  }

  std::int64_t free_now = snapshot.free_units;
  const JobQueue& queue = snapshot.queue;
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
  const bool blocked =
      pos < queue.size() && queue[pos].size > free_now && (options_.head == LosHead::Loop || result.decisions.empty());
  if (blocked) {
    const Job& head = queue[pos];
    shadow = profile_.planner().earliest_start(head.size, 1, now);
    extra = profile_.planner().free_at(shadow) - head.size;
    if (options_.extra == LosExtra::Thesis && shadow < kTimeInfinity && shadow > now) {
      // The head does not fit just before its shadow time; the jobs ending
      // at it count one by one until it does.
      std::int64_t units = profile_.planner().free_at(shadow - 1);
      for (const int size : profile_.sizes_ending_at(shadow)) {
        if (units >= head.size) break;
        units += size;
      }
      // Units the profile holds for no job it knows of (it cannot tell them
      // apart) keep the profile's count.
      if (units >= head.size) extra = std::min(extra, units - head.size);
    }
    reservation_.push_back({head.id, shadow});
    ++pos;
  }
  if (!options_.use_extra) extra = 0;
  if (free_now <= 0) return result;
  const std::size_t window_begin = pos;
  // rules=long-inexact with exact estimates: the thesis's step, without the gate either.
  const bool exact_step = options_.rules == LosRules::LongInexact && estimates_exact();
  if (options_.gate != LosGate::None && !exact_step) {
    const auto window = static_cast<std::size_t>(options_.lookahead);
    std::size_t counted = 0;
    if (options_.gate == LosGate::Queue) {
      counted = std::min(queue.size() - pos, window + 1);
    } else {
      for (std::size_t i = skip_to_size(queue, pos, free_now); i < queue.size() && counted <= window;
           i = skip_to_size(queue, i + 1, free_now)) {
        counted += queue[i].size <= free_now;
      }
    }
    if (counted > window) {
      backfill_rest(snapshot, window_begin, shadow, free_now, std::min<std::int64_t>(extra, free_now), result);
      return result;
    }
  }

  // A long queue: more jobs wait behind the blocked head than the window
  // holds. With rules=long (or long-inexact) a step on a shorter one is the
  // thesis's.
  const bool long_queue = queue.size() - window_begin > static_cast<std::size_t>(options_.lookahead);
  const bool thesis_step = (options_.rules != LosRules::Every && !long_queue) || exact_step;
  const LosKeep keep = thesis_step ? LosKeep::Optimal : options_.keep;
  const LosProtect protect = thesis_step ? LosProtect::None : options_.protect;

  // WQ': the next jobs that fit now, at most `lookahead` of them.
  problem_.jobs.clear();
  candidates_.clear();
  for (pos = skip_to_size(queue, pos, free_now);
       pos < queue.size() && candidates_.size() < static_cast<std::size_t>(options_.lookahead);
       pos = skip_to_size(queue, pos + 1, free_now)) {
    const Job& j = queue[pos];
    if (j.size > free_now) continue;
    const Time d = planned_duration(j.estimate);
    LosCandidate c;
    c.size = j.size;
    c.ssize = (shadow >= kTimeInfinity || now + d <= shadow) ? 0 : j.size;
    if (options_.window == LosWindow::Admissible && c.ssize > std::min<std::int64_t>(extra, free_now)) continue;
    c.merit = options_.merit == LosMerit::MaxJobs ? 1
              : options_.merit == LosMerit::MaxSlowdown || options_.merit == LosMerit::MaxJobsThenSlowdown
                  ? los_slowdown_merit(now, j.submit, j.estimate)
                  : 0;
    problem_.jobs.push_back(c);
    candidates_.push_back(&j);
  }
  if (options_.merit == LosMerit::MaxJobsThenSlowdown) weigh_jobs_over_slowdown(problem_.jobs);
  std::int64_t extra_left = std::min<std::int64_t>(extra, free_now);
  if (keep == LosKeep::Short) {
    // EASY's walk over the window; the jobs it starts that end by the shadow
    // time start now, and the selection runs over the rest of the window
    // with the units they leave (extra is untouched: they do not use it).
    std::int64_t free_left = free_now;
    std::int64_t extra_greedy = extra_left;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < problem_.jobs.size(); ++i) {
      const LosCandidate c = problem_.jobs[i];
      const Job* job = candidates_[i];
      const bool easy_takes = c.size <= free_left && c.ssize <= extra_greedy;
      if (easy_takes) {
        free_left -= c.size;
        extra_greedy -= c.ssize;
      }
      if (easy_takes && c.ssize == 0) {
        start_now(*job, now, result);
        free_now -= c.size;
        continue;
      }
      problem_.jobs[kept] = c;
      candidates_[kept] = job;
      ++kept;
    }
    problem_.jobs.resize(kept);
    candidates_.resize(kept);
  }
  const Job* passable = nullptr;
  if (protect != LosProtect::None)
    passable = start_protected_pick(now, protect, long_queue, free_now, extra_left, result);
  if (!problem_.jobs.empty() && free_now > 0) {
    problem_.free_now = static_cast<int>(free_now);
    problem_.extra = static_cast<int>(extra_left);
    problem_.traceback = options_.traceback;
    const bool queue_order =
        options_.select == LosSelect::Queue || (options_.select == LosSelect::LongQueue && long_queue);
    LosSelection chosen = queue_order ? los_select_queue_order(problem_) : los_select(problem_);
    const std::vector<std::size_t>* starts = &chosen.chosen;
    if (keep == LosKeep::Ties) {
      // When the selection fills more than EASY's walk over the window, it
      // chooses again among the sets filling exactly EASY's units (capping
      // the free units there: EASY's set is feasible, so the optimum is its
      // fill, and the keys only break the tie).
      const std::int64_t greedy_util = easy_walk_over_window(free_now, extra_left);
      if (chosen.key.util > greedy_util) {
        problem_.free_now = static_cast<int>(greedy_util);
        problem_.extra = static_cast<int>(std::min(extra_left, greedy_util));
        chosen = queue_order ? los_select_queue_order(problem_) : los_select(problem_);
      }
    }
    if (keep == LosKeep::Easy) {
      // EASY's walk over the same window; the selection replaces it only
      // when it fills more than `gain` percent of the free units beyond it.
      const std::int64_t greedy_util = easy_walk_over_window(free_now, extra_left);
      if (chosen.key.util * 100 <= greedy_util * 100 + static_cast<std::int64_t>(options_.gain) * free_now) {
        starts = &greedy_;
      }
    }
    for (std::size_t i : *starts) {
      start_now(*candidates_[i], now, result);
      free_now -= problem_.jobs[i].size;
      extra_left -= problem_.jobs[i].ssize;
    }
  }
  if (passable != nullptr && std::none_of(result.decisions.begin(), result.decisions.end(),
                                          [&](const Decision& d) { return d.job == passable->id; })) {
    passed_over_.insert(passable->id);
  }
  if (options_.rest == LosRest::Easy) backfill_rest(snapshot, window_begin, shadow, free_now, extra_left, result);
  return result;
}

bool LosPolicy::estimates_exact() const { return estimate_accuracy_ >= kExactEstimates; }

void LosPolicy::copy_history_to(Policy& fresh) const {
  auto* los = dynamic_cast<LosPolicy*>(&fresh);
  if (los == nullptr) return;
  los->estimate_accuracy_ = estimate_accuracy_;
  los->passed_over_ = passed_over_;
}

const Job* LosPolicy::start_protected_pick(Time now, LosProtect rule, bool long_queue, std::int64_t& free_now,
                                           std::int64_t& extra_left, StepResult& result) {
  // EASY's first pick from the window: the earliest job that can start now.
  std::size_t i = 0;
  while (i < problem_.jobs.size() && (problem_.jobs[i].size > free_now || problem_.jobs[i].ssize > extra_left)) ++i;
  if (i == problem_.jobs.size()) return nullptr;
  const LosCandidate c = problem_.jobs[i];
  const Job* job = candidates_[i];
  const bool protect = rule == LosProtect::First || (rule == LosProtect::Long && long_queue) ||
                       (rule == LosProtect::Extra && c.ssize > 0) ||
                       (rule == LosProtect::Once && passed_over_.count(job->id) > 0) ||
                       ((rule == LosProtect::Late || (rule == LosProtect::LateInexact && !estimates_exact())) &&
                        now - job->submit >= planned_duration(job->estimate));
  if (!protect) return rule == LosProtect::Once ? job : nullptr;
  start_now(*job, now, result);
  free_now -= c.size;
  extra_left -= c.ssize;
  problem_.jobs.erase(problem_.jobs.begin() + static_cast<std::ptrdiff_t>(i));
  candidates_.erase(candidates_.begin() + static_cast<std::ptrdiff_t>(i));
  return nullptr;
}

std::int64_t LosPolicy::easy_walk_over_window(std::int64_t free_now, std::int64_t extra_left) {
  greedy_.clear();
  std::int64_t free_left = free_now;
  std::int64_t extra_greedy = extra_left;
  for (std::size_t i = 0; i < problem_.jobs.size(); ++i) {
    const LosCandidate& c = problem_.jobs[i];
    if (c.size > free_left || c.ssize > extra_greedy) continue;
    greedy_.push_back(i);
    free_left -= c.size;
    extra_greedy -= c.ssize;
  }
  return free_now - free_left;
}

void LosPolicy::backfill_rest(const Snapshot& snapshot, std::size_t from, Time shadow, std::int64_t free_now,
                              std::int64_t extra_left, StepResult& result) {
  const Time now = snapshot.now;
  // Skip the jobs this step already started (heads and the selection).
  started_.clear();
  for (const Decision& d : result.decisions) started_.push_back(d.job);
  std::sort(started_.begin(), started_.end());
  // A job that starts here ends by the shadow time only if its estimate is
  // at most shadow - now.
  const Time short_estimate = shadow >= kTimeInfinity ? std::numeric_limits<Time>::max() : shadow - now;
  const JobQueue& queue = snapshot.queue;
  for (std::size_t pos = skip_to_fit(queue, from, free_now, extra_left, short_estimate);
       pos < queue.size() && free_now > 0; pos = skip_to_fit(queue, pos + 1, free_now, extra_left, short_estimate)) {
    const Job& j = queue[pos];
    if (j.size > free_now || std::binary_search(started_.begin(), started_.end(), j.id)) continue;
    const bool ends_by_shadow = shadow >= kTimeInfinity || now + planned_duration(j.estimate) <= shadow;
    if (!ends_by_shadow && j.size > extra_left) continue;
    start_now(j, now, result);
    free_now -= j.size;
    if (!ends_by_shadow) extra_left -= j.size;
  }
}

std::vector<PlannedStart> LosPolicy::reservations() const { return reservation_; }

namespace {

// What design=hybrid and design=thesis give a key left at "auto".
struct DesignDefaults {
  const char* gate;
  const char* keep;
  const char* protect;
  const char* rest;
  const char* rules;
};
constexpr DesignDefaults kHybrid{"fit", "ties", "late-inexact", "easy", "long-inexact"};
constexpr DesignDefaults kThesis{"none", "optimal", "none", "none", "every"};

LosMerit merit_named(const std::string& name) {
  return name == "jobs"            ? LosMerit::MaxJobs
         : name == "slowdown"      ? LosMerit::MaxSlowdown
         : name == "jobs-slowdown" ? LosMerit::MaxJobsThenSlowdown
                                   : LosMerit::None;
}

// thesis_merit: the variant's merit in the thesis; hybrid_merit: its merit
// under design=hybrid (los breaks its ties by expected slowdown there).
PolicyPtr make_variant(const ParamValues& values, bool use_extra, LosMerit thesis_merit, LosMerit hybrid_merit) {
  const bool thesis = values.choice("design") == "thesis";
  const DesignDefaults& design = thesis ? kThesis : kHybrid;
  auto resolved = [&](const char* key, const char* fallback) -> std::string {
    const std::string& v = values.choice(key);
    return v == "auto" ? fallback : v;
  };
  LosOptions o;
  o.use_extra = use_extra;
  const std::string& merit = values.choice("merit");
  o.merit = merit == "auto" ? (thesis ? thesis_merit : hybrid_merit) : merit_named(merit);
  o.lookahead = static_cast<int>(values.integer("lookahead"));
  const std::string& traceback = values.choice("traceback");
  o.traceback = traceback == "selected-first" ? LosTraceback::SelectedFirst
                : traceback == "head-first"   ? LosTraceback::HeadFirst
                                              : LosTraceback::BypassedFirst;
  o.head = values.choice("head") == "once" ? LosHead::Once : LosHead::Loop;
  o.rest = resolved("rest", design.rest) == "easy" ? LosRest::Easy : LosRest::None;
  const std::string keep = resolved("keep", design.keep);
  o.keep = keep == "easy"    ? LosKeep::Easy
           : keep == "short" ? LosKeep::Short
           : keep == "ties"  ? LosKeep::Ties
                             : LosKeep::Optimal;
  const std::string protect = resolved("protect", design.protect);
  o.protect = protect == "first"          ? LosProtect::First
              : protect == "late"         ? LosProtect::Late
              : protect == "late-inexact" ? LosProtect::LateInexact
              : protect == "once"         ? LosProtect::Once
              : protect == "long"         ? LosProtect::Long
              : protect == "extra"        ? LosProtect::Extra
                                          : LosProtect::None;
  o.gain = static_cast<int>(values.integer("gain"));
  o.window = values.choice("window") == "admissible" ? LosWindow::Admissible : LosWindow::Fit;
  const std::string gate = resolved("gate", design.gate);
  o.gate = gate == "fit" ? LosGate::Fit : gate == "queue" ? LosGate::Queue : LosGate::None;
  const std::string select = values.choice("select");
  o.select = select == "queue" ? LosSelect::Queue : select == "long-queue" ? LosSelect::LongQueue : LosSelect::Thesis;
  o.extra = values.choice("extra") == "thesis" ? LosExtra::Thesis : LosExtra::Profile;
  const std::string rules = resolved("rules", design.rules);
  o.rules = rules == "long" ? LosRules::Long : rules == "long-inexact" ? LosRules::LongInexact : LosRules::Every;
  return std::make_unique<LosPolicy>(o, values.canonical());
}

// The table of every variant; `design_choices` puts the variant's default design first.
ParamTable make_los_table(std::vector<std::string> design_choices) {
  return {
      Param::choice("design", std::move(design_choices),
                    "hybrid: on a queue longer than lookahead behind the blocked head, while estimates run long, "
                    "EASY's step whose ties the selection re-decides (the defaults of the keys below), otherwise the "
                    "thesis's selection; thesis: the thesis's algorithm in every step. Keys left at auto follow the "
                    "design (docs/los.md)"),
      Param::choice("merit", {"auto", "none", "jobs", "slowdown", "jobs-slowdown"},
                    "the selection's last key between sets equal in units and shadow use: auto: the variant's "
                    "(los: slowdown with design=hybrid, none with thesis; los-maxjobs: jobs-slowdown with hybrid, jobs "
                    "with thesis; los-maxsd: slowdown; los-basic: none); none; jobs: the most jobs; slowdown: the "
                    "largest sum of expected slowdowns; jobs-slowdown: the most jobs, then the largest sum of "
                    "expected slowdowns"),
      Param::integer("lookahead", LosOptions{}.lookahead, 1, 1000000, "waiting jobs the selection considers (C)"),
      Param::choice("traceback", {"bypassed-first", "selected-first", "head-first"},
                    "which of equally good sets is chosen"),
      Param::choice("head", {"loop", "once"},
                    "loop: start heads while they fit, then reserve; once: the thesis's literal single head start"),
      Param::choice("rest", {"auto", "none", "easy"},
                    "jobs past the lookahead window: auto: hybrid easy, thesis none; none: never considered (the "
                    "thesis); easy: backfilled after the selection under the head's reservation, as EASY does"),
      Param::choice("keep", {"auto", "optimal", "easy", "short", "ties"},
                    "auto: hybrid ties, thesis optimal; optimal: start the selection's set (the thesis); easy: start "
                    "the set EASY's queue-order walk starts from the window unless the selection fills more than "
                    "gain% of the free units beyond it; short: EASY's picks that end by the shadow time first; ties: "
                    "the selection chooses among the sets filling as many units as EASY's walk, never more"),
      Param::choice("protect", {"auto", "none", "first", "once", "long", "extra", "late", "late-inexact"},
                    "EASY's first pick from the window (the earliest job that can start now) starts before the "
                    "selection: auto: hybrid late-inexact, thesis none; none: never; first: always; once: when the "
                    "selection passed it over before; long: when more than lookahead jobs wait behind the blocked "
                    "head; extra: when it runs past the shadow time; late: when it has waited at least its "
                    "estimate; late-inexact: late, while the jobs that ended lately ran less than 0.9 of their "
                    "estimates on average (not with exact estimates)"),
      Param::choice("rules", {"auto", "long", "long-inexact", "every"},
                    "the steps gate, keep and protect apply to: auto: hybrid long-inexact, thesis every; long: "
                    "only where more than lookahead jobs wait behind the blocked head (a shorter queue gets the "
                    "thesis's selection); long-inexact: long, while the jobs that ended lately ran less than 0.9 "
                    "of their estimates on average (with exact estimates every step is the thesis's selection); "
                    "every: every step"),
      Param::integer("gain", LosOptions{}.gain, 0, 100,
                     "with keep=easy: percent of the free units the selection must fill beyond EASY's set"),
      Param::choice("window", {"fit", "admissible"},
                    "which jobs count towards lookahead: fit: those that fit now (the thesis); admissible: only "
                    "those that could start under the head's reservation"),
      Param::choice("gate", {"auto", "none", "fit", "queue"},
                    "when a step is EASY's instead of the selection's: auto: hybrid fit, thesis none; none: never "
                    "(the thesis); fit: when more than lookahead waiting jobs fit now; queue: when more than "
                    "lookahead jobs wait behind the head"),
      Param::choice("select", {"thesis", "queue", "long-queue"},
                    "which set the selection returns: thesis: most units, then least shadow use, merit and "
                    "traceback; queue: of the sets filling the most units, the one EASY's queue order prefers "
                    "(EASY's own set whenever it fills the most); long-queue: thesis while at most lookahead "
                    "jobs wait behind the blocked head, queue when more wait"),
      Param::choice("extra", {"profile", "thesis"},
                    "the head's extra units at its shadow time: profile: every unit free then (every job ending "
                    "by the shadow time counts, as in EASY); thesis: the thesis's formula, running jobs in order "
                    "of expected end (ties by job id) added only until the head fits"),
  };
}

}  // namespace

const ParamTable& los_parameters() {
  static const ParamTable table = make_los_table({"hybrid", "thesis"});
  return table;
}

const ParamTable& los_basic_parameters() {
  static const ParamTable table = make_los_table({"thesis", "hybrid"});
  return table;
}

PolicyPtr make_los(const ParamValues& values, RunMode) {
  return make_variant(values, true, LosMerit::None, LosMerit::MaxSlowdown);
}
PolicyPtr make_los_basic(const ParamValues& values, RunMode) {
  return make_variant(values, false, LosMerit::None, LosMerit::None);
}
PolicyPtr make_los_maxjobs(const ParamValues& values, RunMode) {
  return make_variant(values, true, LosMerit::MaxJobs, LosMerit::MaxJobsThenSlowdown);
}
PolicyPtr make_los_maxsd(const ParamValues& values, RunMode) {
  return make_variant(values, true, LosMerit::MaxSlowdown, LosMerit::MaxSlowdown);
}

}  // namespace los
