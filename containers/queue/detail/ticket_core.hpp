// SPDX-License-Identifier: Apache-2.0
// containers/queue/detail/ticket_core.hpp - the mechanics of stm::queue::ticket_queue
// (Scogland & Feng, ICPE 2015, section 5 and Figure 4).
//
// State: two 32-bit ticket counters (head, tail), a closed flag, and per slot
// an item word and an id. Ticket t names slot t mod C (C = capacity, a power
// of two) and lap L = t / C. A slot's id says whose turn it is:
//     id == 2L      the enqueuer holding a ticket of lap L may write it,
//     id == 2L + 1  the dequeuer holding a ticket of lap L may read it,
// and each side hands the slot on by storing id + 1 (mod MAX_ID).
//
// Rollover (section 5.1). GET_ID(t) = (t / C) * 2 and MAX_ID = 2 * 2^32 / C,
// so when a counter wraps from 2^32 - 1 to 0 the id wraps from MAX_ID - 1 to 0
// at the same moment: the ring stays consistent forever. C >= 2 keeps every
// id in 32 bits. Two callers could only share a (slot, id) pair if their
// tickets were 2^32 apart; tickets in use span at most C + callers, which the
// owner bounds (capacity <= 2^30, callers < 2^31 - C).
//
// Status (section 5.4). head and tail cannot be compared directly when one has
// wrapped and the other not; their distance is taken modulo 2^32 and read as a
// signed 32-bit number, which is exact while |tail - head| < 2^31 (the bound
// above).
//
// Synchronization table (every ordering the algorithm relies on):
//   tail/head fetch_add     relaxed: only hands out tickets; the slot's id is
//                           what orders data. Program order of one thread's
//                           fetch_adds on one counter is kept by coherence
//                           (per-producer FIFO).
//   ids[s] load  (acquire)  pairs with (E) or (D) of the caller who handed the
//                           slot over: an enqueuer then overwrites an item the
//                           dequeuer has finished reading; a dequeuer reads
//                           the enqueuer's item.
//   (E) ids[s] store release after the item store (enqueue).
//   (D) ids[s] store release after the item load (dequeue).
//   closed                  store and loads relaxed: a flag that only ends
//                           waits; no data is published through it.
#pragma once

#include <cstdint>

#include "containers/status.hpp"
#include "stm/backoff.hpp"
#include "stm/platform.hpp"

namespace stm::queue::detail {

/// Word offsets of the counters inside the counter block: 128 bytes apart,
/// so that the two hot counters never share a cache line.
inline constexpr std::uint32_t ticket_head_at = 0;
inline constexpr std::uint32_t ticket_tail_at = 32;
inline constexpr std::uint32_t ticket_closed_at = 64;
inline constexpr std::uint32_t ticket_counter_words = 96;

/// Head and tail read at one instant (or as close as the traffic allows).
struct ticket_snapshot {
  std::uint32_t head = 0;
  std::uint32_t tail = 0;
  bool exact = false;  ///< head did not move while tail was read
  /// tail - head across rollover (section 5.4): > C means enqueuers wait, < 0 dequeuers.
  STM_HD std::int64_t distance() const { return static_cast<std::int32_t>(tail - head); }
};

template <class W>
struct ticket_core {
  std::uint32_t* counters = nullptr;
  std::uint32_t* ids = nullptr;
  W* items = nullptr;
  std::uint32_t mask = 0;     // capacity - 1
  std::uint32_t shift = 0;    // log2(capacity)
  std::uint32_t id_mask = 0;  // MAX_ID - 1
  std::uint32_t backoff_min_ns = 0, backoff_max_ns = 0;

  STM_HD atomic_ref<std::uint32_t> head() const { return atomic_ref<std::uint32_t>(counters[ticket_head_at]); }
  STM_HD atomic_ref<std::uint32_t> tail() const { return atomic_ref<std::uint32_t>(counters[ticket_tail_at]); }
  STM_HD atomic_ref<std::uint32_t> closed_flag() const { return atomic_ref<std::uint32_t>(counters[ticket_closed_at]); }
  STM_HD atomic_ref<std::uint32_t> id(std::uint32_t slot) const { return atomic_ref<std::uint32_t>(ids[slot]); }
  STM_HD atomic_ref<W> item(std::uint32_t slot) const { return atomic_ref<W>(items[slot]); }

  /// GET_ID: the id an enqueuer of ticket t waits for (its dequeuer waits for id + 1).
  STM_HD std::uint32_t get_id(std::uint32_t t) const { return (t >> shift) << 1; }
  STM_HD std::uint32_t capacity() const { return mask + 1; }
  STM_HD bool is_closed() const { return closed_flag().load(memory_order_relaxed) != 0; }

