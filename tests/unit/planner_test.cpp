// The planner against a brute-force reference on thousands of random cases,
// and a few hand-computed profiles.
#include "planner/planner.hpp"

#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace los {
namespace {

// Reference: free units per second over a short horizon, everything by scans.
class BrutePlanner {
 public:
  BrutePlanner(std::int64_t capacity, Time horizon)
      : free_(static_cast<std::size_t>(horizon), capacity), capacity_(capacity) {}
  std::int64_t at(Time t) const { return t < static_cast<Time>(free_.size()) ? free_[t] : capacity_; }
  void add(Time a, Time b, std::int64_t d) {
    for (Time t = a; t < b && t < static_cast<Time>(free_.size()); ++t) free_[t] += d;
  }
  Time earliest(std::int64_t size, Time dur, Time from) const {
    for (Time s = from; s < static_cast<Time>(free_.size()) + 1; ++s) {
      bool ok = true;
      for (Time t = s; t < s + dur && ok; ++t) ok = at(t) >= size;
      if (ok) return s;
    }
    return size <= capacity_ ? static_cast<Time>(free_.size()) : kTimeInfinity;
  }
  std::int64_t min_free(Time a, Time b) const {
    std::int64_t m = at(a);
    for (Time t = a; t < b; ++t) m = std::min(m, at(t));
    return m;
  }

