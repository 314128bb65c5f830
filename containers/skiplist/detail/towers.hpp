// SPDX-License-Identifier: Apache-2.0
// containers/skiplist/detail/towers.hpp - the node storage both skiplist
// variants share: a node pool (containers/list/detail/node_pool.hpp) with one
// packed word per level per node, each node's tower height, and the host-side
// structure check.
//
// Words. Level l's word of node i is words[l * stride + i] (level-major, so a
// level is a list of its own and Harris' search runs on it through
// pool_ref::level(l)). Every word of a node repeats the node's key, so one
// load gives a walk both the key of the node it reached and its successor at
// that level (bit layout in node_pool.hpp; the flag bit marks the head and
// tail sentinels, the mark bit deletion at that level). Index 0 is the head,
// index 1 the tail, at every level; no key is reserved (the walks test the
// tail by index, never start at the tail, and never compare the head's key).
//
// Heights. A node's tower has tower_height(key) levels: 1 + the number of
// leading zero bit pairs of a 32-bit mix of the key, capped at the skiplist's
// levels, i.e. probability 1/4 per extra level, as Pugh recommends ("Skip
// lists: a probabilistic alternative to balanced trees", CACM 1990). Keyed
// rather than drawn: no generator state per thread, and a key always gets the
// same tower. With p = 1/4 the walk at 5 levels over 10,000 keys passes about
// 40 nodes (p = 1/2 would leave some 600 nodes on the top level).
//
// Values. Each node has a 32-bit value word beside its key (value[i]), for
// the skiplist used as a map (lockfree_skiplist::get / put, tx_skiplist's
// map operations): written privately before the node is published, then
// only by atomic stores (an assignment); a set leaves it 0.
//
// Reclamation is the pool's: nodes unlinked during a launch are reused only
// after reclaim() at a quiescent point (see the variants for who retires).
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "containers/list/detail/node_pool.hpp"
#include "stm/buffer.hpp"
#include "stm/error.hpp"
#include "stm/platform.hpp"

namespace stm::skiplist {

namespace node = list::node;
using list::node_slot;

/// Most levels a skiplist may have (the height mix has 16 bit pairs).
inline constexpr std::uint32_t max_levels = 16;
/// Levels of a skiplist unless asked otherwise (the PR-STM paper's skiplist).
inline constexpr std::uint32_t default_levels = 5;

/// Height of key's tower in a skiplist of `levels` levels (1 .. levels).
STM_HD inline std::uint32_t tower_height(std::uint32_t key, std::uint32_t levels) {
  std::uint32_t x = key ^ 0x5bd1e995u;  // murmur3's finalizer (fmix32)
  x ^= x >> 16;
  x *= 0x85EBCA6Bu;
  x ^= x >> 13;
  x *= 0xC2B2AE35u;
  x ^= x >> 16;
  std::uint32_t h = 1;
  while (h < levels && (x & 3u) == 0) {
    ++h;
    x >>= 2;
  }
  return h;
}

namespace detail {

using list::detail::pool_ref;

/// Trivially copyable view of the towers.
struct towers_ref {
  pool_ref pool{};                // level 0 view; level(l) for the others
  std::uint32_t* height = nullptr;  // per node, written before the node is published
  std::uint32_t* value = nullptr;   // per node: the map's value (see Values)
  std::uint32_t levels = 1;

  STM_HD pool_ref level(std::uint32_t l) const { return pool.level(l); }
  STM_HD node::word_t* word(std::uint32_t l, std::uint32_t i) const {
    return pool.words + std::size_t(l) * pool.stride + i;
  }
  STM_HD atomic_ref<std::uint32_t> value_at(std::uint32_t i) const { return atomic_ref<std::uint32_t>(value[i]); }
};
static_assert(std::is_trivially_copyable_v<towers_ref>);

/// Host owner of the towers (move-only through its buffers).
class towers {
 public:
  towers(backend where, std::uint64_t capacity, std::uint32_t levels)
      : pool_(where, 2, capacity, checked_levels(levels)),
        height_(where, std::size_t(capacity) + 2),
        value_(where, std::size_t(capacity) + 2) {
    ref_.pool = pool_.ref();
    ref_.height = height_.data();
    ref_.value = value_.data();
    ref_.levels = levels;
    clear();
  }

