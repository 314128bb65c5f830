// SPDX-License-Identifier: Apache-2.0
// containers/list/harris_set.hpp - stm::list::harris_set: a sorted set of
// 32-bit keys as Harris' lock-free linked list over a node pool.
//
//   stm::list::harris_set set(stm::backend::gpu, /*capacity=*/1 << 20);   // plain Harris list
//   stm::list::harris_set fast(stm::backend::gpu, 1 << 20, {0, 9999, 2500});  // 2500 buckets over keys 0..9999
//   auto s = set.ref();                       // trivially copyable, pass by value
//   // in a kernel or CPU thread body:
//   stm::op_status st = s.insert(tid, key);   // ok | exists | full (pool exhausted)
//   s.remove(tid, key);                        // ok | not_found
//   s.contains(tid, key);                      // ok (present) | not_found
//   (tid: the caller's thread id, which every container takes first; unused here)
//   // on the host, between launches (quiescent point):
//   set.reclaim();                             // unlinked nodes become free again
//
// Guarantees
//  - insert, remove and contains are linearizable and lock-free (Harris 2001:
//    logical deletion by a mark bit in the node word, physical unlinking by
//    the searches; a remove returns only after its node is unlinked, so after
//    every launch no marked node is reachable).
//  - Keys: every 32-bit value. Sentinels are told apart by a flag bit, so no
//    key is reserved.
//  - Memory is reclaimed at quiescent points: a node unlinked during a launch
//    is reused only after reclaim(), called on the host when no kernel uses
//    the set (detail/node_pool.hpp). Between two reclaim() calls at most
//    `capacity` inserts can take a node; the next one gets full,
//    never a node that a traversal may still hold.
//  - Buckets (the faster variant, "bucketed"): with a key-range hint the list
//    gets one permanent sentinel node per bucket, and an operation starts its
//    search at its key's bucket sentinel instead of the head. It is still one
//    sorted Harris list (sentinels are never removed), with the same
//    guarantees; operations cost O(keys per bucket) instead of O(size). Keys
//    outside the hint are valid and land in the first or last bucket.
//
// Differences from std::set: fixed capacity, no iterators during a launch
// (contents() on the host at a quiescent point), insert reports a status.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "containers/list/detail/harris_search.hpp"
#include "containers/list/detail/node_pool.hpp"

namespace stm::list {

/// Key range over which a harris_set places its bucket sentinels.
struct bucket_hint {
  std::uint32_t lo = 0;
  std::uint32_t hi = 0xFFFFFFFFu;
  std::uint32_t buckets = 1;  ///< 1: the plain Harris list (every search starts at the head)
};

/// Device/thread handle of a harris_set (trivially copyable).
class harris_set_ref {
 public:
  /// Insert key: ok, exists, or full (no free node until reclaim()).
  STM_HD op_status insert(std::uint32_t /*tid*/, std::uint32_t key) const { return insert_node(key, node::head); }

  /// Remove key: ok or not_found.
  STM_HD op_status remove(std::uint32_t /*tid*/, std::uint32_t key) const {
    const std::uint32_t start = bucket_start(key);
    for (;;) {
      const detail::window w = detail::search(pool_, start, at_least{order(key, false)});
      if (w.right == node::tail || node::flag(w.right_word) || node::key(w.right_word) != key) return op_status::not_found;
      if (!pool_.cas(w.right, w.right_word, node::with_mark(w.right_word))) continue;  // linearization point
      if (pool_.cas(w.left, w.left_word, node::with_next(w.left_word, node::next(w.right_word))))
        pool_.retire(w.right);
      else
        detail::search(pool_, start, at_least{order(key, false)});  // unlinks it (Harris' delete)
      return op_status::ok;
    }
  }

  /// ok when key is present, else not_found (wait-free walk; no unlinking).
  STM_HD op_status contains(std::uint32_t /*tid*/, std::uint32_t key) const {
    const std::uint64_t target = order(key, false);
    std::uint32_t t = node::next(pool_.load(bucket_start(key)));
    for (;;) {
      if (t == node::tail) return op_status::not_found;
      const node::word_t w = pool_.load(t);
      if (order_of(w) >= target)
        return !node::marked(w) && !node::flag(w) && node::key(w) == key ? op_status::ok : op_status::not_found;
      t = node::next(w);
    }
  }

  STM_HD std::uint32_t buckets() const { return buckets_; }

 private:
  friend class harris_set;
  template <class, class>
  friend class tx_set_ref;
  friend class tx_set;

  /// Insert key into node `fresh`, a free node of the pool that the caller
  /// took (node::head: take one when needed). ok, exists (fresh, if any, is
  /// retired: never published), or full.
  STM_HD op_status insert_node(std::uint32_t key, std::uint32_t fresh) const {
    const std::uint32_t start = bucket_start(key);
    for (;;) {
      const detail::window w = detail::search(pool_, start, at_least{order(key, false)});
      if (w.right != node::tail && !node::flag(w.right_word) && node::key(w.right_word) == key) {
        if (fresh != node::head) pool_.retire(fresh);  // never published
        return op_status::exists;
      }
      if (fresh == node::head) {
        fresh = pool_.allocate();
        if (fresh == node::head) return op_status::full;
      }
      // Plain store: the node is private until the CAS below publishes it.
      pool_.at(fresh).store(node::make(key, w.right), memory_order_relaxed);
      if (pool_.cas(w.left, w.left_word, node::with_next(w.left_word, fresh)))  // release: pairs with traversal loads
        return op_status::ok;
    }
  }

