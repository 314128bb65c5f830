// SPDX-License-Identifier: Apache-2.0
// containers/skiplist/lockfree_skiplist.hpp - stm::skiplist::lockfree_skiplist:
// an ordered set of 32-bit keys as a lock-free skiplist with marked next
// pointers (Herlihy & Shavit, "The Art of Multiprocessor Programming",
// LockFreeSkipList; Fraser, "Practical lock-freedom", 2004), over a node pool.
//
//   stm::skiplist::lockfree_skiplist set(stm::backend::gpu, /*capacity=*/1 << 20);  // 5 levels
//   auto s = set.ref();                      // trivially copyable, pass by value
//   // in a kernel or CPU thread body:
//   stm::op_status st = s.insert(tid, key);  // ok | exists | full (pool exhausted)
//   s.remove(tid, key);                       // ok | not_found
//   s.contains(tid, key);                     // ok (present) | not_found
//   // as a map (a 32-bit value per key; a set insert gives a new key value 0):
//   s.put(tid, key, value);                   // ok (inserted or assigned) | full
//   std::uint32_t v; s.get(tid, key, v);      // ok (v set) | not_found
//   s.erase(tid, key);                        // ok | not_found
//   (tid: the caller's thread id, which every container takes first; unused here)
//   // on the host, between launches (quiescent point):
//   set.reclaim();                            // unlinked nodes become free again
//
// Guarantees
//  - insert and remove are lock-free, contains is wait-free (it never writes
//    and passes each node at most once); all three are linearizable. insert
//    takes effect when its node is linked at level 0, remove when its CAS
//    marks the node's level-0 word (Herlihy-Shavit's proof; the upper levels
//    are only shortcuts).
//  - Keys: every 32-bit value. A node's tower height is a function of its key
//    (detail/towers.hpp: probability 1/4 per level, up to `levels`).
//  - Memory is reclaimed at quiescent points: no node is reused within a
//    launch; reclaim() between launches frees the nodes unlinked so far. A
//    node is retired by the thread whose CAS unlinks it at level 0, and by the
//    end of every launch no marked node is reachable at any level (below), so
//    reclaim() never frees a node that a later walk can reach.
//
// Why this design. The GPU-friendly skiplist of Moscovici, Cohen and Petrank
// (GFSL, PACT 2017) packs up to 32 keys per node so that a warp searches a
// node with one coalesced load; it is faster on a GPU but lock-based (chunk
// splits and merges take locks), needs warp-cooperative code that the CPU
// backend (a warp of one thread) cannot run, and its multi-key nodes would
// not share the node pool and words of the transactional variant. One key per
// node with marked next pointers is lock-free, is written once for both
// backends, and is the structure the transactional skiplist walks, so the two
// compare the synchronization alone. Reclamation: no reuse within a launch
// plus quiescent-state reclamation between launches (the list's pool), rather
// than epochs or hazard pointers inside a kernel, which cost every step of a
// walk a publication and a fence; a launch's pool must then hold every node
// its inserts take (full says so, never corruption).
//
// Upper levels and removal (Fraser's insert, which fixes the book's version):
// an insert links level 0 (linearization), then each upper level l with one
// CAS on its predecessor, after making sure its own level-l next is unmarked
// and current; it stops as soon as its node is marked (a remover marks every
// level, top down, level 0 last). A remover whose level-0 mark succeeds runs
// one more search, which unlinks the node at every level where it is linked.
// An insert that stopped, or finished, and finds its node marked runs that
// search too. One of the two searches starts after the insert's last link and
// after the last mark, so no marked node outlives the launch at any level.
// Each node is linked at most once per level per launch, hence unlinked at
// level 0 (and retired) exactly once.
//
// Node claims: the pool hands out and retires nodes through one atomic per
// lane (platform::claim_index): a warp-shared claim is not safe this deep
// in divergent code (docs/design-decisions.md#claimed-indices, which also
// says what is still to be confirmed on a GPU).
//
// Differences from std::set: fixed capacity, no iterators during a launch
// (contents() on the host at a quiescent point), insert reports a status.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "containers/list/detail/harris_search.hpp"
#include "containers/skiplist/detail/towers.hpp"

namespace stm::skiplist {

/// Device/thread handle of a lockfree_skiplist (trivially copyable).
class lockfree_skiplist_ref {
 public:
  /// Insert key: ok, exists, or full (no free node until reclaim()).
  STM_HD op_status insert(std::uint32_t /*tid*/, std::uint32_t key) const { return insert_node(key, node::head); }

