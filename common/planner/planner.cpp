#include "planner/planner.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace los {

Planner::Planner(std::int64_t capacity, Time origin)
    : base_(capacity), capacity_(capacity), origin_(origin), rng_(0x5eed) {}

void Planner::reset(std::int64_t capacity, Time origin) {
  std::vector<Node> nodes = std::move(nodes_);
  std::vector<Index> free_list = std::move(free_list_);
  std::vector<PointChange> points = std::move(points_scratch_);
  std::vector<PointChange> sorted = std::move(sort_scratch_);
  *this = Planner(capacity, origin);
  nodes.clear();
  free_list.clear();
  nodes_ = std::move(nodes);
  free_list_ = std::move(free_list);
  points_scratch_ = std::move(points);
  sort_scratch_ = std::move(sorted);
}

namespace {

// Sorts changes by key: a least-significant-digit radix sort of key - least
// key, 11 bits a pass (3 passes for spans up to 272 years of seconds), where
// a comparison sort of 200,000 breakpoints costs several times more. The
// order among equal keys is not kept (their changes are summed).
template <class Change>
void sort_by_key(std::vector<Change>& v, std::vector<Change>& buffer) {
  constexpr std::size_t kSmall = 512;
  if (v.size() < kSmall) {
    std::sort(v.begin(), v.end(), [](const Change& x, const Change& y) { return x.key < y.key; });
    return;
  }
  const auto [lo_it, hi_it] =
      std::minmax_element(v.begin(), v.end(), [](const Change& x, const Change& y) { return x.key < y.key; });
  const Time lo = lo_it->key;
  const auto span = static_cast<std::uint64_t>(hi_it->key) - static_cast<std::uint64_t>(lo);
  constexpr int kBits = 11;
  constexpr std::size_t kBuckets = std::size_t{1} << kBits;
  buffer.resize(v.size());
  for (int shift = 0; shift < 64 && (span >> shift) != 0; shift += kBits) {
    std::array<std::size_t, kBuckets> next{};
    const auto digit = [&](const Change& c) {
      return static_cast<std::size_t>(((static_cast<std::uint64_t>(c.key) - static_cast<std::uint64_t>(lo)) >> shift) &
                                      (kBuckets - 1));
    };
    for (const Change& c : v) ++next[digit(c)];
    std::size_t at = 0;
    for (std::size_t& n : next) at += std::exchange(n, at);
    for (const Change& c : v) buffer[next[digit(c)]++] = c;
    v.swap(buffer);
  }
  buffer.clear();
}

}  // namespace

Planner::Index Planner::make_node(Time key, std::int64_t delta) {
  Node n{key, delta, delta, delta, delta, static_cast<std::uint32_t>(rng_()), kNil, kNil};
  ++count_;
  if (!free_list_.empty()) {
    const Index i = free_list_.back();
    free_list_.pop_back();
    nodes_[i] = n;
    return i;
  }
  nodes_.push_back(n);
  return static_cast<Index>(nodes_.size() - 1);
}

void Planner::free_tree(Index t) {
  // Iterative: a degenerate subtree must not overflow the stack.
  std::vector<Index> stack;
  if (t != kNil) stack.push_back(t);
  while (!stack.empty()) {
    const Index i = stack.back();
    stack.pop_back();
    if (nodes_[i].left != kNil) stack.push_back(nodes_[i].left);
    if (nodes_[i].right != kNil) stack.push_back(nodes_[i].right);
    free_list_.push_back(i);
    --count_;
  }
}

void Planner::pull(Index t, std::int64_t delta) {
  Node& n = nodes_[t];
  std::int64_t at = delta;
  std::int64_t lo = delta;
  std::int64_t hi = delta;
  if (n.left != kNil) {
    const Node& l = nodes_[n.left];
    at += l.sum;
    lo = std::min(l.lo, at);
    hi = std::max(l.hi, at);
  }
  std::int64_t sum = at;
  if (n.right != kNil) {
    const Node& r = nodes_[n.right];
    lo = std::min(lo, at + r.lo);
    hi = std::max(hi, at + r.hi);
    sum += r.sum;
  }
  n.at = at;
  n.sum = sum;
  n.lo = lo;
  n.hi = hi;
}

