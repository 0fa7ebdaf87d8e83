#include "planner/holder_index.hpp"

#include <algorithm>
#include <stdexcept>

namespace los {

void HolderIndex::pull(Index t) {
  Node& n = nodes_[t];
  Bounds b{n.holder.size, n.holder.duration, n.holder.start};
  if (n.left != kNil) {
    const Bounds& l = nodes_[n.left].bounds;
    b.size = std::min(b.size, l.size);
    b.duration = std::min(b.duration, l.duration);
    b.start = l.start;  // keys are in start order: the left subtree starts first
  }
  if (n.right != kNil) {
    const Bounds& r = nodes_[n.right].bounds;
    b.size = std::min(b.size, r.size);
    b.duration = std::min(b.duration, r.duration);
  }
  n.bounds = b;
}

void HolderIndex::split(Index t, Time start, std::int64_t order, Index& l, Index& r) {
  if (t == kNil) {
    l = r = kNil;
    return;
  }
  if (before(nodes_[t].holder, start, order)) {
    split(nodes_[t].right, start, order, nodes_[t].right, r);
    l = t;
  } else {
    split(nodes_[t].left, start, order, l, nodes_[t].left);
    r = t;
  }
  pull(t);
}

HolderIndex::Index HolderIndex::merge(Index l, Index r) {
  if (l == kNil) return r;
  if (r == kNil) return l;
  if (nodes_[l].prio > nodes_[r].prio) {
    nodes_[l].right = merge(nodes_[l].right, r);
    pull(l);
    return l;
  }
  nodes_[r].left = merge(l, nodes_[r].left);
  pull(r);
  return r;
}

void HolderIndex::insert(const Holder& h) {
  const Node n{h, Bounds{h.size, h.duration, h.start}, static_cast<std::uint32_t>(rng_()), kNil, kNil};
  Index i;
  if (!free_list_.empty()) {
    i = free_list_.back();
    free_list_.pop_back();
    nodes_[i] = n;
  } else {
    nodes_.push_back(n);
    i = static_cast<Index>(nodes_.size() - 1);
  }
  Index l, r;
  split(root_, h.start, h.order, l, r);
  root_ = merge(merge(l, i), r);
  ++count_;
}

void HolderIndex::erase(Time start, std::int64_t order) {
  Index l, mid, r;
  split(root_, start, order, l, mid);
  split(mid, start, order + 1, mid, r);
  if (mid == kNil) throw std::logic_error("holder index: erasing a holder it does not hold");
  // Keys are unique, so mid is the one node.
  free_list_.push_back(mid);
  --count_;
  root_ = merge(l, r);
}

void HolderIndex::assign_sorted(const std::vector<Holder>& sorted) {
  clear();
  nodes_.reserve(sorted.size());
  // A Cartesian tree by priority over the key order, built with the stack of
  // its right spine; bounds pulled bottom-up when a node leaves the spine.
  std::vector<Index> spine;
  for (const Holder& h : sorted) {
    const Index i = static_cast<Index>(nodes_.size());
    nodes_.push_back(Node{h, Bounds{h.size, h.duration, h.start}, static_cast<std::uint32_t>(rng_()), kNil, kNil});
    Index last = kNil;
    while (!spine.empty() && nodes_[spine.back()].prio < nodes_[i].prio) {
      last = spine.back();
      spine.pop_back();
      pull(last);
    }
    nodes_[i].left = last;
    if (!spine.empty()) nodes_[spine.back()].right = i;
    spine.push_back(i);
  }
  for (auto it = spine.rbegin(); it != spine.rend(); ++it) pull(*it);
  root_ = spine.empty() ? kNil : spine.front();
  count_ = sorted.size();
}

std::vector<HolderIndex::Holder> HolderIndex::sorted() const {
  std::vector<Holder> out;
  out.reserve(count_);
  std::vector<Index> stack;
  Index cur = root_;
  while (cur != kNil || !stack.empty()) {
    while (cur != kNil) {
      stack.push_back(cur);
      cur = nodes_[cur].left;
    }
    cur = stack.back();
    stack.pop_back();
    out.push_back(nodes_[cur].holder);
    cur = nodes_[cur].right;
  }
  return out;
}

const HolderIndex::Holder* HolderIndex::first() const {
  Index t = root_;
  if (t == kNil) return nullptr;
  while (nodes_[t].left != kNil) t = nodes_[t].left;
  return &nodes_[t].holder;
}

void HolderIndex::clear() {
  nodes_.clear();
  free_list_.clear();
  root_ = kNil;
  count_ = 0;
}

}  // namespace los
