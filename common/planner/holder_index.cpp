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

void HolderIndex::clear() {
  nodes_.clear();
  free_list_.clear();
  root_ = kNil;
  count_ = 0;
}

}  // namespace los
