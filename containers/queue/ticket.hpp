// SPDX-License-Identifier: Apache-2.0
// containers/queue/ticket.hpp - stm::queue::ticket_queue<T>: the bounded FIFO
// queue of Scogland & Feng (ICPE 2015), built on fetch-and-add tickets.
//
//   stm::queue::ticket_queue<std::uint64_t> q(stm::backend::gpu, 1 << 20);   // host owner
//   auto r = q.ref();                                                       // pass by value
//   Exec::run(n, [=] STM_HD(std::uint32_t tid) {  // Exec: stm/launch.hpp
//     r.enqueue(tid, tid);                     // blocking: waits for room (first argument: the thread id)
//     std::uint64_t v;
//     if (r.dequeue(tid, v) == stm::op_status::closed) return;
//   }, stm::progress::all_resident);          // blocking calls need every thread resident
//
// Three interfaces over one ring (section 5):
//  - blocking   enqueue / dequeue take a ticket with one fetch-and-add and wait
//               (with exponential back-off) until their slot's turn comes; they
//               return ok, or closed when the queue is closed meanwhile.
//               No CAS: four atomic operations per call when nobody waits.
//               Fair: callers of one side are served in ticket order.
//  - non-waiting enqueue_nb / dequeue_nb take the next ticket only if its slot is
//               ready (one CAS); otherwise they return at once: full / empty
//               when the counters say so, busy when another caller holds the
//               slot or won the CAS. Never wait.
//  - status     size, empty, full, waiting_enqueuers, waiting_dequeuers: from
//               head and tail read at one instant (double collect), exact
//               across counter rollover (section 5.4).
//  - close      every waiting call leaves with closed; every later call of any
//               interface returns closed (items still inside are abandoned).
//
// Guarantees
//  - Linearizable as a channel queue (section 6): FIFO in ticket order; a call
//    that returns ok took effect when it took its ticket. Status counts
//    tickets taken, so an item being written already counts.
//  - Progress: blocking calls are starvation-free only if every thread that
//    holds a ticket keeps running: launch them with stm::progress::all_resident
//    (GPU: no more threads than the device keeps resident, i.e. size launches
//    to occupancy; CPU: one OS thread per logical thread). The non-waiting
//    calls never wait; in a queue neither full nor empty one of any set of
//    concurrent callers succeeds.
//  - Counters are 32 bits and roll over every 2^32 operations (seconds on a
//    GPU); ids roll over with them (MAX_ID = 2^33 / capacity), so rollover is
//    safe. Limits: capacity a power of two in [2, 2^30], and fewer than
//    2^31 - capacity callers inside the queue at once.
//  - A non-waiting call that reads the tail, is suspended for exactly 2^32
//    operations and then resumes can win its CAS on a stale ticket (the ABA of
//    a 32-bit counter); it needs a suspension of seconds between two adjacent
//    instructions.
//
// Differences from std::queue: bounded (capacity fixed at construction),
// concurrent, items are trivially copyable 4- or 8-byte types copied bit for
// bit, no front()/back() (a dequeue is the only way to look at an item), and
// the host-side members read or write device memory only between launches.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "containers/queue/detail/item_bits.hpp"
#include "containers/queue/detail/ticket_core.hpp"
#include "containers/status.hpp"
#include "stm/backend.hpp"
#include "stm/buffer.hpp"
#include "stm/error.hpp"
#include "stm/platform.hpp"

namespace stm::queue {

/// The queue's counters at one instant, as the status interface reports them.
struct ticket_op_status {
  std::uint32_t size = 0;               ///< items in the queue (tickets taken, capped to the capacity)
  std::uint32_t waiting_enqueuers = 0;  ///< enqueuers holding a ticket beyond the capacity
  std::uint32_t waiting_dequeuers = 0;  ///< dequeuers holding a ticket beyond the last item
  bool exact = true;                    ///< false: the counters moved too fast for one-instant reads
  STM_HD bool empty() const { return size == 0; }
};

/// Back-off of the blocking calls while they wait for their slot: __nanosleep
/// on the GPU from min_ns doubling up to max_ns (a yield on the CPU).
struct ticket_backoff {
  std::uint32_t min_ns = 32;
  std::uint32_t max_ns = 1024;
};

/// Trivially copyable handle of a ticket_queue, passed by value into kernels.
template <class T>
class ticket_queue_ref {
  static_assert(detail::is_queue_item<T>, "queue items are trivially copyable 4- or 8-byte types");
  using word = detail::item_word_t<T>;