void Planner::split(Index t, Time key, Index& l, Index& r) {
  if (t == kNil) {
    l = r = kNil;
    return;
  }
  const std::int64_t d = delta_of(t);
  if (nodes_[t].key < key) {
    split(nodes_[t].right, key, nodes_[t].right, r);
    l = t;
  } else {
    split(nodes_[t].left, key, l, nodes_[t].left);
    r = t;
  }
  pull(t, d);
}

Planner::Index Planner::merge(Index l, Index r) {
  if (l == kNil) return r;
  if (r == kNil) return l;
  if (nodes_[l].prio > nodes_[r].prio) {
    const std::int64_t d = delta_of(l);
    nodes_[l].right = merge(nodes_[l].right, r);
    pull(l, d);
    return l;
  }
  const std::int64_t d = delta_of(r);
  nodes_[r].left = merge(l, nodes_[r].left);
  pull(r, d);
  return r;
}

std::int64_t Planner::free_at(Time t) const {
  t = std::max(t, origin_);
  std::int64_t before = base_;  // free units before the current subtree's first key
  for (Index cur = root_; cur != kNil;) {
    const Node& n = nodes_[cur];
    if (n.key <= t) {
      before += n.at;
      cur = n.right;
    } else {
      cur = n.left;
    }
  }
  return before;
}

std::int64_t Planner::collect_path_after(Time x) const {
  // Every node on x's search path with key > x, together with its right
  // subtree, comes after x; the deeper such a node, the smaller its keys.
  std::vector<std::pair<Index, std::int64_t>>& path = path_scratch_;
  path.clear();
  std::int64_t before = base_;
  for (Index t = root_; t != kNil;) {
    const Node& n = nodes_[t];
    if (n.key <= x) {
      before += n.at;
      t = n.right;
    } else {
      path.emplace_back(t, before);
      t = n.left;
    }
  }
  return before;  // the free units of x's segment
}

Time Planner::first_after(Time x, std::int64_t size, bool want_at_least) const {
  auto holds = [&](std::int64_t v) { return want_at_least ? v >= size : v < size; };
  auto may_hold = [&](Index s, std::int64_t before) {
    return s != kNil && (want_at_least ? nodes_[s].hi + before >= size : nodes_[s].lo + before < size);
  };
  // The nodes after x on its search path, smallest first: a node's own
  // value, else one greedy descent into its right subtree, which the subtree
  // bounds say will succeed. O(depth), no backtracking.
  collect_path_after(x);
  const std::vector<std::pair<Index, std::int64_t>>& path = path_scratch_;
  for (auto it = path.rbegin(); it != path.rend(); ++it) {
    const Node& n = nodes_[it->first];
    // The path's deeper nodes lie in n's left subtree, all at or before x,
    // or after x and already rejected: n's value is the sum through them.
    std::int64_t o = it->second + n.at;
    if (holds(o)) return n.key;
    if (!may_hold(n.right, o)) continue;
    Index s = n.right;
    for (;;) {
      const Node& m = nodes_[s];
      if (may_hold(m.left, o)) {
        s = m.left;
        continue;
      }
      o += m.at;
      if (holds(o)) return m.key;
      s = m.right;
    }
  }
  return kTimeInfinity;
}