  towers_ref ref() const { return ref_; }
  std::uint64_t capacity() const { return pool_.capacity(); }
  std::uint32_t levels() const { return ref_.levels; }
  /// Quiescent point: the retired nodes become free, their values 0 again
  /// (a set insert of a reused node leaves its value as it finds it).
  std::uint64_t reclaim() {
    const std::vector<std::uint32_t> retired = pool_.retired_nodes();
    if (!retired.empty()) {
      std::vector<std::uint32_t> v = value_.to_vector();
      for (std::uint32_t i : retired) v[i] = 0;
      value_.upload(v);
    }
    return pool_.reclaim();
  }
  std::vector<std::uint32_t> free_nodes() const { return pool_.free_nodes(); }
  /// Quiescent point: (key, value) of every node at level 0, in key order
  /// (after a sound check()).
  std::vector<std::pair<std::uint32_t, std::uint32_t>> entries() const {
    const auto w = pool_.words();
    const auto v = value_.to_vector();
    std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
    for (std::uint32_t t = node::next(w[node::head]); t != node::tail && t < v.size(); t = node::next(w[t]))
      out.emplace_back(node::key(w[t]), v[t]);
    return out;
  }

  /// Quiescent point: every level empty (head -> tail), every node free.
  void clear() {
    const std::size_t n = ref_.pool.stride;
    std::vector<node::word_t> w(n * ref_.levels, 0);
    for (std::uint32_t l = 0; l < ref_.levels; ++l) {
      w[l * n + node::head] = node::make(0, node::tail, true);
      w[l * n + node::tail] = node::make(0xFFFFFFFFu, node::tail, true);
    }
    pool_.upload_words(w);
    height_.upload(std::vector<std::uint32_t>(n, 0));
    value_.upload(std::vector<std::uint32_t>(n, 0));
    pool_.reset();
  }

  /// Quiescent point: the contents become `keys` (each with values[i], or 0
  /// when values is empty), built level by level in linear time after a sort
  /// (skipped when the keys come sorted): the first n user nodes in key
  /// order, each linked at exactly the levels of its tower; every other node
  /// free. usage_error when they do not fit, a key repeats, or values has
  /// another length.
  void assign(std::vector<std::uint32_t> keys, std::vector<std::uint32_t> values = {}) {
    if (keys.size() > capacity())
      throw usage_error(std::to_string(keys.size()) + " keys do not fit a skiplist of capacity " +
                        std::to_string(capacity()));
    if (!values.empty() && values.size() != keys.size())
      throw usage_error("skiplist assign: " + std::to_string(values.size()) + " values for " + std::to_string(keys.size()) + " keys");
    if (!std::is_sorted(keys.begin(), keys.end())) {
      if (values.empty()) {
        std::sort(keys.begin(), keys.end());
      } else {
        std::vector<std::pair<std::uint32_t, std::uint32_t>> kv(keys.size());
        for (std::size_t i = 0; i < keys.size(); ++i) kv[i] = {keys[i], values[i]};
        std::sort(kv.begin(), kv.end());
        for (std::size_t i = 0; i < keys.size(); ++i) {
          keys[i] = kv[i].first;
          values[i] = kv[i].second;
        }
      }
    }
    if (std::adjacent_find(keys.begin(), keys.end()) != keys.end()) throw usage_error("skiplist assign: a key appears twice");
    const std::size_t n = ref_.pool.stride;
    std::vector<node::word_t> w(n * ref_.levels, 0);
    std::vector<std::uint32_t> height(n, 0), value(n, 0);
    std::vector<std::uint32_t> last(ref_.levels, node::head);  // each level's last node so far
    for (std::uint32_t l = 0; l < ref_.levels; ++l) w[l * n + node::head] = node::make(0, node::tail, true);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const auto id = static_cast<std::uint32_t>(ref_.pool.first + i);
      const std::uint32_t h = tower_height(keys[i], ref_.levels);
      height[id] = h;
      value[id] = values.empty() ? 0u : values[i];
      for (std::uint32_t l = 0; l < h; ++l) {
        node::word_t& before = w[l * n + last[l]];
        before = node::with_next(before, id);
        w[l * n + id] = node::make(keys[i], node::tail);
        last[l] = id;
      }
    }
    for (std::uint32_t l = 0; l < ref_.levels; ++l) w[l * n + node::tail] = node::make(0xFFFFFFFFu, node::tail, true);
    pool_.upload_words(w);
    height_.upload(height);
    value_.upload(value);
    pool_.reset();
    pool_.skip(keys.size());  // reset() put every node in the ring, in index order: the first n are taken
  }

