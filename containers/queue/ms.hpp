// SPDX-License-Identifier: Apache-2.0
// containers/queue/ms.hpp - stm::queue::ms_queue<T>: the Michael-Scott
// lock-free FIFO queue (Michael and Scott, PODC 1996), the classic baseline
// that Scogland & Feng (ICPE 2015) compare their ticket queue against.
//
//   stm::queue::ms_queue<std::uint32_t> q(stm::backend::gpu, 1 << 20);
//   auto r = q.ref();
//   // in a kernel: r.enqueue(tid, x) -> ok | full;  r.dequeue(tid, x) -> ok | empty
//   // (tid: the caller's thread id, taken by every container; unused here)
//
// Guarantees
//  - Linearizable FIFO queue; lock-free (some caller always completes). Safe
//    to launch with stm::progress::any: no call ever waits for another thread.
//  - Nodes come from a fixed pool of capacity + 1 (one dummy); dequeued nodes
//    are recycled through a free list, with 32-bit tags against ABA. When the
//    pool is empty, enqueue returns full. A node is recycled only after its
//    dequeue completes, so full can be reported while up to (dequeues in
//    progress) items are leaving.
//  - Every operation must win a CAS on one hot word (tail, head, the free
//    list top), so the operations of a launch serialize on those words: slow
//    by design with many threads (BENCHMARKS.md has the figures). Use
//    stm::queue::ticket_queue for speed; this queue is the reference point.
//
// Differences from std::queue: bounded by its pool, concurrent, items are
// trivially copyable 4- or 8-byte types, no front()/back(); the host-side
// members read device memory only between launches.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "containers/queue/detail/item_bits.hpp"
#include "containers/queue/detail/ms_core.hpp"
#include "containers/status.hpp"
#include "stm/backend.hpp"
#include "stm/buffer.hpp"
#include "stm/error.hpp"

namespace stm::queue {

template <class T>
class ms_queue_ref {
  static_assert(detail::is_queue_item<T>, "queue items are trivially copyable 4- or 8-byte types");
  using word = detail::item_word_t<T>;

 public:
  using value_type = T;

  /// ok, or full when the node pool is exhausted.
  STM_HD op_status enqueue(std::uint32_t /*tid*/, const T& v) const {
    return core_.enqueue(static_cast<std::uint64_t>(detail::item_to_word<word>(v)));
  }
  /// ok (out set), or empty.
  STM_HD op_status dequeue(std::uint32_t /*tid*/, T& out) const {
    std::uint64_t w = 0;
    const op_status s = core_.dequeue(w);
    if (s == op_status::ok) out = detail::word_to_item<T>(static_cast<word>(w));
    return s;
  }
  STM_HD std::uint32_t capacity() const { return capacity_; }

 private:
  template <class>
  friend class ms_queue;
  detail::ms_core core_{};
  std::uint32_t capacity_ = 0;
};

template <class T>
class ms_queue {
  static_assert(detail::is_queue_item<T>, "queue items are trivially copyable 4- or 8-byte types");

 public:
  using value_type = T;
  using ref_type = ms_queue_ref<T>;

  /// capacity: items the pool holds, in [1, 2^32 - 2] (usage_error otherwise).
  ms_queue(backend where, std::uint64_t capacity)
      : control_(where, detail::ms_control_words),
        next_(where, checked_nodes(capacity)),
        value_(where, static_cast<std::size_t>(capacity + 1)),
        free_next_(where, static_cast<std::size_t>(capacity + 1)) {
    const std::size_t nodes = static_cast<std::size_t>(capacity + 1);
    // node 0: the dummy; nodes 1..capacity: the free list, in order.
    std::vector<std::uint64_t> next(nodes, detail::ms_pack(detail::ms_nil, 0));
    next_.upload(next);
    std::vector<std::uint32_t> fn(nodes);
    for (std::size_t i = 0; i < nodes; ++i) fn[i] = i + 1 < nodes ? static_cast<std::uint32_t>(i + 1) : detail::ms_nil;
    free_next_.upload(fn);
    std::vector<std::uint64_t> control(detail::ms_control_words, 0);
    control[detail::ms_head_at] = detail::ms_pack(0, 0);
    control[detail::ms_tail_at] = detail::ms_pack(0, 0);
    control[detail::ms_free_at] = detail::ms_pack(1, 0);
    control_.upload(control);
    ref_.core_.control = control_.data();
    ref_.core_.next = next_.data();
    ref_.core_.value = value_.data();
    ref_.core_.free_next = free_next_.data();
    ref_.capacity_ = static_cast<std::uint32_t>(capacity);
  }

  ms_queue(ms_queue&&) noexcept = default;
  ms_queue& operator=(ms_queue&&) noexcept = default;

  ref_type ref() const { return ref_; }
  std::uint32_t capacity() const { return ref_.capacity_; }
  backend where() const { return control_.where(); }

  /// Items in the queue, front first, by walking it from head (between
  /// launches only).
  std::vector<T> contents() const {
    const auto control = control_.to_vector();
    const auto next = next_.to_vector();
    const auto value = value_.to_vector();
    std::vector<T> out;
    for (std::uint32_t i = detail::ms_index(next[detail::ms_index(control[detail::ms_head_at])]);
         i != detail::ms_nil && out.size() <= capacity(); i = detail::ms_index(next[i]))
      out.push_back(detail::word_to_item<T>(static_cast<detail::item_word_t<T>>(value[i])));
    return out;
  }
  std::uint64_t size() const { return contents().size(); }
  bool empty() const { return size() == 0; }

 private:
  static std::size_t checked_nodes(std::uint64_t capacity) {
    if (capacity < 1 || capacity > 0xFFFFFFFEull)
      throw usage_error("ms queue capacity must be between 1 and 2^32 - 2, got " + std::to_string(capacity));
    return static_cast<std::size_t>(capacity + 1);
  }

  buffer<std::uint64_t> control_;
  buffer<std::uint64_t> next_;
  buffer<std::uint64_t> value_;
  buffer<std::uint32_t> free_next_;
  ref_type ref_{};
};

static_assert(std::is_trivially_copyable_v<ms_queue_ref<std::uint32_t>>);
static_assert(std::is_trivially_copyable_v<ms_queue_ref<double>>);

}  // namespace stm::queue
