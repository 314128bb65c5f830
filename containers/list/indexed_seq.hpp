// SPDX-License-Identifier: Apache-2.0
// containers/list/indexed_seq.hpp - stm::list::indexed_seq: the positional
// list of Liu, Pak and Guerrero (harris_seq.hpp) (insert-after-value, remove-value) with a value -> node
// index, so that every operation finds its node in O(1) instead of walking
// the list (harris_seq walks half of it on average).
//
//   stm::list::indexed_seq seq(stm::backend::gpu, capacity);
//   seq.assign({5, 4, 3, 2, 1});               // host, quiescent: the initial sequence
//   auto s = seq.ref();
//   s.insert_after(tid, 2, 6);                 // device: 6 right after 2
//   s.remove(tid, 1);  s.contains(tid, 3);     // (tid: the caller's thread id; unused here)
//   seq.reclaim();  seq.contents();            // host, between launches
//
// Meaning (sequential specification; every operation is linearizable). The
// state is the sequence S of distinct values and the set U of values used
// since the last assign()/reclaim(): the values of S at that point plus every
// value inserted since (removing a value does not return it to U).
//  - insert_after(t, n): t not in S -> not_found; else n in U -> exists;
//    else n is placed immediately after t in S and added to U -> ok;
//    full when no node is free (nothing changes).
//    Seed files never reuse a value (the parser checks it), so there exists
//    never happens.
//  - remove(v): v in S -> removed, ok; else not_found.
//  - contains(v): whether v is in S.
// Linearization points: remove, the CAS that marks v's node; insert_after,
// the CAS that publishes n in the index (ok) or that fails the linked node
// (exists), or the load that finds t's node marked (not_found).
// Which of ok and exists an insert_after returns: once its node is linked,
// the node's insertion is finished exactly once, by the inserter or by any
// helper, and the outcome is fixed by the index (a slot never changes within
// a launch): published when the index maps n to this node (flag cleared,
// ok), failed otherwise (marked with the flag set, exists). The inserter
// reads the outcome from the flag, never from the mark: after a helper
// published the node, a remove(n) may mark it before the inserter looks, and
// that insertion did take effect (it is linearized at the publishing CAS,
// before the remove's marking CAS).
//
// How: a new node is linked behind t's node with a pending flag, then its
// value is published in the index (one CAS on an empty slot), then the flag
// is cleared. Any operation that would change a node whose word or successor
// is pending first finishes that insertion (helping), so t cannot be removed
// and nothing can be inserted between t and n before n is published.
// Progress: lock-free (helping); no walks, so each operation costs O(1)
// expected memory accesses plus retries under contention on the same target.
//
// Removal is lazy: a removed node is marked and stays linked (it is skipped
// by everything) until reclaim(), called at a quiescent point, unlinks every
// marked node, frees it and rebuilds the index. Nodes are therefore never
// reused while any operation of the launch can reach them. Between two
// reclaim() calls at most `capacity` nodes can be taken (inserts, including
// ones that end in not_found after a lost race, return an unused node).
//
// Differences from harris_seq: O(1) operations; removed nodes stay linked
// until reclaim(); duplicates of used values are reported (exists) instead of
// being a precondition.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

#include "containers/list/detail/node_pool.hpp"
#include "containers/list/detail/value_index.hpp"

