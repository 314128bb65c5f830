// SPDX-License-Identifier: Apache-2.0
// containers/queue/detail/ms_core.hpp - the mechanics of stm::queue::ms_queue: the
// Michael-Scott lock-free queue (PODC 1996) over a pool of nodes addressed by
// 32-bit indices, with 32-bit tags against ABA, and a Treiber free list that
// recycles dequeued nodes (type-stable memory: a node is never unmapped, so a
// slow thread may read a recycled node; its tagged CAS then fails).
//
// Words (all 64-bit tagged: low 32 bits index, high 32 bits tag):
//   head, tail      the queue's ends (head is the dummy node)
//   next[i]         node i's successor in the queue
//   free_top        top of the free list; free_next[i] (32-bit index) links it
//   value[i]        node i's item (64-bit word)
//
// Synchronization table:
//   (L) next CAS release (enqueue's link)   publishes value[i] and next[i] of
//       the new node; pairs with the acquire loads of next in enqueue/dequeue.
//   (H) head CAS acq_rel (dequeue)          its release side keeps the value
//       load before the CAS (a successful CAS proves the node was not recycled
//       when the value was read); acquire pairs with (F).
//   (F) free_top CAS release (push)         the node's last uses (value read,
//       next read) happen before it is handed out again; pairs with the
//       acquire load of free_top in pop.
//   (T) tail CAS release                    orders nothing that readers rely on
//       beyond the link (L), which they read through next; relaxed would do,
//       release keeps the new node's initialisation ordered for tail readers.
#pragma once

#include <cstdint>

#include "containers/status.hpp"
#include "stm/backoff.hpp"
#include "stm/platform.hpp"

namespace stm::queue::detail {

inline constexpr std::uint32_t ms_nil = 0xFFFFFFFFu;

STM_HD inline std::uint64_t ms_pack(std::uint32_t idx, std::uint32_t tag) {
  return (std::uint64_t(tag) << 32) | idx;
}
STM_HD inline std::uint32_t ms_index(std::uint64_t w) { return static_cast<std::uint32_t>(w); }
STM_HD inline std::uint32_t ms_tag(std::uint64_t w) { return static_cast<std::uint32_t>(w >> 32); }

/// Word offsets in the control block (128 bytes apart: no shared lines).
inline constexpr std::uint32_t ms_head_at = 0;
inline constexpr std::uint32_t ms_tail_at = 16;
inline constexpr std::uint32_t ms_free_at = 32;
inline constexpr std::uint32_t ms_control_words = 48;

/// Exponential back-off after a failed CAS (32 ns doubling to 2 us on the GPU,
/// a yield on the CPU): the usual remedy for a hot CAS word, which keeps the
/// baseline fair.
struct ms_backoff : exp_backoff {
  STM_HD ms_backoff() : exp_backoff(32, 2048) {}
  STM_HD void pause() { wait(); }
};

struct ms_core {
  std::uint64_t* control = nullptr;
  std::uint64_t* next = nullptr;
  std::uint64_t* value = nullptr;
  std::uint32_t* free_next = nullptr;

  STM_HD atomic_ref<std::uint64_t> head() const { return atomic_ref<std::uint64_t>(control[ms_head_at]); }
  STM_HD atomic_ref<std::uint64_t> tail() const { return atomic_ref<std::uint64_t>(control[ms_tail_at]); }
  STM_HD atomic_ref<std::uint64_t> free_top() const { return atomic_ref<std::uint64_t>(control[ms_free_at]); }
  STM_HD atomic_ref<std::uint64_t> next_of(std::uint32_t i) const { return atomic_ref<std::uint64_t>(next[i]); }
  STM_HD atomic_ref<std::uint64_t> value_of(std::uint32_t i) const { return atomic_ref<std::uint64_t>(value[i]); }
  STM_HD atomic_ref<std::uint32_t> free_next_of(std::uint32_t i) const { return atomic_ref<std::uint32_t>(free_next[i]); }