  /// Insert key into node `fresh`, a free node of the pool that the caller
  /// took (node::head: take one when needed; tx_skiplist's settle passes the
  /// node its transaction reserved). ok, exists (fresh, if any, is retired:
  /// never published), or full.
  STM_HD op_status insert_node(std::uint32_t key, std::uint32_t fresh) const {
    const std::uint32_t h = tower_height(key, t_.levels);
    if (fresh != node::head) t_.height[fresh] = h;  // private: published by the level-0 CAS below
    path p;
    for (bool present = find(key, p);; present = find_again_at_level_zero(key, p)) {
      if (present) {
        if (fresh != node::head) t_.pool.retire(fresh);  // never published
        return op_status::exists;
      }
      if (fresh == node::head) {
        fresh = t_.pool.allocate();
        if (fresh == node::head) return op_status::full;
        t_.height[fresh] = h;  // private: published by the level-0 CAS below
      }
      // Private until the CAS publishes it: relaxed stores.
      for (std::uint32_t l = 0; l < h; ++l)
        at(l, fresh).store(node::make(key, p.succ[l]), memory_order_relaxed);
      // Linearization point; release: publishes the node's words and height.
      if (t_.pool.cas(p.pred[0], p.pred_word[0], node::with_next(p.pred_word[0], fresh))) break;
    }
    link_upper_levels(key, fresh, h, p);
    return op_status::ok;
  }

  /// Remove key: ok or not_found.
  STM_HD op_status remove(std::uint32_t /*tid*/, std::uint32_t key) const {
    path p;
    if (!find(key, p)) return op_status::not_found;
    return remove_from(key, p, [] {});
  }

  /// True when key is present. Wait-free: never writes, skips marked nodes.
  /// ok when key is present, else not_found.
  STM_HD op_status contains(std::uint32_t /*tid*/, std::uint32_t key) const {
    return locate(key) != node::tail ? op_status::ok : op_status::not_found;
  }

  // --- the map (a 32-bit value per key; detail/towers.hpp, Values) ---------
  // Members beside the set's algorithm, which they use unchanged: get is the
  // wait-free walk of contains plus a value load, put an assignment to the
  // live node of the key or insert_node with the value written before the
  // node is published, erase the set's remove.
  //
  // Linearization. put on a present key: at its value store, or, when a
  // remove marked the node between put's walk (which saw it unmarked) and the
  // store, immediately before that mark (inside put's interval: the walk came
  // after put's invocation, the store before its response); its value is then
  // overwritten by the removal at once. get reads the value and then the
  // node's level-0 word: unmarked, so the node was live at the value load,
  // where get takes effect; marked, it walks again (a value stored into a node
  // after its mark is never returned). put of an absent key: at insert_node's
  // level-0 link (the node's value is published by that release CAS).

  /// ok (value set) when key is present, else not_found. Lock-free: walks
  /// again only when a remove marks the node it found.
  STM_HD op_status get(std::uint32_t /*tid*/, std::uint32_t key, std::uint32_t& value) const {
    for (;;) {
      const std::uint32_t n = locate(key);
      if (n == node::tail) return op_status::not_found;
      const std::uint32_t v = t_.value_at(n).load(memory_order_acquire);  // pairs with put's release store
      if (!node::marked(load(0, n))) {
        value = v;
        return op_status::ok;
      }
    }
  }

  /// Insert key with value, or assign value to a present key (one atomic
  /// store): ok, or full (no free node until reclaim()).
  STM_HD op_status put(std::uint32_t /*tid*/, std::uint32_t key, std::uint32_t value) const {
    for (;;) {
      const std::uint32_t n = locate(key);
      if (n != node::tail) {
        t_.value_at(n).store(value, memory_order_release);
        return op_status::ok;
      }
      const std::uint32_t fresh = t_.pool.allocate();
      if (fresh == node::head) return op_status::full;
      t_.value_at(fresh).store(value, memory_order_relaxed);  // private: published by insert_node's level-0 CAS
      // exists: an insert of the key came first (fresh is retired, never
      // published); assign to it on the next pass.
      if (insert_node(key, fresh) == op_status::ok) return op_status::ok;
    }
  }