  /// Quiescent point: check every level. Empty string when sound, else the
  /// first fault: an index outside the pool, a cycle, a marked node reachable
  /// at any level, keys not strictly increasing, a level that is not a
  /// sublist of the level below, a node whose words disagree on its key, a
  /// reachable node not linked at exactly the levels of its tower, or a node
  /// lost or in two places (level 0 + free + retired must be the capacity).
  std::string check(std::vector<std::uint32_t>* keys = nullptr) const {
    const auto w = pool_.words();
    const auto height = height_.to_vector();
    const std::size_t n = ref_.pool.stride;
    std::vector<char> reach(n, 0);
    std::vector<std::uint32_t> linked(n, 0);  // levels each node was found on
    std::uint64_t users = 0;
    for (std::uint32_t l = 0; l < ref_.levels; ++l) {
      const node::word_t* lw = w.data() + l * n;
      if (!node::flag(lw[node::head]) || node::marked(lw[node::head])) return "head of level " + std::to_string(l) + " damaged";
      std::vector<char> seen(n, 0);
      std::uint64_t last = 0;
      bool first = true;
      for (std::uint32_t t = node::next(lw[node::head]); t != node::tail; t = node::next(lw[t])) {
        // Built only for a fault: one string per node made a check of a
        // million-key skiplist take seconds.
        const auto at = [&] { return " at level " + std::to_string(l) + ", node " + std::to_string(t); };
        if (t < 2 || t >= n) return "next index " + std::to_string(t) + " outside the pool" + at();
        if (seen[t]) return "cycle" + at();
        seen[t] = 1;
        if (node::marked(lw[t])) return "marked node reachable" + at();
        if (node::flag(lw[t])) return "user node flagged as a sentinel" + at();
        const std::uint32_t k = node::key(lw[t]);
        if (!first && k <= last) return "keys not strictly increasing" + at();
        first = false;
        last = k;
        if (l == 0) {
          reach[t] = 1;
          ++users;
          if (keys) keys->push_back(k);
        } else {
          if (linked[t] != l) return "level " + std::to_string(l) + " is not a sublist of the level below" + at();
          if (node::key(w[t]) != k) return "the node's words disagree on its key" + at();
        }
        ++linked[t];
      }
    }
    for (std::size_t i = 2; i < n; ++i)
      if (reach[i] && linked[i] != height[i])
        return "node " + std::to_string(i) + " (key " + std::to_string(node::key(w[i])) + ") is linked at " +
               std::to_string(linked[i]) + " levels, its tower has " + std::to_string(height[i]);
    return pool_.account(std::move(reach), users);
  }

 private:
  static std::uint32_t checked_levels(std::uint32_t levels) {
    if (levels < 1 || levels > max_levels)
      throw usage_error("a skiplist has 1 to " + std::to_string(max_levels) + " levels, asked for " + std::to_string(levels));
    return levels;
  }
  list::detail::node_pool pool_;
  buffer<std::uint32_t> height_;
  buffer<std::uint32_t> value_;
  towers_ref ref_{};
};

}  // namespace detail
}  // namespace stm::skiplist