  // --- from a kept window (tx_set's direct one-shot updates) --------------
  // Harris' insert and remove with their first search replaced by a window
  // that find_window() returned for the key some time before, during which
  // nobody else inserted or removed the key (the caller's key lock says so);
  // the neighbours may have changed. Beside insert_node and remove, not in
  // them, so that the native operations' code stays as measured.

  /// Harris' search for key from its bucket: true when key is present (its
  /// node w.right, unmarked then).
  STM_HD bool find_window(std::uint32_t key, detail::window& w) const {
    w = detail::search(pool_, bucket_start(key), at_least{order(key, false)});
    return w.right != node::tail && !node::flag(w.right_word) && node::key(w.right_word) == key;
  }
  /// insert_node(key, fresh) from w (find_window() found key absent): the
  /// CAS on w's left node first, the plain insert_node (a new search) when it
  /// fails. (Its link is its last step: nothing follows it.)
  STM_HD op_status insert_from(std::uint32_t key, std::uint32_t fresh, const detail::window& w) const {
    pool_.at(fresh).store(node::make(key, w.right), memory_order_relaxed);  // private until the CAS
    if (pool_.cas(w.left, w.left_word, node::with_next(w.left_word, fresh))) return op_status::ok;
    return insert_node(key, fresh);
  }
  /// remove(key) from w (find_window() found key's node w.right): mark it
  /// (the linearization point; only its next can have changed), then unlink
  /// it from w's left node, or by a search when that CAS fails. ok, or
  /// not_found (another remove marked it first). marked() runs right after
  /// the mark, before the unlinking (which a concurrent insert of the key
  /// may overlap natively, as it may overlap remove's).
  template <class Marked>
  STM_HD op_status remove_from(std::uint32_t key, const detail::window& w, Marked&& marked) const {
    node::word_t x = w.right_word;
    while (!pool_.cas(w.right, x, node::with_mark(x))) {
      x = pool_.load(w.right);
      if (node::marked(x)) return op_status::not_found;
    }
    marked();
    if (pool_.cas(w.left, w.left_word, node::with_next(w.left_word, node::next(x))))
      pool_.retire(w.right);
    else
      detail::search(pool_, bucket_start(key), at_least{order(key, false)});  // unlinks it (Harris' delete)
    return op_status::ok;
  }

  // Order of the list: (key, sentinel before user node); the tail is last.
  STM_HD static std::uint64_t order(std::uint32_t key, bool sentinel) {
    return (std::uint64_t(key) << 1) | (sentinel ? 0u : 1u);
  }
  STM_HD static std::uint64_t order_of(node::word_t w) { return order(node::key(w), node::flag(w)); }
  struct at_least {
    std::uint64_t target;
    STM_HD bool operator()(std::uint32_t, node::word_t w) const { return order_of(w) >= target; }
  };
  STM_HD std::uint32_t bucket_start(std::uint32_t key) const {
    if (buckets_ <= 1 || key < lo_) return node::head;
    const std::uint64_t b = (std::uint64_t(key) - lo_) / width_;
    return b == 0 ? node::head : static_cast<std::uint32_t>(1 + (b < buckets_ ? b : buckets_ - 1));
  }

  detail::pool_ref pool_{};
  std::uint32_t lo_ = 0, buckets_ = 1;
  std::uint64_t width_ = 1;
};
static_assert(std::is_trivially_copyable_v<harris_set_ref>);

/// Host owner of a harris_set (move-only).
class harris_set {
 public:
  /// capacity: user nodes (>= 1). hint.buckets >= 1 and hint.lo <= hint.hi,
  /// else usage_error.
  harris_set(backend where, std::uint64_t capacity, bucket_hint hint = {})
      : pool_(where, checked_buckets(hint) + 1, capacity) {
    ref_.pool_ = pool_.ref();
    ref_.lo_ = hint.lo;
    ref_.buckets_ = hint.buckets;
    const std::uint64_t span = std::uint64_t(hint.hi) - hint.lo + 1;
    ref_.width_ = (span + hint.buckets - 1) / hint.buckets;
    clear();
  }

  harris_set_ref ref() const { return ref_; }
  std::uint64_t capacity() const { return pool_.capacity(); }
  std::uint32_t buckets() const { return ref_.buckets_; }

  /// Quiescent point: make the nodes unlinked since the last call free again.
  std::uint64_t reclaim() { return pool_.reclaim(); }