  /// Remove key and its value: ok or not_found (the set's remove).
  STM_HD op_status erase(std::uint32_t tid, std::uint32_t key) const { return remove(tid, key); }

  /// visit(key, value) for every key of [lo, hi) the level-0 walk finds
  /// unmarked, in increasing order (values loaded as the walk passes: not a
  /// snapshot by itself; tx_skiplist brackets it with its key locks).
  template <class Visit>
  STM_HD void for_each_value_in(std::uint32_t lo, std::uint32_t hi, Visit&& visit) const {
    each_node_in(lo, hi, [&](std::uint32_t i, std::uint32_t k) { visit(k, t_.value_at(i).load(memory_order_acquire)); });
  }

  /// visit(key) for every key k with lo <= k < hi that the walk finds
  /// unmarked at level 0, in increasing order (a plain walk: not a snapshot
  /// of the range by itself; tx_skiplist brackets it with its key locks).
  template <class Visit>
  STM_HD void for_each_in(std::uint32_t lo, std::uint32_t hi, Visit&& visit) const {
    each_node_in(lo, hi, [&](std::uint32_t, std::uint32_t k) { visit(k); });
  }

  STM_HD std::uint32_t levels() const { return t_.levels; }

 private:
  friend class lockfree_skiplist;

  /// f(node, key) for every node of key lo <= key < hi that the walk finds
  /// unmarked at level 0, in increasing order: the upper levels find the last
  /// node below lo, level 0 walks the range (a plain walk, no snapshot).
  template <class F>
  STM_HD void each_node_in(std::uint32_t lo, std::uint32_t hi, F&& f) const {
    if (hi <= lo) return;
    std::uint32_t pred = node::head;
    for (std::uint32_t l = t_.levels; l-- > 1;) {  // the last node below lo at each upper level
      for (std::uint32_t cur = node::next(load(l, pred)); cur != node::tail;) {
        const node::word_t cw = load(l, cur);
        if (node::key(cw) >= lo) break;
        if (!node::marked(cw)) pred = cur;
        cur = node::next(cw);
      }
    }
    for (std::uint32_t cur = node::next(load(0, pred)); cur != node::tail;) {
      const node::word_t cw = load(0, cur);
      const std::uint32_t k = node::key(cw);
      if (k >= hi) break;
      if (k >= lo && !node::marked(cw)) f(cur, k);
      cur = node::next(cw);
    }
  }
  template <class, class>
  friend class tx_skiplist_ref;

  /// Predecessors and successors of a key at every level (Herlihy-Shavit's
  /// preds/succs), with the words seen: pred_word[l].next == succ[l].
  struct path {
    std::uint32_t pred[max_levels];
    std::uint32_t succ[max_levels];
    node::word_t pred_word[max_levels];
    node::word_t succ_word[max_levels];
  };
  struct at_least {
    std::uint32_t key;
    STM_HD bool operator()(std::uint32_t, node::word_t w) const { return node::key(w) >= key; }
  };
  /// Unlink hook of the searches: a node leaves the set at level 0 only.
  struct retire_at_level_zero {
    std::uint32_t level;
    STM_HD void operator()(const list::detail::pool_ref& pool, std::uint32_t i) const {
      if (level == 0) pool.retire(i);
    }
  };

  STM_HD atomic_ref<node::word_t> at(std::uint32_t l, std::uint32_t i) const {
    return atomic_ref<node::word_t>(*t_.word(l, i));
  }
  STM_HD node::word_t load(std::uint32_t l, std::uint32_t i) const {
    return at(l, i).load(memory_order_acquire);  // pairs with the release of the CAS that linked node i
  }

  /// The node holding key unmarked at level 0 when the walk passed it, or
  /// node::tail: the wait-free walk of contains() and get().
  STM_HD std::uint32_t locate(std::uint32_t key) const {
    std::uint32_t pred = node::head, cur = node::tail;
    node::word_t cw = 0;
    for (std::uint32_t l = t_.levels; l-- > 0;) {
      cur = node::next(load(l, pred));
      for (;;) {
        if (cur == node::tail) break;
        cw = load(l, cur);
        if (!node::marked(cw) && node::key(cw) >= key) break;
        if (!node::marked(cw)) pred = cur;
        cur = node::next(cw);
      }
    }
    return cur != node::tail && node::key(cw) == key ? cur : node::tail;
  }