 private:
  std::vector<std::int64_t> free_;
  std::int64_t capacity_;
};

TEST(Planner, EmptyProfileHasOneSlot) {
  Planner p(10, 5);
  EXPECT_EQ(p.slots(), (std::vector<AvailabilitySlot>{{5, kTimeInfinity, 10}}));
  EXPECT_EQ(p.earliest_start(10, 100, 0), 5);
  EXPECT_EQ(p.earliest_start(11, 1, 0), kTimeInfinity);
}

TEST(Planner, HandComputedProfile) {
  // 10 units; a running job holds 6 until 10, a reservation holds 8 from 10 to 20.
  Planner p(10, 0);
  p.reserve(0, 10, 6);
  const Planner::SpanId reservation = p.reserve(10, 10, 8);
  EXPECT_EQ(p.slots(), (std::vector<AvailabilitySlot>{{0, 10, 4}, {10, 20, 2}, {20, kTimeInfinity, 10}}));
  EXPECT_EQ(p.earliest_start(4, 10, 0), 0);   // fits before 10 exactly
  EXPECT_EQ(p.earliest_start(4, 11, 0), 20);  // would cross into the 2-unit slot
  EXPECT_EQ(p.earliest_start(2, 100, 0), 0);
  EXPECT_EQ(p.earliest_start(3, 15, 0), 20);
  EXPECT_EQ(p.min_free(0, 25), 2);
  EXPECT_EQ(p.min_free(0, 10), 4);
  // Releasing the reservation merges the segments back.
  p.release(reservation);
  EXPECT_EQ(p.slots(), (std::vector<AvailabilitySlot>{{0, 10, 4}, {10, kTimeInfinity, 10}}));
  EXPECT_EQ(p.size(), 2u);
  // A handle is good for one release only.
  p.release(reservation);
  EXPECT_EQ(p.slots(), (std::vector<AvailabilitySlot>{{0, 10, 4}, {10, kTimeInfinity, 10}}));
  EXPECT_EQ(p.spans(), 1u);
}

TEST(Planner, StaleHandleDoesNotReleaseTheSpanInItsSlot) {
  Planner p(10, 0);
  const Planner::SpanId first = p.reserve(0, 10, 4);
  p.release(first);
  const Planner::SpanId second = p.reserve(5, 10, 3);  // reuses the slot
  EXPECT_FALSE(first == second);
  p.release(first);
  EXPECT_EQ(p.free_at(5), 7);
  p.release(Planner::SpanId{});  // no span
  EXPECT_EQ(p.free_at(5), 7);
  EXPECT_EQ(p.reserve(0, 0, 3), Planner::SpanId{});  // nothing reserved
}

TEST(Planner, ReleaseAfterAdvanceGivesBackTheRest) {
  Planner p(10, 0);
  const Planner::SpanId span = p.reserve(0, 30, 6);
  p.advance_to(10);
  p.release(span);
  EXPECT_EQ(p.slots(), (std::vector<AvailabilitySlot>{{10, kTimeInfinity, 10}}));
}

TEST(Planner, EndedSpansAreReclaimed) {
  // Spans nobody releases (their units handed to a running job) must not
  // pile up: once over, they are swept when the table has doubled.
  Planner p(4, 0);
  for (Time t = 0; t < 1000; ++t) {
    p.advance_to(t);
    p.reserve(t, 1, 4);
  }
  EXPECT_LE(p.spans(), 130u);
  EXPECT_EQ(p.free_at(999), 0);
}

TEST(Planner, HorizonAsksForAnEarlierStartOnly) {
  Planner p(10, 0);
  p.reserve(0, 10, 10);  // full until 10
  p.reserve(30, 10, 5);  // the job's own reservation at 30
  // Can a 5-unit, 20-second job start before 30? Yes at 10: the window is
  // cut at the horizon, its own units cover the rest.
  EXPECT_EQ(p.earliest_start(5, 20, 0, 30), 10);
  p.reserve(10, 20, 6);
  EXPECT_EQ(p.earliest_start(5, 20, 0, 30), 30);  // no earlier start
}

TEST(Planner, ReserveNeverOverbooks) {
  Planner p(4, 0);
  p.reserve(0, 10, 3);
  EXPECT_THROW(p.reserve(5, 10, 2), std::logic_error);
  EXPECT_EQ(p.free_at(5), 1);  // unchanged by the failed reservation
  // The whole profile is unchanged (reserve takes the units, sees the
  // overbooking and gives them back), and the undo is no addition.
  const auto before = p.slots();
  const std::uint64_t additions = p.additions();
  EXPECT_THROW(p.reserve(2, 20, 2), std::logic_error);
  EXPECT_EQ(p.slots(), before);
  EXPECT_EQ(p.additions(), additions);
  p.release(p.reserve(12, 3, 4));
  EXPECT_EQ(p.additions(), additions + 1);
  EXPECT_EQ(p.slots(), before);
}

TEST(Planner, AdvanceDropsThePast) {
  Planner p(8, 0);
  p.reserve(0, 10, 8);
  p.reserve(20, 10, 4);
  p.advance_to(15);
  EXPECT_EQ(p.origin(), 15);
  EXPECT_EQ(p.slots(), (std::vector<AvailabilitySlot>{{15, 20, 8}, {20, 30, 4}, {30, kTimeInfinity, 8}}));
}

TEST(Planner, MatchesBruteForceOnRandomCases) {
  std::mt19937_64 rng(42);
  const Time horizon = 120;
  int checks = 0;
  for (int round = 0; round < 3000; ++round) {
    const std::int64_t cap = 1 + static_cast<std::int64_t>(rng() % 16);
    Planner p(cap, 0);
    p.log_gains(true);
    BrutePlanner b(cap, horizon);
    struct Res {
      Time s, d;
      std::int64_t n;
      Planner::SpanId span;
    };
    std::vector<Res> held;
    const int ops = 1 + static_cast<int>(rng() % 12);
    for (int k = 0; k < ops; ++k) {
      const std::int64_t size = 1 + static_cast<std::int64_t>(rng() % cap);
      const Time dur = 1 + static_cast<Time>(rng() % 30);
      const Time from = static_cast<Time>(rng() % 60);
      const Time s = p.earliest_start(size, dur, from);
      ASSERT_EQ(s, b.earliest(size, dur, from)) << "round " << round;
      ++checks;
      if (s + dur <= horizon) {
        const Planner::SpanId span = p.reserve(s, dur, size);
        b.add(s, s + dur, -size);
        held.push_back({s, dur, size, span});
      }
      if (!held.empty() && rng() % 3 == 0) {  // release one at random
        const std::size_t i = rng() % held.size();
        p.release(held[i].span);
        ASSERT_EQ(p.gains().back(), std::make_pair(held[i].s, held[i].s + held[i].d));  // logged as a gain
        b.add(held[i].s, held[i].s + held[i].d, held[i].n);
        held.erase(held.begin() + static_cast<std::ptrdiff_t>(i));
      }
      const Time a = static_cast<Time>(rng() % 100), e = a + 1 + static_cast<Time>(rng() % 20);
      ASSERT_EQ(p.min_free(a, e), b.min_free(a, e));
      std::int64_t most = b.at(a);
      for (Time t = a; t < e; ++t) most = std::max(most, b.at(t));
      ASSERT_EQ(p.max_free(a, e), most);
      if (b.at(a) >= size) {  // where the run of >= size free units through a ends
        Time run_end = a + 1;
        while (run_end < horizon && b.at(run_end) >= size) ++run_end;
        if (run_end >= horizon) run_end = kTimeInfinity;  // free is cap beyond the horizon
        ASSERT_EQ(p.first_short_after(a, size), run_end) << "round " << round;
      }
      // Horizon query: earliest start before h with the window cut at h.
      const Time h = from + static_cast<Time>(rng() % 40);
      Time expect = h;
      for (Time c = from; c < h; ++c) {
        bool ok = true;
        for (Time t = c; t < std::min(c + dur, h) && ok; ++t) ok = b.at(t) >= size;
        if (ok) {
          expect = c;
          break;
        }
      }
      ASSERT_EQ(p.earliest_start(size, dur, from, h), expect) << "round " << round;
      // Only starts before `before` count; the window is still cut at h.
      const Time before = from + static_cast<Time>(rng() % 40);
      const Time expect_before = expect < std::min(before, h) ? expect : h;
      ASSERT_EQ(p.earliest_start(size, dur, from, h, before), expect_before) << "round " << round;
    }
    // The dumped profile equals the brute-force one second by second, and
    // adjacent slots always differ (segments are merged).
    const auto slots = p.slots();
    for (std::size_t i = 0; i < slots.size(); ++i) {
      if (i > 0) {
        ASSERT_NE(slots[i].free, slots[i - 1].free);
      }
      for (Time t = slots[i].start; t < std::min(slots[i].end, horizon); ++t) ASSERT_EQ(slots[i].free, b.at(t));
    }
  }
  EXPECT_GT(checks, 10000);
}

// Long random sequences of additions, reservations, releases and advances on
// one planner, so the tree grows deep: shift()'s in-place insertion, range
// addition and unlinking of breakpoints must keep the profile equal to the
// brute force, its segments merged, and size() equal to the segment count.
TEST(Planner, LongRandomSequencesKeepTheProfileAndItsSegmentsExact) {
  std::mt19937_64 rng(7);
  const Time horizon = 400;
  for (int round = 0; round < 40; ++round) {
    const std::int64_t cap = 4 + static_cast<std::int64_t>(rng() % 60);
    Planner p(cap, 0);
    BrutePlanner b(cap, horizon);
    std::vector<std::pair<Planner::SpanId, std::pair<Time, Time>>> held;
    std::vector<std::int64_t> sizes;
    Time origin = 0;
    for (int k = 0; k < 600; ++k) {
      const int op = static_cast<int>(rng() % 10);
      if (op < 4) {  // reserve where it fits
        const std::int64_t size = 1 + static_cast<std::int64_t>(rng() % cap);
        const Time dur = 1 + static_cast<Time>(rng() % 60);
        const Time from = origin + static_cast<Time>(rng() % 100);
        const Time s = p.earliest_start(size, dur, from);
        ASSERT_EQ(s, b.earliest(size, dur, from)) << "round " << round << " op " << k;
        if (s + dur > horizon - 1) continue;
        held.push_back({p.reserve(s, dur, size), {s, s + dur}});
        sizes.push_back(size);
        b.add(s, s + dur, -size);
      } else if (op < 7 && !held.empty()) {  // release one
        const std::size_t i = rng() % held.size();
        p.release(held[i].first);
        b.add(std::max(held[i].second.first, origin), held[i].second.second, sizes[i]);
        held.erase(held.begin() + static_cast<std::ptrdiff_t>(i));
        sizes.erase(sizes.begin() + static_cast<std::ptrdiff_t>(i));
      } else if (op < 9) {  // an unchecked addition of either sign, often on existing breakpoints
        const auto slots = p.slots();
        const Time a = rng() % 2 ? slots[rng() % slots.size()].start : origin + static_cast<Time>(rng() % 150);
        const Time e = std::min<Time>(horizon - 1, a + 1 + static_cast<Time>(rng() % 80));
        if (e <= a) continue;
        const std::int64_t d = static_cast<std::int64_t>(rng() % 7) - 3;
        p.add(a, e, d);
        b.add(a, e, d);
      } else if (origin + 5 < horizon / 2) {  // advance the origin a little
        origin += static_cast<Time>(rng() % 5);
        p.advance_to(origin);
      }
      const auto slots = p.slots();
      ASSERT_EQ(p.size(), slots.size());
      ASSERT_EQ(slots.front().start, origin);
      for (std::size_t i = 0; i < slots.size(); ++i) {
        if (i > 0) {
          ASSERT_NE(slots[i].free, slots[i - 1].free) << "round " << round << " op " << k;
        }
        for (Time t = slots[i].start; t < std::min(slots[i].end, horizon); ++t) {
          ASSERT_EQ(slots[i].free, b.at(t)) << "round " << round << " op " << k << " t " << t;
        }
      }
      const Time a = origin + static_cast<Time>(rng() % 200), e = a + 1 + static_cast<Time>(rng() % 100);
      ASSERT_EQ(p.min_free(a, e), b.min_free(a, e));
      std::int64_t most = b.at(a);
      for (Time t = a; t < e; ++t) most = std::max(most, b.at(t));
      ASSERT_EQ(p.max_free(a, e), most) << "round " << round << " op " << k;
      ASSERT_EQ(p.free_at(a), b.at(a));
    }
  }
}

// A profile of thousands of short stretches, and windows long enough to
// hold hundreds of them: earliest_start's walk runs out of its budget there
// and the rounds finish the search (planner.hpp), so both ways and the hand
// over between them are checked against a brute force.
TEST(Planner, EarliestStartOnAFragmentedProfileMatchesBruteForce) {
  std::mt19937_64 rng(29);
  const Time horizon = 6000;
  const std::int64_t cap = 4;
  Planner p(cap, 0);
  BrutePlanner b(cap, horizon);
  for (int k = 0; k < 4000; ++k) {  // small holes everywhere
    const std::int64_t size = 1 + static_cast<std::int64_t>(rng() % 3);
    const Time dur = 1 + static_cast<Time>(rng() % 4);
    const Time at = static_cast<Time>(rng() % (horizon - 10));
    if (b.min_free(at, at + dur) < size) continue;
    p.reserve(at, dur, size);
    b.add(at, at + dur, -size);
  }
  ASSERT_GT(p.size(), 2000u);  // fragmented indeed
  int far = 0;                 // answers past more than a thousand breakpoints' worth of time
  for (int q = 0; q < 3000; ++q) {
    const std::int64_t size = 1 + static_cast<std::int64_t>(rng() % cap);
    const Time dur = 1 + static_cast<Time>(rng() % 400);
    const Time from = static_cast<Time>(rng() % horizon);
    const Time h = rng() % 2 == 0 ? kTimeInfinity : from + 1 + static_cast<Time>(rng() % 3000);
    // run[t]: how long from t on at least `size` units stay free
    std::vector<Time> run(static_cast<std::size_t>(horizon) + 1, 0);
    run[horizon] = kTimeInfinity;
    for (Time t = horizon - 1; t >= 0; --t) {
      run[t] = b.at(t) >= size ? (run[t + 1] == kTimeInfinity ? kTimeInfinity : run[t + 1] + 1) : 0;
    }
    Time expect = std::min(h, horizon);
    for (Time c = from; c < std::min(h, horizon); ++c) {
      if (run[c] >= std::min(dur, h - c)) {
        expect = c;
        break;
      }
    }
    ASSERT_EQ(p.earliest_start(size, dur, from, h), expect)
        << "query " << q << ": size " << size << " duration " << dur << " from " << from << " horizon " << h;
    if (expect < h && expect - from > 1500) ++far;
    // Only starts before `before` count (the walk's and the rounds' stop).
    const Time before = from + static_cast<Time>(rng() % 3000);
    ASSERT_EQ(p.earliest_start(size, dur, from, h, before), expect < std::min(before, h) ? expect : h)
        << "query " << q << ": size " << size << " duration " << dur << " from " << from << " horizon " << h
        << " before " << before;
  }
  EXPECT_GT(far, 100);
}

// move() is release() then reserve(): two planners, one moving spans and one
// releasing and reserving them, stay equal in everything a caller sees:
// the profile, the handles, the gain log, the additions, the exceptions and
// the state they leave. The moves go earlier and later, overlap the old span
// or not, share keys with it, start before the origin, last forever, overbook
// (the exception) and use stale handles.
TEST(Planner, MoveIsReleaseThenReserve) {
  std::mt19937_64 rng(23);
  int moves = 0, refused = 0;
  for (int round = 0; round < 60; ++round) {
    const std::int64_t cap = 4 + static_cast<std::int64_t>(rng() % 30);
    Planner moved(cap, 0), plain(cap, 0);
    moved.log_gains(true);
    plain.log_gains(true);
    struct Held {
      Planner::SpanId id;
      Time duration;
      std::int64_t size;
    };
    std::vector<Held> held;
    Time origin = 0;
    for (int k = 0; k < 300; ++k) {
      const int op = static_cast<int>(rng() % 10);
      const std::int64_t size = 1 + static_cast<std::int64_t>(rng() % cap);
      const Time dur = rng() % 15 == 0 ? kTimeInfinity : 1 + static_cast<Time>(rng() % 40);
      if (op < 3 || held.empty()) {
        const Time s = moved.earliest_start(size, dur, origin + static_cast<Time>(rng() % 60));
        if (s >= kTimeInfinity) continue;
        const Planner::SpanId a = moved.reserve(s, dur, size), b = plain.reserve(s, dur, size);
        ASSERT_EQ(a, b);
        held.push_back({a, dur, size});
      } else if (op < 8) {
        Held& h = held[rng() % held.size()];
        // Sometimes a new shape, sometimes a start before the origin or one
        // that overbooks; mostly the earliest start of the held shape.
        const Time duration = rng() % 4 == 0 ? dur : h.duration;
        const std::int64_t units = rng() % 4 == 0 ? size : h.size;
        Time s = origin - 5 + static_cast<Time>(rng() % 70);
        if (rng() % 2) {
          s = moved.earliest_start(units, duration, std::max<Time>(0, s));
          if (s >= kTimeInfinity) continue;
        }
        std::string moved_error, plain_error;
        Planner::SpanId a{}, b{};
        try {
          a = moved.move(h.id, s, duration, units);
        } catch (const std::logic_error& e) {
          moved_error = e.what();
        }
        try {
          plain.release(h.id);
          b = plain.reserve(s, duration, units);
        } catch (const std::logic_error& e) {
          plain_error = e.what();
        }
        ASSERT_EQ(moved_error, plain_error) << "round " << round << " op " << k;
        ASSERT_EQ(a, b) << "round " << round << " op " << k;
        ++moves;
        if (!moved_error.empty()) ++refused;
        // A stale handle after a move, now and then: both ignore it alike.
        if (rng() % 8 != 0) h = Held{a, duration, units};
      } else if (op < 9) {
        const Time a = origin + static_cast<Time>(rng() % 80), e = a + 1 + static_cast<Time>(rng() % 30);
        const std::int64_t d = static_cast<std::int64_t>(rng() % 5) - 1;
        moved.add(a, e, d);
        plain.add(a, e, d);
      } else {
        origin += static_cast<Time>(rng() % 6);
        moved.advance_to(origin);
        plain.advance_to(origin);
      }
      const auto x = moved.slots(), y = plain.slots();
      ASSERT_EQ(x.size(), y.size()) << "round " << round << " op " << k;
      for (std::size_t i = 0; i < x.size(); ++i) {
        ASSERT_EQ(x[i].start, y[i].start) << "round " << round << " op " << k;
        ASSERT_EQ(x[i].end, y[i].end);
        ASSERT_EQ(x[i].free, y[i].free);
      }
      ASSERT_EQ(moved.size(), plain.size());
      ASSERT_EQ(moved.spans(), plain.spans());
      ASSERT_EQ(moved.additions(), plain.additions());
      ASSERT_EQ(moved.gains(), plain.gains()) << "round " << round << " op " << k;
    }
  }
  EXPECT_GT(moves, 3000);
  EXPECT_GT(refused, 100);  // the exception path is exercised
}

// add_all() is add() of each range: the same profile, additions and gain
// log, built in one pass on an empty profile (and add() by add() on one that
// has breakpoints); the tree it builds then serves every query and update as
// one built by add() does.
TEST(Planner, AddAllIsAddOfEachRange) {
  std::mt19937_64 rng(57);
  int bulk = 0;
  for (int round = 0; round < 200; ++round) {
    const std::int64_t cap = 1 + static_cast<std::int64_t>(rng() % 40);
    const Time origin = static_cast<Time>(rng() % 20);
    Planner all(cap, origin), each(cap, origin);
    const bool logging = rng() % 2 == 0;
    all.log_gains(logging);
    each.log_gains(logging);
    if (rng() % 4 == 0) {  // a profile with breakpoints already
      all.add(origin + 3, origin + 9, -1);
      each.add(origin + 3, origin + 9, -1);
    }
    bulk += all.size() == 1;
    std::vector<Planner::RangeAdd> adds;
    // Every fourth round is long enough for the radix sort, and then every
    // other one spans up to 2^42 s (four digits and a partial one).
    const bool many = round % 4 == 0;
    const Time spread = many && round % 8 == 0 ? Time{1} << 42 : 60;
    const int n = static_cast<int>(rng() % 300) + (many ? 3000 : 0);
    for (int k = 0; k < n; ++k) {
      // Before the origin, at it, empty, unbounded, and keys shared often.
      const Time a = static_cast<Time>(rng() % static_cast<std::uint64_t>(spread));
      const Time b = rng() % 10 == 0 ? kTimeInfinity : a + static_cast<Time>(rng() % 30) - 2;
      const std::int64_t delta = static_cast<std::int64_t>(rng() % 7) - 4;
      adds.push_back({a, b, delta});
      each.add(a, b, delta);
    }
    all.add_all(adds);
    ASSERT_EQ(all.slots(), each.slots()) << "round " << round;
    ASSERT_EQ(all.size(), each.size());
    ASSERT_EQ(all.additions(), each.additions());
    ASSERT_EQ(all.gains(), each.gains());
    // Then the same queries and updates on both trees.
    for (int k = 0; k < 60; ++k) {
      const Time x = origin + static_cast<Time>(rng() % 70);
      const std::int64_t size = static_cast<std::int64_t>(rng() % 45) - 2;
      const Time d = 1 + static_cast<Time>(rng() % 25);
      ASSERT_EQ(all.free_at(x), each.free_at(x));
      ASSERT_EQ(all.min_free(x, x + d), each.min_free(x, x + d));
      ASSERT_EQ(all.max_free(x, x + d), each.max_free(x, x + d));
      ASSERT_EQ(all.earliest_start(size, d, x), each.earliest_start(size, d, x)) << "round " << round;
      ASSERT_EQ(all.first_short_after(x, size), each.first_short_after(x, size));
      const std::int64_t delta = static_cast<std::int64_t>(rng() % 5) - 2;
      all.add(x, x + d, delta);
      each.add(x, x + d, delta);
      ASSERT_EQ(all.slots(), each.slots()) << "round " << round << " op " << k;
    }
  }
  EXPECT_GT(bulk, 100);
}

TEST(Planner, GainLogIsOffUntilAskedAndKeepsOnlyAdditions) {
  Planner p(10, 0);
  const Planner::SpanId span = p.reserve(5, 10, 4);
  p.release(span);
  EXPECT_TRUE(p.gains().empty());  // off in a new planner
  p.log_gains(true);
  p.reserve(5, 10, 4);  // a take is no gain
  EXPECT_TRUE(p.gains().empty());
  p.advance_to(8);
  p.add(2, 12, 1);  // cut at the origin
  EXPECT_EQ(p.gains(), (std::vector<std::pair<Time, Time>>{{8, 12}}));
  p.clear_gains();
  EXPECT_TRUE(p.gains().empty());
}

}  // namespace
}  // namespace los
