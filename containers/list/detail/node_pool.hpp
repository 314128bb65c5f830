// SPDX-License-Identifier: Apache-2.0
// containers/list/detail/node_pool.hpp - the node pool every list variant of
// this folder shares: packed node words, allocation from a free ring, and
// quiescent-state reclamation of unlinked nodes.
//
// A node is ONE 64-bit word, so one load gives a traversal both the key and
// the successor, and one CAS changes the successor only if the key, the flag
// and the mark are what the caller saw:
//
//   bit 63..32  key (value)          immutable while the node is allocated
//   bit 31..2   next: index of the successor node (30 bits: 2^30 nodes)
//   bit 1       flag: the node is a bucket sentinel (sorted set) or its
//               insertion is pending (indexed sequence); never changes on a
//               live node except as documented by the variant
//   bit 0       mark: the node is logically deleted; its next is frozen
//
// Index 0 is the head sentinel, index 1 the tail sentinel.
//
// Levels: a pool may hold several words per node (a skiplist's tower). They
// are level-major: level l's word of node i is words[l * stride + i], where
// stride = sentinels + capacity; level 0 is what the lists use. A level's
// words form a list of their own: pool_ref::level(l) views them with the same
// load/cas and the shared ring, so Harris' search runs on any level.
//
// Reclamation (quiescent state): a node unlinked during a launch is pushed to
// the retired list by the one thread whose CAS unlinked it; only the host's
// reclaim(), called between launches when no traversal can hold any node,
// moves retired nodes to the free ring. So a node is never handed out while a
// traversal of the same launch can still reach or hold it.
//
// Allocation: one fetch_add on a 64-bit cursor over the free ring; the ring's
// tail only moves in reclaim(). A cursor at or past the tail means the pool is
// exhausted for this launch: the operation reports it as op_status::full.
//
// Synchronization table (every order used on these words):
//   node-word loads           acquire   pairs with the release part of the CAS
//                                       that linked the node (its initialized
//                                       word is seen before its index is used)
//   link CAS (insert)         acq_rel   release: publishes the new node's word
//   mark / unlink CAS         acq_rel   orders the frozen next before unlinking
//   cursor / retired counters relaxed   only indices (platform::claim_index); the slots they index are
//                                       host-written before the launch (ring)
//                                       or read by the host after it (retired)
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "containers/status.hpp"
#include "stm/buffer.hpp"
#include "stm/error.hpp"
#include "stm/platform.hpp"

namespace stm::list {

namespace node {
using word_t = std::uint64_t;
inline constexpr std::uint32_t head = 0, tail = 1;
inline constexpr std::uint32_t max_index = (1u << 30) - 1;
STM_HD inline constexpr word_t make(std::uint32_t key, std::uint32_t next, bool flag = false, bool mark = false) {
  return (word_t(key) << 32) | (word_t(next) << 2) | (word_t(flag) << 1) | word_t(mark);
}
STM_HD inline constexpr std::uint32_t key(word_t w) { return static_cast<std::uint32_t>(w >> 32); }
STM_HD inline constexpr std::uint32_t next(word_t w) { return static_cast<std::uint32_t>(w >> 2) & max_index; }
STM_HD inline constexpr bool flag(word_t w) { return (w >> 1) & 1u; }
STM_HD inline constexpr bool marked(word_t w) { return w & 1u; }
STM_HD inline constexpr word_t with_next(word_t w, std::uint32_t n) {
  return (w & ~(word_t(max_index) << 2)) | (word_t(n) << 2);
}
STM_HD inline constexpr word_t with_mark(word_t w) { return w | 1u; }
STM_HD inline constexpr word_t without_flag(word_t w) { return w & ~word_t(2); }
}  // namespace node

/// A composed insert or remove on a transactional set (tx_set, tx_skiplist;
/// containers/detail/boost.hpp), kept by the caller outside the transaction
/// body, one per call site, and handed to the set's settle(tx, slot) once the
/// transaction has ended. An insert takes a node from the pool the first time
/// it needs one and keeps it across the transaction's attempts (no attempt
/// publishes it: the native insert does, at settle); the operation notes its
/// key and key lock. settle() applies the committed effect to the native set
/// (which is when the key lock becomes clean again) and gives back a node
/// that the effect did not use. One slot per operation that may change the
/// set: a slot holds one change, and a second change on the same slot in the
/// same attempt would replace the first (an answer that changes nothing
/// leaves it as it is).
struct node_slot {
  std::uint32_t node = node::head;  ///< an insert's node; node::head: none
  std::uint32_t attempt = 0;        ///< 1 + the attempt that made the key pending; 0: none
  std::uint32_t key = 0;            ///< the key that attempt changed
  std::uint32_t lock = 0;           ///< its key lock's index
};

namespace detail {

/// Control words of a pool (one 64-bit slot each).
inline constexpr std::uint32_t ctl_cursor = 0;   // next free-ring position to hand out
inline constexpr std::uint32_t ctl_tail = 1;     // free-ring positions below this hold free nodes
inline constexpr std::uint32_t ctl_retired = 2;  // nodes in the retired list
inline constexpr std::uint32_t ctl_slots = 4;

/// Trivially copyable view of a node pool.
struct pool_ref {
  node::word_t* words = nullptr;   // all nodes, sentinels first
  std::uint32_t* ring = nullptr;   // free ring: ring_size node indices
  std::uint32_t* retired = nullptr;
  std::uint64_t* ctl = nullptr;
  std::uint32_t ring_size = 0;     // user nodes
  std::uint32_t first = 2;         // index of the first user node
  std::uint32_t stride = 0;        // nodes per level (first + ring_size)