namespace stm::list {

class indexed_seq_ref {
 public:
  STM_HD op_status insert_after(std::uint32_t /*tid*/, std::uint32_t target, std::uint32_t value) const {
    const std::uint32_t t = index_.find(target);
    if (t == 0) return op_status::not_found;
    std::uint32_t fresh = node::head;
    for (;;) {
      const node::word_t tw = pool_.load(t);
      if (node::marked(tw)) {
        if (fresh != node::head) pool_.retire(fresh);  // never linked
        return op_status::not_found;
      }
      if (pending(tw)) {  // t itself is still being inserted: finish it first
        finish(t, tw);
        continue;
      }
      const std::uint32_t nx = node::next(tw);
      if (nx != node::tail) {
        const node::word_t nw = pool_.load(nx);
        if (pending(nw)) {  // an insertion right after t is not finished yet
          finish(nx, nw);
          continue;
        }
      }
      if (fresh == node::head) {
        fresh = pool_.allocate();
        if (fresh == node::head) return op_status::full;
      }
      // Private until the CAS below links it (its release publishes the word).
      pool_.at(fresh).store(node::make(value, nx, /*flag = pending*/ true), memory_order_relaxed);
      if (pool_.cas(t, tw, node::with_next(tw, fresh))) {
        // Finished (by this thread or a helper): ok exactly when the index
        // maps value to fresh. Not "fresh is unmarked": a helper may have
        // published it and a remove(value) marked it since (see the top).
        const node::word_t fw = finish(fresh, pool_.load(fresh));
        return published(fw) ? op_status::ok : op_status::exists;
      }
    }
  }

  STM_HD op_status remove(std::uint32_t /*tid*/, std::uint32_t value) const {
    const std::uint32_t n = index_.find(value);
    if (n == 0) return op_status::not_found;
    for (;;) {
      const node::word_t w = pool_.load(n);
      if (node::marked(w)) return op_status::not_found;
      if (pending(w)) {
        finish(n, w);
        continue;
      }
      const std::uint32_t nx = node::next(w);
      if (nx != node::tail) {
        const node::word_t nw = pool_.load(nx);
        if (pending(nw)) {  // an insert after `value` must take effect before the removal
          finish(nx, nw);
          continue;
        }
      }
      if (pool_.cas(n, w, node::with_mark(w))) return op_status::ok;  // linearization point
    }
  }

  /// ok when value is present, else not_found.
  STM_HD op_status contains(std::uint32_t /*tid*/, std::uint32_t value) const {
    const std::uint32_t n = index_.find(value);
    // published (even if still flagged) and not removed
    return n != 0 && !node::marked(pool_.load(n)) ? op_status::ok : op_status::not_found;
  }

 private:
  friend class indexed_seq;
  // Pending: linked (or about to be) and not yet published or failed.
  STM_HD static bool pending(node::word_t w) { return node::flag(w) && !node::marked(w); }
  // A finished node's word: its insertion took effect (flag cleared when its
  // value was published; a later remove marks it and keeps the flag clear),
  // or failed (marked with the flag still set). The word never goes back.
  STM_HD static bool published(node::word_t w) { return !node::flag(w); }

  // Finish the insertion of node i (word w): publish its value, then clear the
  // flag (published) or mark the node (the value was already used: the node
  // stays linked, invisible, until reclaim()). Idempotent; any thread may do
  // it. Returns a word of i from after the insertion was finished: published()
  // tells the outcome (it may also be marked by a later remove).
  STM_HD node::word_t finish(std::uint32_t i, node::word_t w) const {
    while (pending(w)) {
      const bool mine = index_.publish(node::key(w), i) == i;
      // While pending, only finish() changes i's word (everyone else helps first).
      if (pool_.cas(i, w, mine ? node::without_flag(w) : node::with_mark(w))) return mine ? node::without_flag(w) : node::with_mark(w);
      w = pool_.load(i);
    }
    return w;
  }

  detail::pool_ref pool_{};
  detail::value_index_ref index_{};
};
static_assert(std::is_trivially_copyable_v<indexed_seq_ref>);

/// Host owner (move-only): the node pool and the index.
class indexed_seq {
 public:
  indexed_seq(backend where, std::uint64_t capacity) : pool_(where, 2, capacity), slots_(where, table_size(capacity)) {
    ref_.pool_ = pool_.ref();
    ref_.index_.slots = slots_.data();
    ref_.index_.mask = slots_.size() - 1;
    std::uint32_t lg = 0;
    while ((std::uint64_t(1) << lg) < slots_.size()) ++lg;
    ref_.index_.shift = 64 - lg;
    assign({});
  }
  indexed_seq_ref ref() const { return ref_; }
  std::uint64_t capacity() const { return pool_.capacity(); }

