// SPDX-License-Identifier: Apache-2.0
// containers/list/detail/harris_search.hpp - Harris' search (DISC 2001,
// Figure 3), written once over the packed node words of node_pool.hpp and a
// stop predicate, so that the sorted set and the positional sequence share it.
//
// search(pool, start, stop) walks from `start` (a sentinel that is never
// marked) and returns two nodes that were adjacent at one moment during the
// call: `left`, unmarked, and `right`, the first unmarked node after `start`
// for which stop(index, word) held (or the tail), with left.next == right.
// Marked nodes between them are unlinked with one CAS and retired by the
// thread whose CAS succeeded (the only one that can: a marked node's next is
// frozen and left is unmarked, so each chain is unlinked exactly once per
// launch; nodes are reused only after the quiescent reclaim()).
//
// stop is called for EVERY visited node after start, marked or not, in list
// order, so it may be stateful (the sequence's clean-up search uses that).
//
// unlinked(pool, i) is called for each node the thread's CAS unlinked (the
// default retires it). A skiplist passes a hook that retires only at level 0,
// where a node is unlinked for good, and starts the searches of its lower
// levels at nodes that may be marked: when start's word is marked, search
// returns right == node::head (never a real right) and the caller restarts
// from a node that cannot be marked. Lists start at sentinels, which never are.
#pragma once

#include <cstdint>

#include "containers/list/detail/node_pool.hpp"

namespace stm::list::detail {

struct window {
  std::uint32_t left;
  node::word_t left_word;   // left's word, next == right, unmarked
  std::uint32_t right;      // node::tail when no node stopped the walk
  node::word_t right_word;  // right's word, unmarked (unused for the tail)
};

/// Default unlink hook: the unlinking thread retires the node.
struct retire_unlinked {
  STM_HD void operator()(const pool_ref& pool, std::uint32_t i) const { pool.retire(i); }
};

template <class Stop, class Unlinked = retire_unlinked>
STM_HD window search(const pool_ref& pool, std::uint32_t start, Stop stop, Unlinked unlinked = {}) {
  for (;;) {  // search_again
    Stop s = stop;  // a fresh copy of a stateful predicate per attempt
    std::uint32_t left = start, t = start;
    node::word_t left_word = pool.load(start), t_word = left_word;
    if (node::marked(left_word)) return {start, left_word, node::head, 0};  // start deleted: caller restarts
    // 1: find left and right
    for (;;) {
      if (!node::marked(t_word)) {
        left = t;
        left_word = t_word;
      }
      t = node::next(t_word);
      if (t == node::tail) break;
      t_word = pool.load(t);
      const bool stops = s(t, t_word);
      if (!node::marked(t_word) && stops) break;
    }
    const std::uint32_t right = t;
    // 2: already adjacent
    if (node::next(left_word) == right) {
      if (right == node::tail) return {left, left_word, right, 0};
      const node::word_t rw = pool.load(right);
      if (node::marked(rw)) continue;  // G1
      return {left, left_word, right, rw};
    }
    // 3: unlink the marked chain left.next .. right (exclusive)
    const node::word_t new_left = node::with_next(left_word, right);
    if (pool.cas(left, left_word, new_left)) {
      for (std::uint32_t c = node::next(left_word); c != right;) {
        const node::word_t cw = pool.load(c);  // marked: next frozen
        unlinked(pool, c);
        c = node::next(cw);
      }
      if (right == node::tail) return {left, new_left, right, 0};
      const node::word_t rw = pool.load(right);
      if (node::marked(rw)) continue;  // G2
      return {left, new_left, right, rw};
    }
  }
}

}  // namespace stm::list::detail