  /// The same pool with level l's words in place of level 0's.
  STM_HD pool_ref level(std::uint32_t l) const {
    pool_ref p = *this;
    p.words += std::size_t(l) * stride;
    return p;
  }

  STM_HD atomic_ref<node::word_t> at(std::uint32_t i) const { return atomic_ref<node::word_t>(words[i]); }
  STM_HD node::word_t load(std::uint32_t i) const {
    return at(i).load(memory_order_acquire);  // pairs with the release of the CAS that linked node i
  }
  STM_HD bool cas(std::uint32_t i, node::word_t expect, node::word_t desired) const {
    return at(i).compare_exchange_strong(expect, desired, memory_order_acq_rel, memory_order_relaxed);  // see table
  }
  /// A free node, or node::head (0) when the pool is exhausted until reclaim().
  STM_HD std::uint32_t allocate() const {
    const std::uint64_t tail = atomic_ref<std::uint64_t>(ctl[ctl_tail]).load(memory_order_relaxed);  // fixed during a launch
    const std::uint64_t pos = platform::claim_index(ctl[ctl_cursor]);
    if (pos >= tail) return node::head;
    return ring[pos % ring_size];  // written by the host before the launch
  }
  /// Hand node i (unlinked by this thread's CAS, or never published) to the
  /// next reclaim().
  STM_HD void retire(std::uint32_t i) const {
    const std::uint64_t slot = platform::claim_index(ctl[ctl_retired]);
    retired[slot] = i;  // read by the host after the launch (kernel end orders it)
  }
};
static_assert(std::is_trivially_copyable_v<pool_ref>);

/// Owner of a node pool: `sentinels` fixed nodes (head and tail included),
/// then `capacity` user nodes, all free; `levels` words per node (see Levels).
class node_pool {
 public:
  node_pool(backend where, std::uint32_t sentinels, std::uint64_t capacity, std::uint32_t levels = 1)
      : words_(where, checked(sentinels, capacity) * levels), ring_(where, capacity), retired_(where, capacity),
        ctl_(where, ctl_slots) {
    ref_.words = words_.data();
    ref_.ring = ring_.data();
    ref_.retired = retired_.data();
    ref_.ctl = ctl_.data();
    ref_.ring_size = static_cast<std::uint32_t>(capacity);
    ref_.first = sentinels;
    ref_.stride = static_cast<std::uint32_t>(checked(sentinels, capacity));
    levels_ = levels;
    reset();
  }

  pool_ref ref() const { return ref_; }
  std::uint32_t capacity() const { return ref_.ring_size; }
  std::uint32_t sentinels() const { return ref_.first; }
  std::uint32_t levels() const { return levels_; }
  backend where() const { return words_.where(); }

