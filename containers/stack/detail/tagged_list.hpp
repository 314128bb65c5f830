// SPDX-License-Identifier: Apache-2.0
// containers/stack/detail/tagged_list.hpp - the CAS-linked lists of the
// Treiber stack (Treiber, IBM RJ 5118, 1986) as Azad, Sehgal and Patel put it
// on a GPU: a node pool addressed by index, and list heads holding a 64-bit
// tagged index.
//
// Head word: low 32 bits = node index + 1 (0 = empty list), high 32 bits = tag.
// Every successful CAS on a head increments its tag, so a head value never
// recurs while a thread holds it between its load and its CAS (unless 2^32
// other updates of that head happen in between): that is what defeats ABA when
// a node is popped, recycled through the free list and pushed again. A node
// only changes (value, next) while it is owned by one thread (between the CAS
// that took it off a list and the CAS that links it into one), so an unchanged
// head proves the whole chain read below it is unchanged too.
//
// Synchronization table
//   try_push_chain: node stores (relaxed) -> CAS head (release)   -- pairs with --
//   try_pop_chain:  head value loaded with acquire (by the caller, or by the
//                   previous failed try) -> node loads (relaxed) -> CAS head
//                   (acquire on success and failure: the new head's chain is
//                   read next).
//   A CAS is a read-modify-write, so it continues the release sequence of the
//   pushes below it: an acquire of the head sees every node of the chain.
//   Reads of a popped node happen before it is pushed onto the free list
//   (release), so the next owner's writes (after its acquire) cannot be seen by
//   them. A caller that waits between tries reloads the head with load_head
//   (acquire) rather than reuse the value of the failed try.
#pragma once

#include <cstdint>

#include "containers/stack/detail/backoff.hpp"
#include "stm/platform.hpp"

namespace stm::stack::detail {

struct pool_node {
  std::uint64_t value;  // the value's bits (4-byte values in the low half)
  std::uint32_t next;   // index + 1 of the node below, 0 = none
  std::uint32_t unused;
};
static_assert(sizeof(pool_node) == 16);

STM_HD inline std::uint64_t pack_head(std::uint32_t index1, std::uint32_t tag) {
  return (std::uint64_t(tag) << 32) | index1;
}
STM_HD inline std::uint32_t head_index(std::uint64_t w) { return static_cast<std::uint32_t>(w); }
STM_HD inline std::uint32_t head_tag(std::uint64_t w) { return static_cast<std::uint32_t>(w >> 32); }

/// Head value to start tries from: acquire, so that the chain below it can be
/// read (pairs with try_push_chain's release CAS).
STM_HD inline std::uint64_t load_head(std::uint64_t* head) {
  return atomic_ref<std::uint64_t>(*head).load(memory_order_acquire);
}

/// One try to link the chain first..last (node indices, already linked
/// through `next` from first down to last) on top of the head value `old`.
/// True when linked; false when the CAS lost, with the current head in `old`.
STM_HD inline bool try_push_chain(std::uint64_t* head, pool_node* nodes, std::uint32_t first, std::uint32_t last,
                                  std::uint64_t& old) {
  atomic_ref<std::uint32_t>(nodes[last].next).store(head_index(old), memory_order_relaxed);
  // release: the chain's node stores before it is reachable; pairs with the acquire of load_head / try_pop_chain
  return atomic_ref<std::uint64_t>(*head).compare_exchange_strong(old, pack_head(first + 1, head_tag(old) + 1),
                                                                 memory_order_release, memory_order_relaxed);
}

/// Link first..last on top of the list at *head, retrying with back-off.
STM_HD inline void push_chain(std::uint64_t* head, pool_node* nodes, std::uint32_t first, std::uint32_t last,
                              backoff& bo) {
  std::uint64_t old = atomic_ref<std::uint64_t>(*head).load(memory_order_relaxed);
  while (!try_push_chain(head, nodes, first, last, old)) bo.wait();
}

/// One try to take up to `max` (1..32) nodes off the top of the list whose
/// head value is `old` (loaded with acquire: load_head or a failed try). Fills
/// idx[] (top first) and, when vals is not null, vals[] with their value bits
/// as they were when taken; the taken nodes stay linked in that order.
/// True when done, with `n` nodes taken (0: the list was empty at `old`);
/// false when the CAS lost, with the current head in `old` (acquire).
STM_HD inline bool try_pop_chain(std::uint64_t* head, pool_node* nodes, std::uint32_t max, std::uint32_t* idx,
                                 std::uint64_t* vals, std::uint64_t& old, std::uint32_t& n) {
  std::uint32_t cur = head_index(old), below = 0;
  n = 0;
  if (cur == 0) return true;
  for (;;) {
    idx[n] = cur - 1;
    if (vals) vals[n] = atomic_ref<std::uint64_t>(nodes[cur - 1].value).load(memory_order_relaxed);
    below = atomic_ref<std::uint32_t>(nodes[cur - 1].next).load(memory_order_relaxed);
    ++n;
    if (n == max || below == 0) break;
    cur = below;
  }
  // acquire on failure: the new head's chain is read next (pairs with try_push_chain's release)
  if (atomic_ref<std::uint64_t>(*head).compare_exchange_strong(old, pack_head(below, head_tag(old) + 1),
                                                              memory_order_acquire, memory_order_acquire))
    return true;
  n = 0;
  return false;
}

/// Take up to `max` nodes off the list at *head, retrying with back-off;
/// returns how many were taken (0: the list was empty).
STM_HD inline std::uint32_t pop_chain(std::uint64_t* head, pool_node* nodes, std::uint32_t max, std::uint32_t* idx,
                                      std::uint64_t* vals, backoff& bo) {
  std::uint64_t old = load_head(head);
  std::uint32_t n = 0;
  while (!try_pop_chain(head, nodes, max, idx, vals, old, n)) {
    bo.wait();
    old = load_head(head);
  }
  return n;
}

}  // namespace stm::stack::detail
