#include "planner/planner.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace los {

Planner::Planner(std::int64_t capacity, Time origin) : capacity_(capacity), origin_(origin), rng_(0x5eed) {
  root_ = make_node(origin, capacity);
}

Planner::Index Planner::make_node(Time key, std::int64_t value) {
  Node n{key, value, value, value, 0, static_cast<std::uint32_t>(rng_()), kNil, kNil};
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

void Planner::apply(Index t, std::int64_t delta) const {
  if (t == kNil) return;
  Node& n = nodes_[t];
  n.value += delta;
  n.lo += delta;
  n.hi += delta;
  n.lazy += delta;
}

void Planner::push(Index t) const {
  Node& n = nodes_[t];
  if (n.lazy != 0) {
    apply(n.left, n.lazy);
    apply(n.right, n.lazy);
    n.lazy = 0;
  }
}

void Planner::pull(Index t) {
  Node& n = nodes_[t];
  n.lo = n.hi = n.value;
  if (n.left != kNil) {
    n.lo = std::min(n.lo, nodes_[n.left].lo);
    n.hi = std::max(n.hi, nodes_[n.left].hi);
  }
  if (n.right != kNil) {
    n.lo = std::min(n.lo, nodes_[n.right].lo);
    n.hi = std::max(n.hi, nodes_[n.right].hi);
  }
}

void Planner::split(Index t, Time key, Index& l, Index& r) {
  if (t == kNil) {
    l = r = kNil;
    return;
  }
  push(t);
  if (nodes_[t].key < key) {
    split(nodes_[t].right, key, nodes_[t].right, r);
    l = t;
  } else {
    split(nodes_[t].left, key, l, nodes_[t].left);
    r = t;
  }
  pull(t);
}

Planner::Index Planner::merge(Index l, Index r) {
  if (l == kNil) return r;
  if (r == kNil) return l;
  if (nodes_[l].prio > nodes_[r].prio) {
    push(l);
    nodes_[l].right = merge(nodes_[l].right, r);
    pull(l);
    return l;
  }
  push(r);
  nodes_[r].left = merge(l, nodes_[r].left);
  pull(r);
  return r;
}

Planner::Floor Planner::floor_node(Time t) const {
  // Read-only, like first_after: the pending additions above a node are
  // carried, not pushed down (pushing writes both children of every node on
  // the path, and the sibling off the path is a cache miss of its own).
  Floor best{kNil, 0};
  std::int64_t off = 0;
  for (Index cur = root_; cur != kNil;) {
    const Node& n = nodes_[cur];
    if (n.key <= t) {
      best = {cur, n.value + off};
      off += n.lazy;
      cur = n.right;
    } else {
      off += n.lazy;
      cur = n.left;
    }
  }
  return best;
}

Planner::Floor Planner::floor_node(Time t, Floor& before) const {
  Floor best{kNil, 0};
  before = {kNil, 0};
  std::int64_t off = 0;
  for (Index cur = root_; cur != kNil;) {
    const Node& n = nodes_[cur];
    if (n.key < t) {
      best = before = {cur, n.value + off};
      off += n.lazy;
      cur = n.right;
    } else if (n.key == t) {
      // Keys are unique: t's node is the floor, and the keys below it that
      // are above `before` are its left subtree's: its rightmost is `before`.
      best = {cur, n.value + off};
      off += n.lazy;
      for (Index s = n.left; s != kNil;) {
        const Node& m = nodes_[s];
        before = {s, m.value + off};
        off += m.lazy;
        s = m.right;
      }
      break;
    } else {
      off += n.lazy;
      cur = n.left;
    }
  }
  return best;
}

std::int64_t Planner::free_at(Time t) const { return floor_node(std::max(t, origin_)).value; }

std::int64_t Planner::collect_path_after(Time x) const {
  // Every node on x's search path with key > x, together with its right
  // subtree, comes after x; the deeper such a node, the smaller its keys.
  std::vector<std::pair<Index, std::int64_t>>& path = path_scratch_;
  path.clear();
  std::int64_t off = 0;
  std::int64_t at_x = 0;
  for (Index t = root_; t != kNil;) {
    const Node& n = nodes_[t];
    if (n.key <= x) {
      at_x = n.value + off;  // the last such node on the path is x's floor
      off += n.lazy;
      t = n.right;
    } else {
      path.emplace_back(t, off);
      off += n.lazy;
      t = n.left;
    }
  }
  return at_x;
}

Time Planner::first_after(Time x, std::int64_t size, bool want_at_least) const {
  // Read-only: a node's stored value, lo and hi lack the pending additions of
  // its ancestors; the walk carries their sum (`off`) instead of pushing them
  // down (which would write to every node it passes).
  auto holds = [&](std::int64_t v) { return want_at_least ? v >= size : v < size; };
  auto may_hold = [&](Index s, std::int64_t off) {
    return s != kNil && (want_at_least ? nodes_[s].hi + off >= size : nodes_[s].lo + off < size);
  };
  // The nodes after x on its search path, smallest first: a node's own
  // value, else one greedy descent into its right subtree, which the subtree
  // bounds say will succeed. O(depth), no backtracking.
  collect_path_after(x);
  const std::vector<std::pair<Index, std::int64_t>>& path = path_scratch_;
  for (auto it = path.rbegin(); it != path.rend(); ++it) {
    const Node& n = nodes_[it->first];
    if (holds(n.value + it->second)) return n.key;
    std::int64_t o = it->second + n.lazy;
    if (!may_hold(n.right, o)) continue;
    Index s = n.right;
    for (;;) {
      const Node& m = nodes_[s];
      const std::int64_t below = o + m.lazy;
      if (may_hold(m.left, below)) {
        s = m.left;
        o = below;
      } else if (holds(m.value + o)) {
        return m.key;
      } else {
        s = m.right;
        o = below;
      }
    }
  }
  return kTimeInfinity;
}

Time Planner::last_short_before(Time hi, std::int64_t size) const {
  // Mirror of first_after: nodes on the search path of hi with key < hi, and
  // their left subtrees, come before hi; the deeper, the larger the keys.
  // Read-only like first_after (pending additions carried, not pushed).
  auto short_of = [&](std::int64_t v) { return v < size; };
  auto may_hold = [&](Index s, std::int64_t off) { return s != kNil && nodes_[s].lo + off < size; };
  std::vector<std::pair<Index, std::int64_t>>& path = path_scratch_;
  path.clear();
  std::int64_t off = 0;
  for (Index t = root_; t != kNil;) {
    const Node& n = nodes_[t];
    if (n.key >= hi) {
      off += n.lazy;
      t = n.left;
    } else {
      path.emplace_back(t, off);
      off += n.lazy;
      t = n.right;
    }
  }
  for (auto it = path.rbegin(); it != path.rend(); ++it) {
    const Node& n = nodes_[it->first];
    if (short_of(n.value + it->second)) return n.key;
    std::int64_t o = it->second + n.lazy;
    if (!may_hold(n.left, o)) continue;
    Index s = n.left;
    for (;;) {
      const Node& m = nodes_[s];
      const std::int64_t below = o + m.lazy;
      if (may_hold(m.right, below)) {
        s = m.right;
        o = below;
      } else if (short_of(m.value + o)) {
        return m.key;
      } else {
        s = m.left;
        o = below;
      }
    }
  }
  return std::numeric_limits<Time>::min();
}

template <bool kMax>
std::int64_t Planner::extreme_free(Time a, Time b) const {
  auto better = [](std::int64_t x, std::int64_t y) { return kMax ? std::max(x, y) : std::min(x, y); };
  auto bound = [&](Index s) { return kMax ? nodes_[s].hi : nodes_[s].lo; };
  a = std::max(a, origin_);
  std::int64_t m = free_at(a);
  if (b <= a) return m;
  // Over the breakpoints strictly inside (a, b): descend to the node
  // where the paths to a and b part, then take whole subtrees on the way down.
  Index t = root_;
  while (t != kNil) {
    push(t);
    const Node& n = nodes_[t];
    if (n.key <= a) {
      t = n.right;
    } else if (n.key >= b) {
      t = n.left;
    } else {
      break;
    }
  }
  if (t == kNil) return m;
  m = better(m, nodes_[t].value);
  for (Index s = nodes_[t].left; s != kNil;) {  // keys > a in the left part
    push(s);
    const Node& n = nodes_[s];
    if (n.key > a) {
      m = better(m, n.value);
      if (n.right != kNil) m = better(m, bound(n.right));
      s = n.left;
    } else {
      s = n.right;
    }
  }
  for (Index s = nodes_[t].right; s != kNil;) {  // keys < b in the right part
    push(s);
    const Node& n = nodes_[s];
    if (n.key < b) {
      m = better(m, n.value);
      if (n.left != kNil) m = better(m, bound(n.left));
      s = n.right;
    } else {
      s = n.left;
    }
  }
  return m;
}

std::int64_t Planner::min_free(Time a, Time b) const { return extreme_free<false>(a, b); }

std::int64_t Planner::max_free(Time a, Time b) const { return extreme_free<true>(a, b); }

Time Planner::earliest_start(std::int64_t size, Time duration, Time not_before, Time horizon) const {
  const Time x = std::max(not_before, origin_);
  if (x >= horizon) return horizon;
  if (size <= 0) return x;
  if (size > nodes_[root_].hi) return horizon;  // never that many free units
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
  StartScan scan{size, duration, horizon, x, false, horizon, x, kWalkBudget};
  if (collect_path_after(x) >= size) scan.open_at(x);  // a candidate at x itself
  const std::vector<std::pair<Index, std::int64_t>>& path = path_scratch_;
  // The path's nodes after x, smallest key first (the deepest), each
  // followed by its right subtree: the breakpoints after x in order.
  for (auto it = path.rbegin(); it != path.rend(); ++it) {
    const Node& n = nodes_[it->first];
    if (scan.visit(n.key, n.value + it->second) ||
        (n.right != kNil && scan_subtree(scan, n.right, it->second + n.lazy))) {
      if (scan.budget >= 0) return scan.answer();
      // Out of budget: every start before the candidate (or through the last
      // key visited, which is short, when none is open) was ruled out.
      return scan.open ? start_by_rounds(size, duration, scan.candidate, false, horizon)
                       : start_by_rounds(size, duration, scan.last_key, true, horizon);
    }
  }
  // Past the last breakpoint: a candidate runs to infinity.
  return scan.answer();
}

Time Planner::start_by_rounds(std::int64_t size, Time duration, Time x, bool x_short, Time horizon) const {
  for (;;) {
    // Earliest candidate at or after x where enough units are free.
    Time s = x;
    if (x_short || free_at(x) < size) {
      s = first_after(x, size, /*want_at_least=*/true);
      if (s == kTimeInfinity) return horizon;
    }
    if (s >= horizon) return horizon;
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

bool Planner::scan_subtree(StartScan& scan, Index t, std::int64_t off) const {
  const Node& n = nodes_[t];
  // Nothing in it changes the walk's state: every segment has enough units
  // while a candidate is open, or every one is short while none is. A key in
  // it past the limit is then noticed at the next key visited, or at the
  // end, with the same answer.
  if (scan.open ? n.lo + off >= scan.size : n.hi + off < scan.size) return false;
  const std::int64_t below = off + n.lazy;
  if (n.left != kNil && scan_subtree(scan, n.left, below)) return true;
  if (scan.visit(n.key, n.value + off)) return true;
  return n.right != kNil && scan_subtree(scan, n.right, below);
}

void Planner::ensure_breakpoint(Time t) {
  if (t >= kTimeInfinity) return;
  const Floor f = floor_node(t);
  if (nodes_[f.node].key == t) return;
  const std::int64_t v = f.value;
  Index l, r;
  split(root_, t, l, r);
  root_ = merge(merge(l, make_node(t, v)), r);
}

void Planner::add(Time a, Time b, std::int64_t delta) { shift(a, b, delta, true); }

std::int64_t Planner::shift(Time a, Time b, std::int64_t delta, bool count) {
  a = std::max(a, origin_);
  if (b <= a || delta == 0) return std::numeric_limits<std::int64_t>::max();
  if (count && delta > 0) {
    ++additions_;
    if (log_gains_) gains_.emplace_back(a, b);
  }
  // Give the profile breakpoints at a and b if it lacks them, shift the keys
  // in [a, b), then drop a breakpoint at a or b whose value now equals its
  // predecessor's. A new breakpoint never does: it took its predecessor's
  // value and exactly one of the two was shifted (delta != 0). Inside
  // [a, b) every value moved by the same delta, so no other pair became equal.
  Floor before;
  const Floor at_a = floor_node(a, before);  // exists: a >= origin, which is a key
  const bool a_is_key = nodes_[at_a.node].key == a;
  const std::int64_t value_at_a = at_a.value;  // before the shift
  // The value just before a, when a is a key (a = origin has none).
  const bool a_has_predecessor = a_is_key && before.node != kNil;
  const std::int64_t value_before_a = a_has_predecessor ? before.value : 0;
  bool b_is_key = false;
  std::int64_t value_at_b = 0;
  std::int64_t value_before_b = 0;  // before the shift
  if (b < kTimeInfinity) {
    const Floor at_b = floor_node(b, before);  // b > a: before is a node
    b_is_key = nodes_[at_b.node].key == b;
    value_at_b = at_b.value;
    value_before_b = b_is_key ? before.value : value_at_b;
    // Made before a's node, as the split-and-merge version did: the same
    // priorities, the same tree.
    if (!b_is_key) root_ = insert_node(root_, make_node(b, value_before_b));
  }
  if (!a_is_key) root_ = insert_node(root_, make_node(a, value_at_a));
  const std::int64_t lowest = add_range(root_, a, b, delta, false, false);
  if (a_has_predecessor && value_before_a == value_at_a + delta) root_ = erase_key(root_, a);
  if (b_is_key && value_at_b == value_before_b + delta) root_ = erase_key(root_, b);
  return lowest;
}

Planner::Index Planner::insert_node(Index t, Index n) {
  if (t == kNil) return n;
  if (nodes_[n].prio > nodes_[t].prio) {
    // n goes here (as merge() would put it): t's keys split around n's.
    split(t, nodes_[n].key, nodes_[n].left, nodes_[n].right);
    pull(n);
    return n;
  }
  push(t);
  if (nodes_[n].key < nodes_[t].key) {
    const Index left = insert_node(nodes_[t].left, n);
    nodes_[t].left = left;
  } else {
    const Index right = insert_node(nodes_[t].right, n);
    nodes_[t].right = right;
  }
  pull(t);
  return t;
}

std::int64_t Planner::add_range(Index t, Time a, Time b, std::int64_t delta, bool all_from_a, bool all_before_b) {
  // `all_from_a` / `all_before_b`: every key of t is >= a / < b (known from
  // the path). Whole subtrees inside [a, b) take the addition lazily.
  if (t == kNil) return std::numeric_limits<std::int64_t>::max();
  if (all_from_a && all_before_b) {
    apply(t, delta);
    return nodes_[t].lo;
  }
  push(t);
  const Time key = nodes_[t].key;
  std::int64_t lowest = std::numeric_limits<std::int64_t>::max();
  if (key < a) {
    lowest = add_range(nodes_[t].right, a, b, delta, false, all_before_b);
  } else if (key >= b) {
    lowest = add_range(nodes_[t].left, a, b, delta, all_from_a, false);
  } else {
    nodes_[t].value += delta;
    lowest = std::min({nodes_[t].value, add_range(nodes_[t].left, a, b, delta, all_from_a, true),
                       add_range(nodes_[t].right, a, b, delta, true, all_before_b)});
  }
  pull(t);
  return lowest;
}

Planner::Index Planner::erase_key(Index t, Time key) {
  push(t);
  if (nodes_[t].key == key) {
    const Index joined = merge(nodes_[t].left, nodes_[t].right);
    free_list_.push_back(t);
    --count_;
    return joined;
  }
  if (key < nodes_[t].key) {
    const Index left = erase_key(nodes_[t].left, key);
    nodes_[t].left = left;
  } else {
    const Index right = erase_key(nodes_[t].right, key);
    nodes_[t].right = right;
  }
  pull(t);
  return t;
}

Planner::SpanId Planner::reserve(Time start, Time duration, std::int64_t size) {
  if (size <= 0 || duration <= 0) return SpanId{};
  const Time end = duration >= kTimeInfinity - start ? kTimeInfinity : start + duration;
  // Take the units first and look at the lowest free value the shift left
  // (one pass instead of a min_free query before it); undo on overbooking.
  const std::int64_t lowest = shift(start, end, -size, false);
  if (lowest < 0) {
    shift(start, end, size, false);
    throw std::logic_error("planner: reserving " + std::to_string(size) + " units over [" + std::to_string(start) +
                           ", " + std::to_string(end) + ") but only " + std::to_string(lowest + size) +
                           " are free there");
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
  ensure_breakpoint(t);
  Index l, r;
  split(root_, t, l, r);
  free_tree(l);
  root_ = r;
  origin_ = t;
}

void Planner::collect(Index t, std::vector<AvailabilitySlot>& out) const {
  // In-order traversal with an explicit stack (the treap is balanced in
  // expectation, but this path must not depend on that).
  std::vector<Index> stack;
  Index cur = t;
  while (cur != kNil || !stack.empty()) {
    while (cur != kNil) {
      push(cur);
      stack.push_back(cur);
      cur = nodes_[cur].left;
    }
    cur = stack.back();
    stack.pop_back();
    if (!out.empty()) out.back().end = nodes_[cur].key;
    out.push_back({nodes_[cur].key, kTimeInfinity, nodes_[cur].value});
    cur = nodes_[cur].right;
  }
}

std::vector<AvailabilitySlot> Planner::slots() const {
  std::vector<AvailabilitySlot> out;
  out.reserve(count_);
  collect(root_, out);
  return out;
}

}  // namespace los