  // --- the two halves of every operation: take a ticket, then finish it -----
  // (platform::claim_index_warp: a fetch_add whose result is the lane's own,
  // one atomic per group of converged lanes: the tickets are the queue's two
  // hot words, and its callers take them at the top of an operation.)
  STM_HD std::uint32_t take_enqueue_ticket() const { return platform::claim_index_warp(counters[ticket_tail_at]); }
  STM_HD std::uint32_t take_dequeue_ticket() const { return platform::claim_index_warp(counters[ticket_head_at]); }

  /// Wait until ids[slot] == want, or the queue is closed (false).
  STM_HD bool wait_turn(std::uint32_t slot, std::uint32_t want) const {
    exp_backoff b(backoff_min_ns, backoff_max_ns);
    while (id(slot).load(memory_order_acquire) != want) {  // pairs with (E)/(D) of the previous holder
      if (is_closed()) return false;
      b.wait();
    }
    return true;
  }

  /// Blocking enqueue of ticket t (Figure 4b, lines 6-14).
  STM_HD op_status finish_enqueue(std::uint32_t t, W w) const {
    const std::uint32_t slot = t & mask, want = get_id(t);
    if (!wait_turn(slot, want)) return op_status::closed;
    item(slot).store(w, memory_order_relaxed);
    id(slot).store((want + 1u) & id_mask, memory_order_release);  // (E) item before id; pairs with the dequeuer's acquire
    return op_status::ok;
  }

  /// Blocking dequeue of ticket t.
  STM_HD op_status finish_dequeue(std::uint32_t t, W& out) const {
    const std::uint32_t slot = t & mask, want = (get_id(t) + 1u) & id_mask;
    if (!wait_turn(slot, want)) return op_status::closed;
    out = item(slot).load(memory_order_relaxed);
    id(slot).store((want + 1u) & id_mask, memory_order_release);  // (D) item read before id; pairs with the next enqueuer's acquire
    return op_status::ok;
  }

  STM_HD op_status enqueue(W w) const {
    if (is_closed()) return op_status::closed;
    return finish_enqueue(take_enqueue_ticket(), w);
  }

  STM_HD op_status dequeue(W& out) const {
    if (is_closed()) return op_status::closed;
    return finish_dequeue(take_dequeue_ticket(), out);
  }

  /// Non-waiting enqueue (Figure 4c): take ticket t only if its slot is ready.
  STM_HD op_status enqueue_nb(W w) const {
    if (is_closed()) return op_status::closed;
    std::uint32_t t = tail().load(memory_order_relaxed);
    const std::uint32_t slot = t & mask, want = get_id(t);
    if (id(slot).load(memory_order_acquire) != want) {  // pairs with (D): the slot's last item was read
      const std::uint32_t h = head().load(memory_order_relaxed);
      return static_cast<std::int32_t>(t - h) >= static_cast<std::int64_t>(capacity()) ? op_status::full
                                                                                         : op_status::busy;
    }
    if (!tail().compare_exchange_strong(t, t + 1u, memory_order_relaxed)) return op_status::busy;
    item(slot).store(w, memory_order_relaxed);
    id(slot).store((want + 1u) & id_mask, memory_order_release);  // (E)
    return op_status::ok;
  }

  /// Non-waiting dequeue: take ticket t only if its item is there.
  STM_HD op_status dequeue_nb(W& out) const {
    if (is_closed()) return op_status::closed;
    std::uint32_t t = head().load(memory_order_relaxed);
    const std::uint32_t slot = t & mask, want = (get_id(t) + 1u) & id_mask;
    if (id(slot).load(memory_order_acquire) != want) {  // pairs with (E): the item is written
      const std::uint32_t tl = tail().load(memory_order_relaxed);
      return static_cast<std::int32_t>(tl - t) <= 0 ? op_status::empty : op_status::busy;
    }
    if (!head().compare_exchange_strong(t, t + 1u, memory_order_relaxed)) return op_status::busy;
    out = item(slot).load(memory_order_relaxed);
    id(slot).store((want + 1u) & id_mask, memory_order_release);  // (D)
    return op_status::ok;
  }

  /// Head and tail at one instant: tail is read between two equal reads of
  /// head (double collect). Gives up after `tries` (exact = false: then head
  /// is the latest read and may be newer than tail's instant).
  STM_HD ticket_snapshot snapshot(std::uint32_t tries = 64) const {
    ticket_snapshot s;
    for (std::uint32_t k = 0; k < tries; ++k) {
      const std::uint32_t h1 = head().load(memory_order_acquire);  // orders the tail read after it
      s.tail = tail().load(memory_order_acquire);                  // orders the second head read after it
      s.head = head().load(memory_order_relaxed);
      if (s.head == h1) {
        s.exact = true;
        return s;
      }
    }
    return s;
  }

  /// Close: every waiting call leaves with closed, every later call fails.
  STM_HD void close() const { closed_flag().store(1u, memory_order_relaxed); }  // a flag only: publishes no data
};

}  // namespace stm::queue::detail
