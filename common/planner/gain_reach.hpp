// GainReach: where a reservation of a given size could still move, given the
// planner's gain log (Planner::log_gains) since the plan was last a fixpoint.
// Conservative's compression (policies/backfilling.cpp) and the gang rows'
// (policies/gang_row_plan.cpp) skip, with it and the HolderIndex, every
// holder that cannot move; their headers hold the proofs.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <vector>

#include "model/job.hpp"
#include "planner/planner.hpp"

namespace los {

// How late a holder of a given size can be reached from the units gained
// since the plan was last a fixpoint. A holder of `size` units reserved at r
// can move to s < r only if its window [s, min(s + d, r)) now has `size`
// units free throughout, and it had not: some point q in it gained, with
// free(q) >= size. The window then lies in the run of >= size free units
// through q, which ends at or before reach(size) (the run through the end of
// q's gained interval, or that end). So min(r, now + d) <= reach(size).
class GainReach {
 public:
  GainReach(const Planner& planner, Time now) : planner_(planner), now_(now) {
    refresh(std::numeric_limits<Time>::min(), kTimeInfinity);
  }

  // Reads what the gain log added since the last call, and the profile where
  // it changed: the intervals that meet [changed_from, changed_to] (every
  // point whose free units changed, closed so that an interval ending at
  // the edge re-reads free_at(end)) and the new or newly joined ones. The
  // others' max_free and free_at_end are read over points that did not
  // change, so they still hold.
  void refresh(Time changed_from, Time changed_to) {
    ++generation_;  // the profile changed: every reach may have
    const auto& log = planner_.gains();
    bool merged = false;
    for (; read_ < log.size(); ++read_) {
      const Time a = std::max(log[read_].first, now_);
      const Time b = log[read_].second;
      if (b <= a) continue;
      intervals_.push_back({a, b, kUnread, 0});
      merged = true;
    }
    if (merged) {
      // Few intervals (the early ends and the pass's moves so far): sort and
      // join overlapping ones; a joined interval is read again.
      std::sort(intervals_.begin(), intervals_.end(),
                [](const Interval& x, const Interval& y) { return x.start < y.start; });
      std::size_t kept = 0;
      for (std::size_t i = 0; i < intervals_.size(); ++i) {
        if (kept > 0 && intervals_[i].start <= intervals_[kept - 1].end) {
          intervals_[kept - 1].end = std::max(intervals_[kept - 1].end, intervals_[i].end);
          intervals_[kept - 1].max_free = kUnread;
        } else {
          intervals_[kept++] = intervals_[i];
        }
      }
      intervals_.resize(kept);
    }
    for (Interval& i : intervals_) {
      if (i.max_free != kUnread && (i.end < changed_from || i.start > changed_to)) continue;
      i.max_free = planner_.max_free(i.start, i.end);
      i.free_at_end = i.end < kTimeInfinity ? planner_.free_at(i.end) : 0;
    }
  }

  bool empty() const { return intervals_.empty(); }
  std::size_t intervals() const { return intervals_.size(); }
  Time first_gain() const { return intervals_.front().start; }

  Time reach(std::int64_t size) {
    // A direct-mapped cache by size: a pass asks for few sizes, many times
    // (every subtree bound the holder index tests).
    CachedReach& cached = cache_[static_cast<std::uint64_t>(size) % kCacheSlots];
    if (cached.generation == generation_ && cached.size == size) return cached.reach;
    // Only the last interval with a point of >= size free units counts: an
    // earlier one i reaches i.end, or the end of the run of >= size units
    // through i.end; if that run passes the last one's end e, it covers e
    // (the intervals are disjoint and ordered), so the last one's run is the
    // same run and reaches as far.
    Time latest = std::numeric_limits<Time>::min();
    for (auto i = intervals_.rbegin(); i != intervals_.rend(); ++i) {
      if (i->max_free < size) continue;  // no point there has enough
      latest = i->end < kTimeInfinity && i->free_at_end >= size ? planner_.first_short_after(i->end, size) : i->end;
      break;
    }
    cached = CachedReach{size, latest, generation_};
    return latest;
  }

 private:
  static constexpr std::int64_t kUnread = std::numeric_limits<std::int64_t>::min();
  static constexpr std::size_t kCacheSlots = 64;
  struct Interval {
    Time start;
    Time end;
    std::int64_t max_free;  // kUnread: not read since it was made or joined
    std::int64_t free_at_end;
  };
  struct CachedReach {
    std::int64_t size = 0;
    Time reach = 0;
    std::uint64_t generation = 0;  // valid while it equals generation_
  };
  const Planner& planner_;
  Time now_;
  std::vector<Interval> intervals_;  // disjoint, in time order
  std::size_t read_ = 0;             // entries of the gain log read so far
  std::uint64_t generation_ = 0;
  std::array<CachedReach, kCacheSlots> cache_{};
};

}  // namespace los