Time Planner::last_short_before(Time hi, std::int64_t size) const {
  // Mirror of first_after: nodes on the search path of hi with key < hi, and
  // their left subtrees, come before hi; the deeper, the larger the keys.
  auto may_hold = [&](Index s, std::int64_t before) { return s != kNil && nodes_[s].lo + before < size; };
  std::vector<std::pair<Index, std::int64_t>>& path = path_scratch_;
  path.clear();
  std::int64_t before = base_;
  for (Index t = root_; t != kNil;) {
    const Node& n = nodes_[t];
    if (n.key >= hi) {
      t = n.left;
    } else {
      path.emplace_back(t, before);
      before += n.at;
      t = n.right;
    }
  }
  for (auto it = path.rbegin(); it != path.rend(); ++it) {
    const Node& n = nodes_[it->first];
    if (it->second + n.at < size) return n.key;
    std::int64_t o = it->second;  // before n's left subtree
    if (!may_hold(n.left, o)) continue;
    Index s = n.left;
    for (;;) {
      const Node& m = nodes_[s];
      const std::int64_t at_m = o + m.at;
      if (may_hold(m.right, at_m)) {
        s = m.right;
        o = at_m;
      } else if (at_m < size) {
        return m.key;
      } else {
        s = m.left;
      }
    }
  }
  // The origin's segment comes before every breakpoint.
  return origin_ < hi && base_ < size ? origin_ : std::numeric_limits<Time>::min();
}

template <bool kMax>
std::int64_t Planner::extreme_free(Time a, Time b) const {
  auto better = [](std::int64_t x, std::int64_t y) { return kMax ? std::max(x, y) : std::min(x, y); };
  auto bound = [&](Index s) { return kMax ? nodes_[s].hi : nodes_[s].lo; };
  a = std::max(a, origin_);
  if (b <= a) return free_at(a);
  // One descent: down the common path of a and b to the node where they
  // part (the first key inside (a, b)), then along each path, taking whole
  // subtrees that lie inside on the way. The keys <= a passed on a's path
  // carry the free units at a (its floor's value) to the bottom.
  std::int64_t before = base_;  // free units before the current subtree
  Index t = root_;
  while (t != kNil) {
    const Node& n = nodes_[t];
    if (n.key <= a) {
      before += n.at;
      t = n.right;
    } else if (n.key >= b) {
      t = n.left;
    } else {
      break;
    }
  }
  if (t == kNil) return before;  // no key inside (a, b): the value at a throughout
  const std::int64_t at_split = before + nodes_[t].at;
  std::int64_t m = at_split;
  // b's path in the right part: a key < b is inside, with its left subtree.
  std::int64_t o = at_split;
  for (Index s = nodes_[t].right; s != kNil;) {
    const Node& n = nodes_[s];
    if (n.key < b) {
      if (n.left != kNil) m = better(m, o + bound(n.left));
      o += n.at;
      m = better(m, o);
      s = n.right;
    } else {
      s = n.left;
    }
  }
  // a's path in the left part: a key > a is inside, with its right subtree.
  o = before;
  for (Index s = nodes_[t].left; s != kNil;) {
    const Node& n = nodes_[s];
    const std::int64_t at_n = o + n.at;
    if (n.key > a) {
      m = better(m, at_n);
      if (n.right != kNil) m = better(m, at_n + bound(n.right));
      s = n.left;
    } else {
      o = at_n;
      s = n.right;
    }
  }
  return better(m, o);  // o: the free units at a
}

std::int64_t Planner::min_free(Time a, Time b) const { return extreme_free<false>(a, b); }

std::int64_t Planner::max_free(Time a, Time b) const { return extreme_free<true>(a, b); }