  /// Quiescent point: replace the contents by `values` (distinct, at most
  /// capacity; usage_error otherwise).
  void assign(const std::vector<std::uint32_t>& values) {
    std::unordered_set<std::uint32_t> seen;
    for (auto v : values)
      if (!seen.insert(v).second) throw usage_error("value " + std::to_string(v) + " appears twice in the initial sequence");
    const std::vector<node::word_t> w = pool_.assign_chain(values);
    rebuild_index(w);
  }

  /// Quiescent point: unlink every removed (or failed) node, free it with the
  /// nodes retired since the last call, and rebuild the index from the
  /// sequence (U becomes the values of S). Returns the nodes freed.
  std::uint64_t reclaim() {
    auto w = pool_.words();
    std::vector<std::uint32_t> dead;
    std::uint32_t prev = node::head;
    for (std::uint32_t t = node::next(w[node::head]); t != node::tail;) {
      if (t < 2 || t >= w.size() || dead.size() > pool_.capacity())
        throw std::logic_error("indexed_seq: the list is corrupt (" + check() + ")");
      const std::uint32_t nx = node::next(w[t]);
      if (node::marked(w[t])) {
        dead.push_back(t);
        w[prev] = node::with_next(w[prev], nx);
      } else {
        prev = t;
      }
      t = nx;
    }
    pool_.upload_words(w);
    pool_.retire_on_host(dead);
    const std::uint64_t freed = pool_.reclaim();
    rebuild_index(w);
    return freed;
  }

  /// Quiescent point: the sequence (removed nodes skipped); logic_error when
  /// the structure is unsound (see check()).
  std::vector<std::uint32_t> contents() const { return detail::checked_contents(*this, "indexed_seq"); }

  /// Quiescent point: empty string when sound, else what is wrong: a cycle, a
  /// node still pending, a value twice, a present value the index does not map
  /// to its node, or node accounting (linked + free + retired != capacity).
  std::string check(std::vector<std::uint32_t>* values = nullptr) const {
    const auto slots = slots_.to_vector();
    detail::value_index_ref host = ref_.index_;
    host.slots = const_cast<std::uint64_t*>(slots.data());
    std::unordered_set<std::uint32_t> seen;
    // Removed nodes stay linked until reclaim(): they count, and are skipped.
    return detail::check_list(pool_, 2, [&](std::uint32_t t, node::word_t w, bool&) -> std::string {
      if (pending(w)) return "node " + std::to_string(t) + " is still pending after the launch";
      if (node::marked(w)) return "";
      const std::uint32_t v = node::key(w);
      if (!seen.insert(v).second) return "value " + std::to_string(v) + " is present twice";
      if (host.find(v) != t) return "the index does not map present value " + std::to_string(v) + " to its node";
      if (values) values->push_back(v);
      return "";
    });
  }

 private:
  STM_HD static bool pending(node::word_t w) { return indexed_seq_ref::pending(w); }
  static std::size_t table_size(std::uint64_t capacity) {
    std::uint64_t n = 2;
    while (n < 2 * (capacity + 2)) n <<= 1;
    return static_cast<std::size_t>(n);
  }
  void rebuild_index(const std::vector<node::word_t>& w) {
    std::vector<std::uint64_t> slots(slots_.size(), 0);
    detail::value_index_ref host = ref_.index_;
    host.slots = slots.data();
    for (std::uint32_t t = node::next(w[node::head]); t != node::tail; t = node::next(w[t]))
      if (!node::marked(w[t])) host.publish(node::key(w[t]), t);
    slots_.upload(slots);
  }

  detail::node_pool pool_;
  buffer<std::uint64_t> slots_;
  indexed_seq_ref ref_{};
};

}  // namespace stm::list