  /// Quiescent point: empty the set and free every node.
  void clear() {
    std::vector<node::word_t> w(pool_.sentinels() + std::size_t(pool_.capacity()), 0);
    // head -> sentinel(bucket 1) -> ... -> sentinel(bucket B-1) -> tail, all flagged
    std::vector<std::uint32_t> chain{node::head};
    for (std::uint32_t b = 1; b < ref_.buckets_; ++b) chain.push_back(1 + b);
    chain.push_back(node::tail);
    for (std::size_t i = 0; i + 1 < chain.size(); ++i) {
      const std::uint64_t k = i == 0 ? 0 : std::uint64_t(ref_.lo_) + i * ref_.width_;  // chain[i] is bucket i
      w[chain[i]] = node::make(static_cast<std::uint32_t>(k), chain[i + 1], true);
    }
    w[node::tail] = node::make(0xFFFFFFFFu, node::tail, true);
    pool_.upload_words(w);
    pool_.reset();
  }

  /// Quiescent point: replace the contents by `keys` (distinct, in any order;
  /// at most capacity, else usage_error). Built on the host in O(n) for
  /// sorted keys (O(n log n) otherwise: a sort first) and copied in one piece:
  /// a prefill by n inserts walks O(n^2) nodes in the plain list.
  void assign(std::vector<std::uint32_t> keys) {
    if (keys.size() > pool_.capacity())
      throw usage_error(std::to_string(keys.size()) + " keys do not fit a set of capacity " + std::to_string(pool_.capacity()));
    if (!std::is_sorted(keys.begin(), keys.end())) std::sort(keys.begin(), keys.end());  // sorted input: linear
    if (std::adjacent_find(keys.begin(), keys.end()) != keys.end()) throw usage_error("harris_set::assign: a key appears twice");
    clear();
    std::vector<node::word_t> w = pool_.words();
    // Merge the bucket sentinels (already chained by clear()) with the keys,
    // which take the first user nodes; a sentinel precedes a key equal to its own.
    const std::uint32_t first = pool_.sentinels();
    std::uint32_t prev = node::head, s = node::next(w[node::head]);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const std::uint64_t o = harris_set_ref::order(keys[i], false);
      while (s != node::tail && harris_set_ref::order_of(w[s]) < o) {
        w[prev] = node::with_next(w[prev], s);
        prev = s;
        s = node::next(w[s]);
      }
      const auto id = static_cast<std::uint32_t>(first + i);
      w[prev] = node::with_next(w[prev], id);
      w[id] = node::make(keys[i], s);
      prev = id;
    }
    w[prev] = node::with_next(w[prev], s);
    pool_.upload_words(w);
    pool_.skip(keys.size());  // clear() put every node in the ring, in index order: the first n are taken
  }

  /// Quiescent point: the keys in list order (sentinels left out).
  std::vector<std::uint32_t> contents() const { return detail::checked_contents(*this, "harris_set"); }

  /// Quiescent point: check the structure. Empty string when sound, else what
  /// is wrong: a cycle, a marked node reachable, keys out of order, a reachable
  /// node in the free ring, or nodes lost (reachable + free + retired must be
  /// the capacity).
  std::string check(std::vector<std::uint32_t>* keys = nullptr) const {
    std::uint64_t last = 0;
    bool first = true;
    std::uint32_t sentinels_seen = 0;
    std::string e = detail::check_list(pool_, 2, [&](std::uint32_t t, node::word_t w, bool& counts) -> std::string {
      if (node::marked(w)) return "marked node " + std::to_string(t) + " (key " + std::to_string(node::key(w)) + ") reachable";
      const std::uint64_t o = harris_set_ref::order_of(w);
      if (!first && o <= last) return "keys out of order at node " + std::to_string(t);
      first = false;
      last = o;
      if (node::flag(w)) {
        ++sentinels_seen;
        counts = false;
        if (t >= pool_.sentinels()) return "node " + std::to_string(t) + " is flagged as a sentinel but is a user node";
      } else {
        if (t < pool_.sentinels()) return "sentinel " + std::to_string(t) + " lost its flag";
        if (keys) keys->push_back(node::key(w));
      }
      return "";
    });
    if (e.empty() && sentinels_seen + 1 != ref_.buckets_) e = "bucket sentinels missing from the list";
    return e;
  }

  /// Free nodes (what the next inserts will take), at a quiescent point.
  std::vector<std::uint32_t> free_nodes() const { return pool_.free_nodes(); }

 private:
  static std::uint32_t checked_buckets(const bucket_hint& h) {
    if (h.buckets == 0) throw usage_error("a harris_set needs at least one bucket");
    if (h.lo > h.hi) throw usage_error("bucket hint: lo " + std::to_string(h.lo) + " is above hi " + std::to_string(h.hi));
    if (std::uint64_t(h.buckets) > std::uint64_t(h.hi) - h.lo + 1)
      throw usage_error("bucket hint: " + std::to_string(h.buckets) + " buckets for a range of " +
                        std::to_string(std::uint64_t(h.hi) - h.lo + 1) + " keys");
    if (h.buckets > (1u << 26)) throw usage_error("a harris_set has at most 2^26 buckets");
    return h.buckets;
  }
  detail::node_pool pool_;
  harris_set_ref ref_{};
};

}  // namespace stm::list