Time Planner::earliest_start(std::int64_t size, Time duration, Time not_before, Time horizon, Time start_before) const {
  const Time x = std::max(not_before, origin_);
  start_before = std::min(start_before, horizon);
  if (x >= start_before) return horizon;
  if (size <= 0) return x;
  const std::int64_t most = root_ == kNil ? base_ : std::max(base_, base_ + nodes_[root_].hi);
  if (size > most) return horizon;  // never that many free units
  // Two ways to the same answer. The walk visits the breakpoints after x in
  // key order, skipping the subtrees that cannot change what it knows: a few
  // nodes per change between short and long enough stretches. The rounds
  // jump: from a candidate start straight past the last short point of its
  // window (two descents from the root per round). Most queries end within
  // a few stretches, where the walk costs less than one round (issue 17's
  // 5,000-job burst: 30 % less CPU); a long window over a fragmented
  // profile holds many stretches that the walk would visit one by one and
  // the rounds jump over (100,000 pending jobs: the walk alone took twice the
  // rounds' time). So the walk goes first, with a budget of visits, and
  // the rounds finish what it leaves.
  StartScan scan{size, duration, horizon, start_before, x, false, start_before, x, kWalkBudget};
  if (collect_path_after(x) >= size) scan.open_at(x);  // a candidate at x itself
  const std::vector<std::pair<Index, std::int64_t>>& path = path_scratch_;
  // The path's nodes after x, smallest key first (the deepest), each
  // followed by its right subtree: the breakpoints after x in order.
  for (auto it = path.rbegin(); it != path.rend(); ++it) {
    const Node& n = nodes_[it->first];
    const std::int64_t at_n = it->second + n.at;
    if (scan.visit(n.key, at_n) || (n.right != kNil && scan_subtree(scan, n.right, at_n))) {
      if (scan.budget >= 0) return scan.answer();
      // Out of budget: every start before the candidate (or through the last
      // key visited, which is short, when none is open) was ruled out.
      return scan.open ? start_by_rounds(size, duration, scan.candidate, false, horizon, start_before)
                       : start_by_rounds(size, duration, scan.last_key, true, horizon, start_before);
    }
  }
  // Past the last breakpoint: a candidate runs to infinity.
  return scan.answer();
}

Time Planner::start_by_rounds(std::int64_t size, Time duration, Time x, bool x_short, Time horizon,
                              Time start_before) const {
  for (;;) {
    // Earliest candidate at or after x where enough units are free.
    Time s = x;
    if (x_short || free_at(x) < size) {
      s = first_after(x, size, /*want_at_least=*/true);
      if (s == kTimeInfinity) return horizon;
    }
    if (s >= start_before) return horizon;
    // The last point in the window where the units run short; none means s
    // fits. Every start up to that point has it in its window too (the
    // window is at least as long from any later start), so the search goes on
    // after it, not after the first short point.
    const Time window_end = std::min(saturating_end(s, duration), horizon);
    const Time bad = last_short_before(window_end, size);
    if (bad <= s) return s;
    x = bad;  // a breakpoint whose segment is short: no need to look it up again
    x_short = true;
  }
}

bool Planner::scan_subtree(StartScan& scan, Index t, std::int64_t before) const {
  const Node& n = nodes_[t];
  // Nothing in it changes the walk's state: every segment has enough units
  // while a candidate is open, or every one is short while none is. A key in
  // it past the limit is then noticed at the next key visited, or at the
  // end, with the same answer.
  if (scan.open ? n.lo + before >= scan.size : n.hi + before < scan.size) return false;
  if (n.left != kNil && scan_subtree(scan, n.left, before)) return true;
  const std::int64_t at_n = before + n.at;
  if (scan.visit(n.key, at_n)) return true;
  return n.right != kNil && scan_subtree(scan, n.right, at_n);
}

void Planner::add(Time a, Time b, std::int64_t delta) {
  a = std::max(a, origin_);
  if (b <= a || delta == 0) return;
  shift(a, b, delta, true);
}