 public:
  using value_type = T;

  // Every call takes the caller's thread id first (the containers'
  // convention); the ticket queue does not use it.

  // blocking interface
  STM_HD op_status enqueue(std::uint32_t /*tid*/, const T& v) const { return core_.enqueue(detail::item_to_word<word>(v)); }
  STM_HD op_status dequeue(std::uint32_t /*tid*/, T& out) const {
    word w{};
    const op_status s = core_.dequeue(w);
    if (s == op_status::ok) out = detail::word_to_item<T>(w);
    return s;
  }

  // non-waiting interface
  STM_HD op_status enqueue_nb(std::uint32_t /*tid*/, const T& v) const {
    return core_.enqueue_nb(detail::item_to_word<word>(v));
  }
  STM_HD op_status dequeue_nb(std::uint32_t /*tid*/, T& out) const {
    word w{};
    const op_status s = core_.dequeue_nb(w);
    if (s == op_status::ok) out = detail::word_to_item<T>(w);
    return s;
  }

  // status interface
  STM_HD ticket_op_status status() const { return status_of(core_.snapshot(), capacity()); }
  STM_HD std::uint32_t size() const { return status().size; }
  STM_HD bool empty() const { return status().size == 0; }
  STM_HD bool full() const { return status().size == capacity(); }
  STM_HD std::uint32_t waiting_enqueuers() const { return status().waiting_enqueuers; }
  STM_HD std::uint32_t waiting_dequeuers() const { return status().waiting_dequeuers; }
  STM_HD bool closed() const { return core_.is_closed(); }
  STM_HD std::uint32_t capacity() const { return core_.capacity(); }

  /// Close the queue: blocked callers leave with closed, later calls fail.
  STM_HD void close() const { core_.close(); }

  /// The mechanics (tests drive the two halves of an operation separately).
  STM_HD const detail::ticket_core<word>& core() const { return core_; }

  /// Status from a head/tail pair (section 5.4: distance across rollover).
  STM_HD static ticket_op_status status_of(const detail::ticket_snapshot& s, std::uint32_t cap) {
    ticket_op_status r;
    const std::int64_t d = s.distance();
    r.size = d <= 0 ? 0u : d >= cap ? cap : static_cast<std::uint32_t>(d);
    r.waiting_enqueuers = d > cap ? static_cast<std::uint32_t>(d - cap) : 0u;
    r.waiting_dequeuers = d < 0 ? static_cast<std::uint32_t>(-d) : 0u;
    r.exact = s.exact;
    return r;
  }

 private:
  template <class>
  friend class ticket_queue;
  detail::ticket_core<word> core_{};
};

/// Move-only owner of a ticket queue's memory on one backend.
template <class T>
class ticket_queue {
  static_assert(detail::is_queue_item<T>, "queue items are trivially copyable 4- or 8-byte types");
  using word = detail::item_word_t<T>;

 public:
  using value_type = T;
  using ref_type = ticket_queue_ref<T>;