  /// Every user node free; the caller rewrites the sentinel words.
  void reset() {
    std::vector<std::uint32_t> ids(ref_.ring_size);
    for (std::uint32_t i = 0; i < ref_.ring_size; ++i) ids[i] = ref_.first + i;
    if (!ids.empty()) ring_.upload(ids);
    ring_sum_ = ring_checksum(ids);
    ring_in_order_ = true;
    ctl_.upload(std::vector<std::uint64_t>{0, ref_.ring_size, 0, 0});
  }

  /// Right after reset(): mark the first n user nodes (indices first ..
  /// first + n - 1) as taken, for contents the host wrote itself.
  void skip(std::uint64_t n) {
    auto c = ctl_.to_vector();
    c[ctl_cursor] = n;
    ctl_.upload(c);
  }

  /// Quiescent point: no kernel or thread of this pool's list may be running.
  /// Moves every retired node to the free ring. Returns how many.
  std::uint64_t reclaim() {
    auto c = ctl_.to_vector();
    const std::uint64_t n = c[ctl_retired];
    if (c[ctl_cursor] > c[ctl_tail]) c[ctl_cursor] = c[ctl_tail];  // failed allocations overshoot
    if (n > 0) {
      std::vector<std::uint32_t> ids(n);
      retired_.download(ids.data(), n);
      auto ring = ring_.to_vector();
      for (std::uint64_t j = 0; j < n; ++j) ring[(c[ctl_tail] + j) % ref_.ring_size] = ids[j];
      ring_.upload(ring);
      ring_sum_ = ring_checksum(ring);
      ring_in_order_ = false;
    }
    c[ctl_tail] += n;
    c[ctl_retired] = 0;
    ctl_.upload(c);
    return n;
  }

  /// Quiescent point: append nodes the host itself unlinked to the retired
  /// list (the next reclaim() frees them).
  void retire_on_host(const std::vector<std::uint32_t>& ids) {
    if (ids.empty()) return;
    auto c = ctl_.to_vector();
    if (c[ctl_retired] + ids.size() > ref_.ring_size) throw std::logic_error("node_pool: more retirements than nodes");
    auto r = retired_.to_vector();
    for (std::size_t j = 0; j < ids.size(); ++j) r[c[ctl_retired] + j] = ids[j];
    retired_.upload(r);
    c[ctl_retired] += ids.size();
    ctl_.upload(c);
  }

  /// Free nodes, in the order they will be handed out (after reclaim()).
  std::vector<std::uint32_t> free_nodes() const { return free_nodes_in(ring_.to_vector()); }
  std::uint64_t retired_count() const { return ctl_.to_vector()[ctl_retired]; }
  /// Nodes retired since the last reclaim() (quiescent point).
  std::vector<std::uint32_t> retired_nodes() const {
    const std::uint64_t n = std::min<std::uint64_t>(retired_count(), ref_.ring_size);
    std::vector<std::uint32_t> ids(n);
    if (n > 0) retired_.download(ids.data(), n);
    return ids;
  }