  /// The levels above 0 of an insert whose level-0 link (the linearization
  /// point) is done: fresh of height h into each level from p, searching
  /// again when p is stale; then, if the node was removed meanwhile, one more
  /// search after its last link (see the header). insert_node and
  /// insert_node_from end with it.
  STM_HD void link_upper_levels(std::uint32_t key, std::uint32_t fresh, std::uint32_t h, path& p) const {
    for (std::uint32_t l = 1; l < h; ++l) {
      const list::detail::pool_ref lv = t_.level(l);
      bool linked = false;
      while (!linked) {
        node::word_t own = lv.load(fresh);
        if (node::marked(own)) goto done;  // being removed: link no higher
        // Another node with our key at level l (Fraser: "ensure we have unique
        // key values at every level"): one our first search met at level l
        // before it was deleted, or, if ours has been marked since, a newer
        // one. Look again: the search unlinks a deleted one, and a live one
        // means ours is marked (two unmarked nodes of one key cannot both be
        // linked at level 0), which the next pass sees.
        if (p.succ[l] != node::tail && node::key(p.succ_word[l]) == key) {
          find(key, p);
          continue;
        }
        if (node::next(own) != p.succ[l]) {
          if (!lv.cas(fresh, own, node::with_next(own, p.succ[l]))) continue;  // only a mark changes it meanwhile
        }
        linked = lv.cas(p.pred[l], p.pred_word[l], node::with_next(p.pred_word[l], fresh));
        if (!linked) find(key, p);  // a new view of the predecessors
      }
    }
  done:
    // Removed while we linked it? Then one more search, after our last link,
    // unlinks it everywhere (see the header).
    if (node::marked(t_.pool.load(fresh))) find(key, p);
  }

  /// After a lost level-0 CAS: Harris' search of level 0 again, from the
  /// predecessor the lost CAS aimed at, instead of a whole descent from the
  /// head. Under contention many inserts lose the CAS on one predecessor in
  /// turn, and a descent costs a dependent load per node passed at every
  /// level. The upper levels of p stay as they were: they are only shortcuts,
  /// and the insert links them by CASes that fail (and search again) when
  /// they are stale. From the head only when that predecessor was removed
  /// meanwhile. Same result as find().
  STM_HD bool find_again_at_level_zero(std::uint32_t key, path& p) const {
    const list::detail::window w =
        list::detail::search(t_.level(0), p.pred[0], at_least{key}, retire_at_level_zero{0});
    if (w.right == node::head) return find(key, p);  // pred[0] was removed under us
    p.pred[0] = w.left;
    p.pred_word[0] = w.left_word;
    p.succ[0] = w.right;
    p.succ_word[0] = w.right_word;
    return w.right != node::tail && node::key(w.right_word) == key;
  }

  /// Harris' search at every level, top down, each level starting at the
  /// predecessor found above; unlinks the marked nodes it passes. Restarts
  /// from the head when a level's start has been marked since. True when
  /// succ[0] holds key (unmarked).
  STM_HD bool find(std::uint32_t key, path& p) const {
    for (;;) {
      std::uint32_t pred = node::head;
      std::uint32_t l = t_.levels;
      while (l-- > 0) {
        const list::detail::window w =
            list::detail::search(t_.level(l), pred, at_least{key}, retire_at_level_zero{l});
        if (w.right == node::head) break;  // pred was deleted under us
        p.pred[l] = w.left;
        p.pred_word[l] = w.left_word;
        p.succ[l] = w.right;
        p.succ_word[l] = w.right_word;
        pred = w.left;
        if (l == 0) return w.right != node::tail && node::key(w.right_word) == key;
      }
    }
  }

  // --- from a kept path (tx_skiplist's direct one-shot updates) ----------
  // The insert and remove above with their first search replaced by a path
  // that find() filled for the key some time before, during which nobody
  // else inserted or removed the key (the caller's key lock says so); the
  // neighbours may have changed. remove() is find() then remove_from(); an
  // insert's levels above 0 are link_upper_levels() in both forms.

