// SPDX-License-Identifier: Apache-2.0
// containers/list/harris_seq.hpp - stm::list::harris_seq: the positional list
// of Liu, Pak and Guerrero ("A Lock-Free Concurrent Linked List Library on
// GPU": insert-after-value, remove-value) as a lock-free Harris list.
//
//   stm::list::harris_seq seq(stm::backend::gpu, capacity);
//   seq.assign({5, 4, 3, 2, 1});               // host, quiescent: the initial sequence
//   auto s = seq.ref();
//   s.insert_after(tid, 2, 6);                 // device: 6 right after the node holding 2
//   s.remove(tid, 1);  s.contains(tid, 3);     // (tid: the caller's thread id; unused here)
//   seq.reclaim();  seq.contents();            // host, between launches
//
// Meaning (sequential specification; every operation is linearizable):
//  - The sequence holds distinct 32-bit values in an order set by the
//    operations, not by the values.
//  - insert_after(t, n): when t is present, n is placed immediately after t
//    (ok); when t is absent, nothing changes (not_found); full when
//    no node is free. PRECONDITION: n is not present (this variant does not
//    pay a second walk to check it; indexed variants and the replay of its data files
//    do). Linearization point: the CAS that links n behind t's unmarked word.
//  - remove(v): marks v's node (linearization point) and unlinks it before
//    returning; not_found when v is absent.
//  - contains(v): true when v is present.
// Progress: lock-free; each operation walks from the head (O(length)).
// Reclamation as harris_set: unlinked nodes are reused after reclaim().
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "containers/list/detail/harris_search.hpp"
#include "containers/list/detail/node_pool.hpp"

namespace stm::list {

class harris_seq_ref {
 public:
  STM_HD op_status insert_after(std::uint32_t /*tid*/, std::uint32_t target, std::uint32_t value) const {
    std::uint32_t fresh = node::head;
    for (;;) {
      const detail::window w = detail::search(pool_, node::head, equal_to{target});
      if (w.right == node::tail) {
        if (fresh != node::head) pool_.retire(fresh);  // never published
        return op_status::not_found;
      }
      if (fresh == node::head) {
        fresh = pool_.allocate();
        if (fresh == node::head) return op_status::full;
      }
      node::word_t tw = w.right_word;
      while (!node::marked(tw)) {
        pool_.at(fresh).store(node::make(value, node::next(tw)), memory_order_relaxed);  // private until linked
        if (pool_.cas(w.right, tw, node::with_next(tw, fresh))) return op_status::ok;  // release: publishes fresh
        tw = pool_.load(w.right);  // another insert after target, or target marked
      }
    }
  }

  STM_HD op_status remove(std::uint32_t /*tid*/, std::uint32_t value) const {
    for (;;) {
      const detail::window w = detail::search(pool_, node::head, equal_to{value});
      if (w.right == node::tail) return op_status::not_found;
      if (!pool_.cas(w.right, w.right_word, node::with_mark(w.right_word))) continue;  // linearization point
      if (pool_.cas(w.left, w.left_word, node::with_next(w.left_word, node::next(w.right_word))))
        pool_.retire(w.right);
      else
        detail::search(pool_, node::head, past{w.right, false});  // walks past our node: unlinks it
      return op_status::ok;
    }
  }

  /// ok when value is present, else not_found.
  STM_HD op_status contains(std::uint32_t /*tid*/, std::uint32_t value) const {
    for (std::uint32_t t = node::next(pool_.load(node::head)); t != node::tail;) {
      const node::word_t w = pool_.load(t);
      if (node::key(w) == value && !node::marked(w)) return op_status::ok;
      t = node::next(w);
    }
    return op_status::not_found;
  }

 private:
  friend class harris_seq;
  struct equal_to {
    std::uint32_t v;
    STM_HD bool operator()(std::uint32_t, node::word_t w) const { return node::key(w) == v; }
  };
  // Stops at the first unmarked node after `victim`: the search then unlinks
  // the marked chain that holds victim (or reaches the tail when it is gone).
  struct past {
    std::uint32_t victim;
    bool seen;
    STM_HD bool operator()(std::uint32_t i, node::word_t) {
      const bool stop = seen;
      if (i == victim) seen = true;
      return stop;
    }
  };
  detail::pool_ref pool_{};
};
static_assert(std::is_trivially_copyable_v<harris_seq_ref>);

class harris_seq {
 public:
  harris_seq(backend where, std::uint64_t capacity) : pool_(where, 2, capacity) {
    ref_.pool_ = pool_.ref();
    assign({});
  }
  harris_seq_ref ref() const { return ref_; }
  std::uint64_t capacity() const { return pool_.capacity(); }
  std::uint64_t reclaim() { return pool_.reclaim(); }

  /// Quiescent point: replace the contents by `values` (distinct, at most
  /// capacity; usage_error otherwise).
  void assign(const std::vector<std::uint32_t>& values) { pool_.assign_chain(values); }

  /// Quiescent point: the sequence; logic_error when check() finds it unsound.
  std::vector<std::uint32_t> contents() const { return detail::checked_contents(*this, "harris_seq"); }

  /// As harris_set::check, without the order check (the order is positional)
  /// and with a check that values are distinct.
  std::string check(std::vector<std::uint32_t>* values = nullptr) const {
    return detail::check_list(pool_, pool_.sentinels(), [&](std::uint32_t t, node::word_t w, bool&) -> std::string {
      if (node::marked(w)) return "marked node " + std::to_string(t) + " (value " + std::to_string(node::key(w)) + ") reachable";
      if (node::flag(w)) return "node " + std::to_string(t) + " still flagged";
      if (values) values->push_back(node::key(w));
      return "";
    });
  }

 private:
  detail::node_pool pool_;
  harris_seq_ref ref_{};
};

}  // namespace stm::list