void Planner::add_all(std::span<const RangeAdd> adds) {
  if (root_ != kNil) {
    for (const RangeAdd& r : adds) add(r.a, r.b, r.delta);
    return;
  }
  std::vector<PointChange>& points = points_scratch_;
  points.clear();
  points.reserve(2 * adds.size());
  for (const RangeAdd& r : adds) {
    const Time a = std::max(r.a, origin_);
    if (r.b <= a || r.delta == 0) continue;
    if (r.delta > 0) {
      ++additions_;
      if (log_gains_) gains_.emplace_back(a, r.b);
    }
    if (a == origin_) {
      base_ += r.delta;
    } else {
      points.push_back({a, r.delta});
    }
    if (r.b < kTimeInfinity) points.push_back({r.b, -r.delta});
  }
  sort_by_key(points, sort_scratch_);
  // One breakpoint per key; a change of 0 is none.
  std::size_t kept = 0;
  for (std::size_t i = 0; i < points.size();) {
    PointChange c = points[i];
    for (++i; i < points.size() && points[i].key == c.key; ++i) c.delta += points[i].delta;
    if (c.delta != 0) points[kept++] = c;
  }
  points.resize(kept);
  // The treap of these keys is their Cartesian tree by priority: built in
  // key order with its right spine on a stack (a node adopts the spine's
  // lower-priority tail as its left subtree). A node leaves the spine when
  // its subtree is complete: its sums and bounds are computed then, children
  // first, in nearly the order the nodes were made.
  nodes_.reserve(nodes_.size() + points.size());
  std::vector<Index> spine;
  const auto pop = [&] {
    const Index t = spine.back();
    spine.pop_back();
    pull(t, nodes_[t].at);  // until pulled, at holds the node's own change
    return t;
  };
  for (const PointChange& c : points) {
    const Index x = make_node(c.key, c.delta);
    Index below = kNil;
    while (!spine.empty() && nodes_[spine.back()].prio <= nodes_[x].prio) below = pop();
    nodes_[x].left = below;
    if (!spine.empty()) nodes_[spine.back()].right = x;
    spine.push_back(x);
  }
  while (!spine.empty()) root_ = pop();
  points.clear();
}

void Planner::shift(Time a, Time b, std::int64_t delta, bool count) {
  if (count && delta > 0) {
    ++additions_;
    if (log_gains_) gains_.emplace_back(a, b);
  }
  // The change at a grows by delta and the one at b shrinks by it; a change
  // that comes to 0 drops its breakpoint (its two segments became equal).
  // b's breakpoint is made before a's (a fixed order: the priorities, so
  // the tree's shape, are a function of the calls made).
  if (a == origin_) {
    base_ += delta;
    if (b < kTimeInfinity) root_ = add_at(root_, b, -delta);
  } else if (b < kTimeInfinity) {
    root_ = add_pair(root_, a, delta, b, -delta);
  } else {
    root_ = add_at(root_, a, delta);
  }
}

Planner::Index Planner::add_pair(Index t, Time a, std::int64_t delta_a, Time b, std::int64_t delta_b) {
  // Down the path that a and b share, then one add_at each from where they
  // part: the shared part is walked and summed up once.
  if (t == kNil || (nodes_[t].key >= a && nodes_[t].key <= b)) return add_at(add_at(t, b, delta_b), a, delta_a);
  const std::int64_t d = delta_of(t);
  if (b < nodes_[t].key) return reattach(t, d, true, add_pair(nodes_[t].left, a, delta_a, b, delta_b));
  return reattach(t, d, false, add_pair(nodes_[t].right, a, delta_a, b, delta_b));
}

Planner::Index Planner::add_at(Index t, Time key, std::int64_t delta) {
  if (t == kNil) return make_node(key, delta);  // the key had no breakpoint
  const std::int64_t d = delta_of(t);
  if (nodes_[t].key == key) {
    if (d + delta == 0) {
      const Index joined = merge(nodes_[t].left, nodes_[t].right);
      free_list_.push_back(t);
      --count_;
      return joined;
    }
    pull(t, d + delta);
    return t;
  }
  if (key < nodes_[t].key) return reattach(t, d, true, add_at(nodes_[t].left, key, delta));
  return reattach(t, d, false, add_at(nodes_[t].right, key, delta));
}

Planner::Index Planner::reattach(Index t, std::int64_t delta, bool left, Index child) {
  // Only a node made by this update can outrank t (every other node kept
  // its place in the heap order); t, with its other subtree, then joins
  // below it, as an insertion by split would have put it (a treap's shape
  // is fixed by its keys and priorities).
  const bool outranks = child != kNil && nodes_[child].prio > nodes_[t].prio;
  const Index kept = outranks ? kNil : child;
  if (left) {
    nodes_[t].left = kept;
  } else {
    nodes_[t].right = kept;
  }
  pull(t, delta);
  if (!outranks) return t;
  return left ? merge(child, t) : merge(t, child);
}