  /// insert_node(key, fresh) from p (find() found key absent): the level-0
  /// CAS on p's predecessor first, Harris' search again from there when it
  /// fails (a stale path), then the upper levels as insert_node. ok, or
  /// exists (the key came in after all: fresh is retired, never published).
  /// linked() runs right after the level-0 link (the linearization point),
  /// before the upper levels: from there on the key's presence is settled,
  /// and what follows is what a concurrent remove of the key may overlap
  /// natively (insert_node's own races).
  template <class Linked>
  STM_HD op_status insert_node_from(std::uint32_t key, std::uint32_t fresh, path& p, Linked&& linked) const {
    const std::uint32_t h = tower_height(key, t_.levels);
    t_.height[fresh] = h;  // private: published by the level-0 CAS below
    for (bool present = false;; present = find_again_at_level_zero(key, p)) {
      if (present) {
        t_.pool.retire(fresh);  // never published
        return op_status::exists;
      }
      for (std::uint32_t l = 0; l < h; ++l) at(l, fresh).store(node::make(key, p.succ[l]), memory_order_relaxed);
      // Linearization point; release: publishes the node's words and height.
      if (t_.pool.cas(p.pred[0], p.pred_word[0], node::with_next(p.pred_word[0], fresh))) break;
    }
    linked();
    link_upper_levels(key, fresh, h, p);
    return op_status::ok;
  }

  /// remove(key) from p (find() found key's node p.succ[0], unmarked): the
  /// marks, top down, level 0 last (the linearization point), then the search
  /// that unlinks it. ok, or not_found (another remove marked it first).
  /// marked() runs right after the level-0 mark, before the unlinking search
  /// (which a concurrent insert of the key may overlap natively, as it may
  /// overlap remove's).
  template <class Marked>
  STM_HD op_status remove_from(std::uint32_t key, path& p, Marked&& marked) const {
    const std::uint32_t victim = p.succ[0];
    const std::uint32_t h = t_.height[victim];  // written before the node was published
    for (std::uint32_t l = h; l-- > 1;) {  // upper levels, top down
      const list::detail::pool_ref lv = t_.level(l);
      for (node::word_t w = lv.load(victim); !node::marked(w); w = lv.load(victim))
        if (lv.cas(victim, w, node::with_mark(w))) break;
    }
    for (node::word_t w = t_.pool.load(victim);; w = t_.pool.load(victim)) {
      if (node::marked(w)) return op_status::not_found;  // another remove won
      if (t_.pool.cas(victim, w, node::with_mark(w))) break;  // linearization point
    }
    marked();
    find(key, p);  // unlinks the victim at every level; level 0 retires it
    return op_status::ok;
  }

  detail::towers_ref t_{};
};
static_assert(std::is_trivially_copyable_v<lockfree_skiplist_ref>);

/// Host owner of a lockfree_skiplist (move-only).
class lockfree_skiplist {
 public:
  /// capacity: user nodes (>= 1); levels: 1 .. max_levels, else usage_error.
  lockfree_skiplist(backend where, std::uint64_t capacity, std::uint32_t levels = default_levels)
      : towers_(where, capacity, levels) {
    ref_.t_ = towers_.ref();
  }

  lockfree_skiplist_ref ref() const { return ref_; }
  std::uint64_t capacity() const { return towers_.capacity(); }
  std::uint32_t levels() const { return towers_.levels(); }

  /// Quiescent point: make the nodes unlinked since the last call free again.
  std::uint64_t reclaim() { return towers_.reclaim(); }
  /// Quiescent point: empty the set and free every node.
  void clear() { towers_.clear(); }
  /// Quiescent point: the contents become `keys` (values[i] each, or 0), in
  /// linear time after a sort (detail/towers.hpp, assign).
  void assign(std::vector<std::uint32_t> keys, std::vector<std::uint32_t> values = {}) {
    towers_.assign(std::move(keys), std::move(values));
  }

  /// Quiescent point: the keys in order.
  std::vector<std::uint32_t> contents() const { return list::detail::checked_contents(*this, "lockfree_skiplist"); }
  /// Quiescent point: the structure check of detail/towers.hpp ("" when sound).
  std::string check(std::vector<std::uint32_t>* keys = nullptr) const { return towers_.check(keys); }
  std::vector<std::uint32_t> free_nodes() const { return towers_.free_nodes(); }
  /// Quiescent point: (key, value) pairs in key order (the map's contents).
  std::vector<std::pair<std::uint32_t, std::uint32_t>> entries() const {
    (void)contents();  // throws when the structure is unsound
    return towers_.entries();
  }

 private:
  detail::towers towers_;
  lockfree_skiplist_ref ref_{};
};

}  // namespace stm::skiplist