  /// Quiescent point: the accounting check every list variant shares. reach[i]
  /// (i < stride) is 1 for each user node reachable from the head at level 0
  /// (users of them); every
  /// user node must be in exactly one place: reachable, free, or retired.
  /// Empty string when it holds, else the first node found in two places (or
  /// the totals when a node is nowhere).
  std::string account(std::vector<char> reach, std::uint64_t users) const {
    const std::size_t total = std::size_t(ref_.first) + ref_.ring_size;
    reach.resize(total, 0);
    // The ring is the host's alone (written before a launch, read by
    // allocate()): if it differs from what the host wrote, a stray device
    // write changed it, and allocations read the changed entries as node
    // indices. Found by a checksum; the position is named while the ring is
    // still in reset()'s order (no reclaim() since).
    const auto ring = ring_.to_vector();
    if (ring_checksum(ring) != ring_sum_) {
      if (ring_in_order_)
        for (std::size_t p = 0; p < ring.size(); ++p)
          if (ring[p] != ref_.first + p)
            return "ring position " + std::to_string(p) + " holds " + std::to_string(ring[p]) + ", the host wrote " +
                   std::to_string(ref_.first + p) + " (a stray write into the free ring)";
      return "the free ring differs from what the host wrote (a stray write into it)";
    }
    const auto free = free_nodes_in(ring);
    const auto retired_ids = retired_nodes();
    const auto fault = [&](const std::string& what) { return what + misplaced(reach, free, retired_ids); };
    for (std::uint32_t f : free) {
      if (f < ref_.first || f >= total) return "free ring holds invalid index " + std::to_string(f);
      if (reach[f] == 1) return fault("free ring holds reachable node " + std::to_string(f));
      if (reach[f] == 2) return fault("free ring holds node " + std::to_string(f) + " twice");
      reach[f] = 2;
    }
    const std::uint64_t retired = retired_count();
    if (retired > ref_.ring_size)
      return "retired list overflow: " + std::to_string(retired) + " retirements for a pool of " +
             std::to_string(ref_.ring_size) + " (a node was retired more than once)";
    for (std::uint32_t r : retired_ids) {
      if (r < ref_.first || r >= total) return fault("retired list holds invalid index " + std::to_string(r));
      if (reach[r] == 1) return fault("retired node " + std::to_string(r) + " is still reachable");
      if (reach[r] == 2) return fault("retired node " + std::to_string(r) + " is also free");
      if (reach[r] == 3) return fault("node " + std::to_string(r) + " was retired twice");
      reach[r] = 3;
    }
    if (users + free.size() + retired != ref_.ring_size)
      return fault("node accounting: " + std::to_string(users) + " in the list + " + std::to_string(free.size()) +
                   " free + " + std::to_string(retired) + " retired != capacity " + std::to_string(ref_.ring_size));
    return "";
  }
  /// Quiescent point, a one-level list of two sentinels (head, tail): its
  /// contents become head -> values[0] -> ... -> tail in the first n user
  /// nodes (index order), every other node free. usage_error when they do not
  /// fit. Returns the words written.
  std::vector<node::word_t> assign_chain(const std::vector<std::uint32_t>& values) {
    if (values.size() > capacity())
      throw usage_error(std::to_string(values.size()) + " values do not fit a list of capacity " +
                        std::to_string(capacity()));
    std::vector<node::word_t> w(2 + std::size_t(capacity()), 0);
    const std::uint32_t n = static_cast<std::uint32_t>(values.size());
    w[node::head] = node::make(0, n ? 2u : node::tail, true);
    for (std::uint32_t i = 0; i < n; ++i) w[2 + i] = node::make(values[i], i + 1 < n ? 3 + i : node::tail);
    w[node::tail] = node::make(0xFFFFFFFFu, node::tail, true);
    upload_words(w);
    reset();
    skip(n);  // reset() put every node in the ring, in index order: the first n are taken
    return w;
  }
  /// Every level's words (levels() x stride, level-major).
  std::vector<node::word_t> words() const { return words_.to_vector(); }
  void upload_words(const std::vector<node::word_t>& w) { words_.upload(w); }