Planner::Index Planner::erase_key(Index t, Time key) {
  if (nodes_[t].key == key) {
    const Index joined = merge(nodes_[t].left, nodes_[t].right);
    free_list_.push_back(t);
    --count_;
    return joined;
  }
  const std::int64_t d = delta_of(t);
  if (key < nodes_[t].key) return reattach(t, d, true, erase_key(nodes_[t].left, key));
  return reattach(t, d, false, erase_key(nodes_[t].right, key));
}

Planner::SpanId Planner::reserve(Time start, Time duration, std::int64_t size) {
  if (size <= 0 || duration <= 0) return SpanId{};
  const Time end = duration >= kTimeInfinity - start ? kTimeInfinity : start + duration;
  const Time a = std::max(start, origin_);
  if (a < end) {
    const std::int64_t lowest = min_free(a, end);
    if (lowest < size) {
      throw std::logic_error("planner: reserving " + std::to_string(size) + " units over [" + std::to_string(start) +
                             ", " + std::to_string(end) + ") but only " + std::to_string(lowest) + " are free there");
    }
    shift(a, end, -size, false);
  }
  const std::uint32_t slot = take_span_slot();
  Span& span = spans_[slot];
  span.start = start;
  span.end = end;
  span.size = size;
  span.live = true;
  ++live_spans_;
  return SpanId{slot, span.generation};
}

void Planner::release(SpanId id) {
  if (id.slot >= spans_.size()) return;
  Span& span = spans_[id.slot];
  if (!span.live || span.generation != id.generation) return;
  add(span.start, span.end, span.size);
  span.live = false;
  ++span.generation;
  --live_spans_;
  free_spans_.push_back(id.slot);
}

Planner::SpanId Planner::move(SpanId id, Time start, Time duration, std::int64_t size) {
  const bool live = id.slot < spans_.size() && spans_[id.slot].live && spans_[id.slot].generation == id.generation;
  if (!live || size <= 0 || duration <= 0) {  // the rare cases, as written
    release(id);
    return reserve(start, duration, size);
  }
  Span& span = spans_[id.slot];
  // What release() gives back: [a1, b1), and what reserve() takes: [a2, b2),
  // both cut at the origin.
  const Time a1 = std::max(span.start, origin_);
  const Time b1 = span.end;
  const bool gives = a1 < b1;
  const Time b2 = duration >= kTimeInfinity - start ? kTimeInfinity : start + duration;
  const Time a2 = std::max(start, origin_);
  const bool takes = a2 < b2;
  // The changes at the four keys; one at the origin goes to base_, one at
  // infinity is no breakpoint, and equal keys add up.
  std::array<PointChange, 4> points;
  int n = 0;
  std::int64_t base_delta = 0;
  const auto change = [&](Time key, std::int64_t delta) {
    if (key == origin_) {
      base_delta += delta;
    } else if (key < kTimeInfinity) {
      points[n++] = PointChange{key, delta};
    }
  };
  if (gives) {
    change(a1, span.size);
    change(b1, -span.size);
  }
  if (takes) {
    change(a2, -size);
    change(b2, size);
  }
  for (int i = 1; i < n; ++i) {  // at most four: insertion sort by key
    for (int j = i; j > 0 && points[j].key < points[j - 1].key; --j) std::swap(points[j], points[j - 1]);
  }
  int kept = 0;
  for (int i = 0; i < n; ++i) {
    if (kept > 0 && points[kept - 1].key == points[i].key) {
      points[kept - 1].delta += points[i].delta;
      if (points[kept - 1].delta == 0) --kept;
    } else {
      points[kept++] = points[i];
    }
  }
  base_ += base_delta;
  root_ = add_points(root_, points.data(), kept);
  // reserve()'s check, made after the fact: the free units over [a2, b2)
  // after the release were >= size iff none is negative now. If one is,
  // the changes are undone and the two calls run, so that the span is
  // released and reserve() throws its own exception.
  if (takes && min_free(a2, b2) < 0) {
    for (int i = 0; i < kept; ++i) points[i].delta = -points[i].delta;
    base_ -= base_delta;
    root_ = add_points(root_, points.data(), kept);
    release(id);
    return reserve(start, duration, size);
  }
  if (gives) {
    ++additions_;
    if (log_gains_) gains_.emplace_back(a1, b1);
  }
  // The handle: release() frees the slot and reserve() takes it back.
  ++span.generation;
  span.start = start;
  span.end = b2;
  span.size = size;
  return SpanId{id.slot, span.generation};
}

