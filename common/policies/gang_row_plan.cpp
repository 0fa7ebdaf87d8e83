#include "policies/gang_row_plan.hpp"

#include <algorithm>

namespace los {

void GangRowPlan::restart(std::int64_t capacity, Time origin) {
  planner_ = Planner(capacity, origin);
  planner_.log_gains(true);  // no holder in the new profile: a fixpoint
  sweep_.reset();
  bound_.reset();
  bound_empty_ = true;
}

void GangRowPlan::validate(Time now) {
  if (bound_empty_) {
    bound_additions_ = planner_.additions();
    bound_now_ = now;
    return;
  }
  if (planner_.additions() != bound_additions_ || now < bound_now_) {
    bound_.reset();
    bound_empty_ = true;
    bound_additions_ = planner_.additions();
  }
  bound_now_ = now;
}

Time GangRowPlan::lower_bound(std::int64_t size, Time duration, Time now) {
  validate(now);
  return std::max(now, bound_.lower(size, duration));
}

Time GangRowPlan::earliest_start(std::int64_t size, Time duration, Time now) {
  const Time s = planner_.earliest_start(size, duration, lower_bound(size, duration, now));
  bound_.record(size, duration, s);
  bound_empty_ = false;
  return s;
}

const std::vector<GangRowPlan::Move>& GangRowPlan::compress(Time now, const SpanOf& span_of, Compression how,
                                                            StepBudget* budget) {
  moves_.clear();
  if (how == Compression::FullScan || !planner_.logging_gains()) {  // the reference: no budget
    compress_full_scan(now, span_of);
    planner_.clear_gains();
    return moves_;
  }
  // Conservative's indexed pass, on this row's profile and holders (the
  // proof that it applies here is in the header); a sweep the budget
  // stopped goes on at its cursor.
  sweep_.run(
      planner_, reserved, visited_, now, [budget] { return budget == nullptr || budget->take(); },
      [&](const HolderIndex::Holder& h, Time s) { move_span(h, s, span_of); }, [&] { reindex_moved(); });
  return moves_;
}

void GangRowPlan::compress_full_scan(Time now, const SpanOf& span_of) {
  for (const HolderIndex::Holder& h : reserved.sorted()) {
    if (h.start <= now) continue;
    // Asked with the holder's own reservation in place: the horizon cuts the
    // window at its start, so this is "can it start before?".
    const Time s = planner_.earliest_start(h.size, h.duration, now, h.start);
    if (s >= h.start) continue;
    move_span(h, s, span_of);
  }
  reindex_moved();
}

void GangRowPlan::move_span(const HolderIndex::Holder& h, Time s, const SpanOf& span_of) {
  Planner::SpanId& span = span_of(h.id);
  span = planner_.move(span, s, h.duration, h.size);
  moved_.push_back(h);
  moves_.push_back({h.id, h.start, s});
}

void GangRowPlan::reindex_moved() {
  // moved_ holds the last pass's moves: the tail of moves_ (a call may run
  // two passes, the second for gains deferred while a sweep was stopped).
  const std::size_t first = moves_.size() - moved_.size();
  reserved.move_all(moved_, [&](std::size_t i) { return moves_[first + i].to; });
  moved_.clear();
}

}  // namespace los