  /// Pop a node from the free list; ms_nil when the pool is exhausted.
  STM_HD std::uint32_t alloc() const {
    std::uint64_t top = free_top().load(memory_order_acquire);  // pairs with (F)
    ms_backoff b;
    for (;;) {
      const std::uint32_t i = ms_index(top);
      if (i == ms_nil) return ms_nil;
      const std::uint32_t nx = free_next_of(i).load(memory_order_relaxed);
      if (free_top().compare_exchange_weak(top, ms_pack(nx, ms_tag(top) + 1), memory_order_acquire,
                                           memory_order_acquire))  // pairs with (F)
        return i;
      b.pause();
    }
  }

  /// Push node i onto the free list.
  STM_HD void release(std::uint32_t i) const {
    std::uint64_t top = free_top().load(memory_order_relaxed);
    ms_backoff b;
    for (;;) {
      free_next_of(i).store(ms_index(top), memory_order_relaxed);
      if (free_top().compare_exchange_weak(top, ms_pack(i, ms_tag(top) + 1), memory_order_release,
                                           memory_order_relaxed))  // (F)
        return;
      b.pause();
    }
  }

  STM_HD op_status enqueue(std::uint64_t v) const {
    const std::uint32_t node = alloc();
    if (node == ms_nil) return op_status::full;
    value_of(node).store(v, memory_order_relaxed);
    // A fresh tag for the node's next: a stale enqueuer that still expects the
    // node's previous "nil" cannot link behind it.
    const std::uint64_t old_next = next_of(node).load(memory_order_relaxed);
    next_of(node).store(ms_pack(ms_nil, ms_tag(old_next) + 1), memory_order_relaxed);
    std::uint64_t tl;
    ms_backoff b;
    for (;;) {
      tl = tail().load(memory_order_acquire);  // pairs with (T)
      const std::uint32_t ti = ms_index(tl);
      std::uint64_t nx = next_of(ti).load(memory_order_acquire);  // pairs with (L)
      if (tl != tail().load(memory_order_relaxed)) continue;
      if (ms_index(nx) == ms_nil) {
        if (next_of(ti).compare_exchange_weak(nx, ms_pack(node, ms_tag(nx) + 1), memory_order_release,
                                              memory_order_relaxed))  // (L)
          break;
        b.pause();
      } else {
        tail().compare_exchange_weak(tl, ms_pack(ms_index(nx), ms_tag(tl) + 1), memory_order_release,
                                     memory_order_relaxed);  // (T) help a lagging tail
      }
    }
    tail().compare_exchange_strong(tl, ms_pack(node, ms_tag(tl) + 1), memory_order_release,
                                   memory_order_relaxed);  // (T) swing the tail to our node (others may have)
    return op_status::ok;
  }

  STM_HD op_status dequeue(std::uint64_t& out) const {
    ms_backoff b;
    for (;;) {
      std::uint64_t hd = head().load(memory_order_acquire);  // pairs with (H)
      const std::uint64_t tl = tail().load(memory_order_acquire);  // pairs with (T)
      const std::uint32_t hi = ms_index(hd);
      const std::uint64_t nx = next_of(hi).load(memory_order_acquire);  // pairs with (L)
      if (hd != head().load(memory_order_relaxed)) continue;
      if (hi == ms_index(tl)) {
        if (ms_index(nx) == ms_nil) return op_status::empty;
        std::uint64_t t = tl;
        tail().compare_exchange_weak(t, ms_pack(ms_index(nx), ms_tag(tl) + 1), memory_order_release,
                                     memory_order_relaxed);  // (T) help a lagging tail
        continue;
      }
      if (ms_index(nx) == ms_nil) continue;  // a stale read of a recycled node: look again
      const std::uint64_t v = value_of(ms_index(nx)).load(memory_order_relaxed);
      if (head().compare_exchange_weak(hd, ms_pack(ms_index(nx), ms_tag(hd) + 1), memory_order_acq_rel,
                                       memory_order_relaxed)) {  // (H)
        out = v;
        release(hi);
        return op_status::ok;
      }
      b.pause();
    }
  }
};

}  // namespace stm::queue::detail