Planner::Index Planner::add_points(Index t, const PointChange* p, int n) {
  if (n == 0) return t;
  if (n == 1) return add_at(t, p[0].key, p[0].delta);
  if (t != kNil && p[n - 1].key < nodes_[t].key) {
    const std::int64_t d = delta_of(t);
    return reattach(t, d, true, add_points(nodes_[t].left, p, n));
  }
  if (t != kNil && p[0].key > nodes_[t].key) {
    const std::int64_t d = delta_of(t);
    return reattach(t, d, false, add_points(nodes_[t].right, p, n));
  }
  // They part here: the later ones first, then the earlier ones.
  if (n == 2) return add_pair(t, p[0].key, p[0].delta, p[1].key, p[1].delta);
  if (n == 3) return add_at(add_pair(t, p[1].key, p[1].delta, p[2].key, p[2].delta), p[0].key, p[0].delta);
  return add_pair(add_pair(t, p[2].key, p[2].delta, p[3].key, p[3].delta), p[0].key, p[0].delta, p[1].key,
                  p[1].delta);
}

std::uint32_t Planner::take_span_slot() {
  if (free_spans_.empty() && spans_.size() >= sweep_at_) {
    sweep_ended_spans();
    sweep_at_ = std::max(kFirstSweep, 2 * live_spans_);
  }
  if (!free_spans_.empty()) {
    const std::uint32_t slot = free_spans_.back();
    free_spans_.pop_back();
    return slot;
  }
  spans_.push_back(Span{0, 0, 0, 0, false});
  return static_cast<std::uint32_t>(spans_.size() - 1);
}

void Planner::sweep_ended_spans() {
  // A span over by the origin no longer shows in the profile: releasing it
  // would change nothing, so forgetting it is invisible to its holder.
  for (std::size_t i = 0; i < spans_.size(); ++i) {
    Span& span = spans_[i];
    if (!span.live || span.end > origin_) continue;
    span.live = false;
    ++span.generation;
    --live_spans_;
    free_spans_.push_back(static_cast<std::uint32_t>(i));
  }
}

void Planner::advance_to(Time t) {
  if (t <= origin_) return;
  base_ = free_at(t);
  Index l, r;
  split(root_, t, l, r);
  free_tree(l);
  // A breakpoint at t becomes the origin, whose units base_ holds.
  if (r != kNil) {
    Index first = r;
    while (nodes_[first].left != kNil) first = nodes_[first].left;
    if (nodes_[first].key == t) r = erase_key(r, t);
  }
  root_ = r;
  origin_ = t;
}

void Planner::collect(Index t, std::int64_t before, std::vector<AvailabilitySlot>& out) const {
  // In-order traversal with an explicit stack (the treap is balanced in
  // expectation, but this path must not depend on that).
  std::vector<Index> stack;
  Index cur = t;
  while (cur != kNil || !stack.empty()) {
    while (cur != kNil) {
      stack.push_back(cur);
      cur = nodes_[cur].left;
    }
    cur = stack.back();
    stack.pop_back();
    before += delta_of(cur);
    out.back().end = nodes_[cur].key;
    out.push_back({nodes_[cur].key, kTimeInfinity, before});
    cur = nodes_[cur].right;
  }
}

std::vector<AvailabilitySlot> Planner::slots() const {
  std::vector<AvailabilitySlot> out;
  out.reserve(count_ + 1);
  out.push_back({origin_, kTimeInfinity, base_});
  collect(root_, base_, out);
  return out;
}

}  // namespace los
