// The holders of reservations in order of reserved start, searchable by
// shape: conservative compression's way to skip, in O(log n) per visited
// holder, the long runs of holders that cannot move.
//
// A treap keyed by (start, creation order), the order compression visits
// holders in. Every node keeps the least size, least duration and least
// start of its subtree, so a search for the next holder after a key that may
// pass a test skips every subtree the test's bound rules out.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <random>
#include <stdexcept>
#include <vector>

#include "model/job.hpp"

namespace los {

class HolderIndex {
  using Index = std::int32_t;
  static constexpr Index kNil = -1;

 public:
  struct Holder {
    Time start;
    std::int64_t order;
    JobId id;
    std::int64_t size;
    Time duration;
  };
  // What a subtree holds at least: every holder in it has size >= size,
  // duration >= duration, start >= start.
  struct Bounds {
    std::int64_t size;
    Time duration;
    Time start;
  };

  HolderIndex() : rng_(0x401d) {}

  void insert(const Holder& h);
  // Replaces the contents by `sorted` (in key order, keys unique): O(n).
  void assign_sorted(const std::vector<Holder>& sorted);
  // The holders in key order.
  std::vector<Holder> sorted() const;
  // The holder with the least key; nullptr when empty.
  const Holder* first() const;
  void erase(Time start, std::int64_t order);
  // After a compression pass (planner/indexed_compression.hpp): `moved` holds
  // the old entries of the holders it moved, in key order (the order the pass
  // visited them), and new_start(i) the new start of moved[i]. Few: two
  // O(log n) updates each; many: one O(n) rebuild, whose merge-like walk
  // drops the old entries without a look-up per holder.
  template <typename NewStart>
  void move_all(const std::vector<Holder>& moved, const NewStart& new_start);
  void clear();
  std::size_t size() const { return count_; }

  // A walk over the holders in key order that resumes where it stopped:
  // next(walk, ...) is next_after(the last holder it returned, ...), without
  // descending from the root again. The index must not change during a walk.
  class Walk {
   public:
    Walk() { stack_.reserve(64); }

   private:
    friend class HolderIndex;
    std::vector<Index> stack_;  // entered nodes whose holder and right subtree are still ahead
    Index pending_ = kNil;      // the subtree to enter next
    bool started_ = false;
  };

  // The next holder of the walk for which accept(holder) is true, with
  // may_hold as in next_after (tested when the walk enters a subtree);
  // nullptr at the end.
  template <typename MayHold, typename Accept>
  const Holder* next(Walk& walk, const MayHold& may_hold, const Accept& accept) const {
    if (!walk.started_) {
      walk.pending_ = root_;
      walk.started_ = true;
    }
    for (;;) {
      // Every holder in a subtree that may_hold rules out fails accept()
      // (the caller's promise), so skipping it skips no answer.
      for (Index t = walk.pending_; t != kNil && may_hold(nodes_[t].bounds); t = nodes_[t].left) {
        walk.stack_.push_back(t);
      }
      walk.pending_ = kNil;
      if (walk.stack_.empty()) return nullptr;
      const Node& n = nodes_[walk.stack_.back()];
      walk.stack_.pop_back();
      walk.pending_ = n.right;
      if (accept(n.holder)) return &n.holder;
    }
  }

  // Places the walk before the first holder with key >= (start, order): the
  // next next() returns it or a later one. Its ancestors above the key go on
  // the stack unpruned (may_hold is tested on the subtrees entered after).
  void seek(Walk& walk, Time start, std::int64_t order) const {
    walk.stack_.clear();
    walk.pending_ = kNil;
    walk.started_ = true;
    for (Index t = root_; t != kNil;) {
      const Node& n = nodes_[t];
      if (before(n.holder, start, order)) {
        t = n.right;
      } else {
        walk.stack_.push_back(t);
        t = n.left;
      }
    }
  }

  // The first holder with key > (start, order), in key order, for which
  // accept(holder) is true. may_hold(bounds) must be true for any subtree that
  // holds a holder accept() takes (it may be true for others). nullptr when
  // none.
  template <typename MayHold, typename Accept>
  const Holder* next_after(Time start, std::int64_t order, const MayHold& may_hold, const Accept& accept) const {
    return find(root_, start, order, false, may_hold, accept);
  }

 private:
  struct Node {
    Holder holder;
    Bounds bounds;
    std::uint32_t prio;
    Index left;
    Index right;
  };

  static bool before(const Holder& h, Time start, std::int64_t order) {
    return h.start < start || (h.start == start && h.order < order);
  }
  void pull(Index t);
  void split(Index t, Time start, std::int64_t order, Index& l, Index& r);  // l: keys < (start, order)
  Index merge(Index l, Index r);

  // In-order search of t's keys above (start, order); `all_above` when the
  // whole subtree is above it (then the bounds may prune it).
  template <typename MayHold, typename Accept>
  const Holder* find(Index t, Time start, std::int64_t order, bool all_above, const MayHold& may_hold,
                     const Accept& accept) const {
    while (t != kNil) {
      const Node& n = nodes_[t];
      if (!all_above) {
        if (!before(n.holder, start, order) && !(n.holder.start == start && n.holder.order == order)) {
          // n is above the key: so is its right subtree; its left one is partly.
          if (const Holder* h = find(n.left, start, order, false, may_hold, accept)) return h;
          if (accept(n.holder)) return &n.holder;
          t = n.right;
          all_above = true;
        } else {
          t = n.right;
        }
        continue;
      }
      if (!may_hold(n.bounds)) return nullptr;
      if (const Holder* h = find(n.left, start, order, true, may_hold, accept)) return h;
      if (accept(n.holder)) return &n.holder;
      t = n.right;
    }
    return nullptr;
  }

  std::vector<Node> nodes_;
  std::vector<Index> free_list_;
  Index root_ = kNil;
  std::size_t count_ = 0;
  std::minstd_rand rng_;  // treap priorities; fixed seed, deterministic
};

template <typename NewStart>
void HolderIndex::move_all(const std::vector<Holder>& moved, const NewStart& new_start) {
  if (moved.empty()) return;
  constexpr std::size_t kMovesPerRebuild = 16;
  if (moved.size() * kMovesPerRebuild < count_) {
    for (std::size_t i = 0; i < moved.size(); ++i) {
      Holder h = moved[i];
      erase(h.start, h.order);
      h.start = new_start(i);
      insert(h);
    }
    return;
  }
  const auto key_less = [](const Holder& a, const Holder& b) {
    return a.start < b.start || (a.start == b.start && a.order < b.order);
  };
  std::vector<Holder> stayed;
  stayed.reserve(count_);
  std::size_t next = 0;
  for (const Holder& h : sorted()) {
    if (next < moved.size() && moved[next].start == h.start && moved[next].order == h.order) {
      ++next;
    } else {
      stayed.push_back(h);
    }
  }
  if (next != moved.size()) throw std::logic_error("holder index: a moved holder's old entry is missing");
  std::vector<Holder> now_at = moved;
  for (std::size_t i = 0; i < now_at.size(); ++i) now_at[i].start = new_start(i);
  std::sort(now_at.begin(), now_at.end(), key_less);
  std::vector<Holder> all;
  all.reserve(stayed.size() + now_at.size());
  std::merge(stayed.begin(), stayed.end(), now_at.begin(), now_at.end(), std::back_inserter(all), key_less);
  assign_sorted(all);
}

}  // namespace los