 private:
  /// The whole picture behind an accounting fault (built only on a fault):
  /// every user node's places counted again from scratch. Nodes in more than
  /// one place (reachable, free, retired, each retirement counted), and nodes
  /// in none, with the free-ring position each was taken from while the ring
  /// is in reset()'s order (node first + p at position p) and whether any
  /// word of it was ever written since (all zero: no thread stored into it,
  /// so its position was claimed but the node never used). Shows whether the
  /// positions of the lost nodes and the indices of the reused ones line up
  /// (one claim handed out positions other than the ones it took) or not.
  std::string misplaced(const std::vector<char>& reach_in, const std::vector<std::uint32_t>& free,
                        const std::vector<std::uint32_t>& retired) const {
    const std::size_t total = std::size_t(ref_.first) + ref_.ring_size;
    std::vector<std::uint32_t> places(total, 0);
    for (std::size_t i = 0; i < total && i < reach_in.size(); ++i) places[i] = reach_in[i] == 1 ? 1 : 0;
    for (std::uint32_t f : free)
      if (f < total) ++places[f];
    for (std::uint32_t r : retired)
      if (r < total) ++places[r];
    const auto w = words_.to_vector();
    const std::size_t stride = ref_.stride;
    auto never_written = [&](std::size_t i) {
      for (std::size_t at = i; at < w.size(); at += stride)
        if (w[at] != 0) return false;
      return true;
    };
    std::string twice, none;
    std::size_t n_twice = 0, n_none = 0, n_none_clean = 0;
    for (std::size_t i = ref_.first; i < total; ++i) {
      if (places[i] > 1 && n_twice++ < 8) twice += " " + std::to_string(i) + " x" + std::to_string(places[i]);
      if (places[i] == 0) {
        const bool clean = never_written(i);
        n_none_clean += clean;
        if (n_none++ < 8) {
          none += " " + std::to_string(i);
          if (ring_in_order_) none += " (position " + std::to_string(i - ref_.first) + ")";
          if (clean) none += " never written";
        }
      }
    }
    return " [" + std::to_string(n_twice) + " nodes in several places:" + twice + (n_twice > 8 ? " ..." : "") + "; " +
           std::to_string(n_none) + " in none (" + std::to_string(n_none_clean) + " never written):" + none +
           (n_none > 8 ? " ..." : "") + "]";
  }
  static std::uint64_t ring_checksum(const std::vector<std::uint32_t>& ring) {
    std::uint64_t h = 1469598103934665603ull;  // FNV-1a over the entries
    for (std::uint32_t v : ring) h = (h ^ v) * 1099511628211ull;
    return h;
  }
  /// The free nodes of a downloaded ring, in the order they will be handed out.
  std::vector<std::uint32_t> free_nodes_in(const std::vector<std::uint32_t>& ring) const {
    const auto c = ctl_.to_vector();
    std::vector<std::uint32_t> out;
    for (std::uint64_t p = std::min(c[ctl_cursor], c[ctl_tail]); p < c[ctl_tail]; ++p) out.push_back(ring[p % ref_.ring_size]);
    return out;
  }
  static std::size_t checked(std::uint32_t sentinels, std::uint64_t capacity) {
    if (capacity == 0) throw usage_error("a list needs a pool of at least one node");
    if (capacity + sentinels > node::max_index)
      throw usage_error("a list pool holds at most " + std::to_string(node::max_index - sentinels) + " nodes, asked for " +
                        std::to_string(capacity));
    return static_cast<std::size_t>(capacity + sentinels);
  }
  buffer<node::word_t> words_;
  buffer<std::uint32_t> ring_;
  std::uint64_t ring_sum_ = 0;  // ring_checksum of what the host last wrote into ring_ (account() compares)
  bool ring_in_order_ = true;   // ring_ as reset() wrote it: position p holds first + p
  buffer<std::uint32_t> retired_;
  buffer<std::uint64_t> ctl_;
  pool_ref ref_{};
  std::uint32_t levels_ = 1;
};

/// Quiescent point: the structure check every list of this folder shares.
/// Walks level 0 from the head and reports an index outside [lowest, pool
/// size) or a cycle; calls visit(i, word, counts) for each reachable node i,
/// which returns a fault ("" when none) and clears `counts` for a node that
/// is not a user node of the list (a bucket sentinel); then the node
/// accounting of node_pool::account. "" when everything holds.
template <class Visit>
std::string check_list(const node_pool& pool, std::uint32_t lowest, Visit&& visit) {
  const auto w = pool.words();
  std::vector<char> reach(w.size(), 0);
  std::uint64_t users = 0;
  for (std::uint32_t t = node::next(w[node::head]); t != node::tail; t = node::next(w[t])) {
    if (t >= w.size()) return "next index " + std::to_string(t) + " outside the pool";
    if (t < lowest) return "next index " + std::to_string(t) + " is not a user node";
    if (reach[t]) return "cycle at node " + std::to_string(t);
    reach[t] = 1;
    bool counts = true;
    const std::string e = visit(t, w[t], counts);
    if (!e.empty()) return e;
    users += counts;
  }
  return pool.account(std::move(reach), users);
}

/// Quiescent point: what list `l` holds, in its order, as l.check() collects
/// it; logic_error naming `what` when check() finds the structure unsound.
/// (Every list and skiplist's contents().)
template <class List>
std::vector<std::uint32_t> checked_contents(const List& l, const char* what) {
  std::vector<std::uint32_t> out;
  const std::string e = l.check(&out);
  if (!e.empty()) throw std::logic_error(std::string(what) + ": " + e);
  return out;
}

}  // namespace detail
}  // namespace stm::list