  /// capacity: a power of two in [2, 2^30] (usage_error otherwise).
  /// first_ticket: where head and tail start (tests start them just below the
  /// 2^32 rollover; any value is valid).
  ticket_queue(backend where, std::uint64_t capacity, std::uint32_t first_ticket = 0, ticket_backoff backoff = {})
      : counters_(where, detail::ticket_counter_words),
        ids_(where, checked_capacity(capacity)),
        items_(where, static_cast<std::size_t>(capacity)) {
    if (backoff.min_ns == 0 || backoff.max_ns < backoff.min_ns)
      throw usage_error("ticket queue back-off needs 0 < min_ns <= max_ns");
    auto& c = ref_.core_;
    c.counters = counters_.data();
    c.ids = ids_.data();
    c.items = items_.data();
    c.mask = static_cast<std::uint32_t>(capacity - 1);
    while ((std::uint64_t(1) << c.shift) < capacity) ++c.shift;
    c.id_mask = static_cast<std::uint32_t>((std::uint64_t(2) << (32 - c.shift)) - 1);  // MAX_ID - 1
    c.backoff_min_ns = backoff.min_ns;
    c.backoff_max_ns = backoff.max_ns;
    // Slot s first serves the smallest ticket >= first_ticket that maps to it
    // (from ticket 0 that is lap 0, id 0: the zero-filled buffer already).
    if (first_ticket != 0) {
      std::vector<std::uint32_t> ids(static_cast<std::size_t>(capacity));
      for (std::uint32_t s = 0; s < ids.size(); ++s) ids[s] = c.get_id(first_ticket + ((s - first_ticket) & c.mask));
      ids_.upload(ids);
      counters_.upload(&first_ticket, 1, detail::ticket_head_at);
      counters_.upload(&first_ticket, 1, detail::ticket_tail_at);
    }
  }

  ticket_queue(ticket_queue&&) noexcept = default;
  ticket_queue& operator=(ticket_queue&&) noexcept = default;

  ref_type ref() const { return ref_; }
  std::uint32_t capacity() const { return ref_.capacity(); }
  backend where() const { return counters_.where(); }

  /// Host-side status and close: call between launches (on the GPU they are
  /// ordered after the kernels already launched). To end the waits of a
  /// running kernel, a thread of that kernel calls ref().close().
  ticket_op_status status() const {
    std::uint32_t c[detail::ticket_counter_words];
    counters_.download(c, detail::ticket_counter_words);
    detail::ticket_snapshot s;
    s.head = c[detail::ticket_head_at];
    s.tail = c[detail::ticket_tail_at];
    s.exact = true;
    return ref_type::status_of(s, capacity());
  }
  std::uint32_t size() const { return status().size; }
  bool empty() const { return status().size == 0; }
  bool full() const { return status().size == capacity(); }
  /// Items in the queue, front first (between launches, with no call
  /// holding a ticket: then the items are the slots from head to tail).
  std::vector<T> contents() const {
    std::uint32_t c[detail::ticket_counter_words];
    counters_.download(c, detail::ticket_counter_words);
    const std::uint32_t head = c[detail::ticket_head_at];
    const auto items = items_.to_vector();
    std::vector<T> out;
    const std::uint32_t n = size();
    for (std::uint32_t k = 0; k < n; ++k) out.push_back(detail::word_to_item<T>(items[(head + k) & (capacity() - 1)]));
    return out;
  }
  bool closed() const {
    std::uint32_t v = 0;
    counters_.download(&v, 1, detail::ticket_closed_at);
    return v != 0;
  }
  void close() {
    const std::uint32_t one = 1;
    counters_.upload(&one, 1, detail::ticket_closed_at);
  }

 private:
  static std::size_t checked_capacity(std::uint64_t capacity) {
    if (capacity < 2 || capacity > (std::uint64_t(1) << 30) || (capacity & (capacity - 1)) != 0)
      throw usage_error("ticket queue capacity must be a power of two between 2 and 2^30, got " +
                        std::to_string(capacity));
    return static_cast<std::size_t>(capacity);
  }

  buffer<std::uint32_t> counters_;
  buffer<std::uint32_t> ids_;
  buffer<word> items_;
  ref_type ref_{};
};

static_assert(std::is_trivially_copyable_v<ticket_queue_ref<std::uint32_t>>);
static_assert(std::is_trivially_copyable_v<ticket_queue_ref<double>>);

}  // namespace stm::queue
