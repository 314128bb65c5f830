// SPDX-License-Identifier: Apache-2.0
// containers/queue/tx.hpp - stm::queue::tx_queue<T>: a bounded FIFO queue
// built on the STM API (a ring of slots with a head and a tail counter, every
// access a transactional read or write), runnable under every contention
// manager.
//
//   stm::queue::tx_queue<std::uint32_t> q(stm::backend::gpu, 4096);
//   auto r = q.ref();                           // manager: stm::cm::prstm; q.ref<CM>() or q.ref(cm) for another
//   // a transaction of its own:
//   r.enqueue(tid, x);                          // ok | full
//   r.dequeue(tid, x);                          // ok | empty
//   // or composed with other transactional work, in one transaction:
//   stm::transaction<> tx(r.locks(), tid);
//   TX_BEGIN(tx) {
//     if (r.dequeue(tx, x) != stm::op_status::ok) TX_SEMANTIC_ABORT(tx);
//     TX_WRITE(tx, &total[0], TX_READ(tx, &total[0]) + x);
//   } TX_END(tx);
//
// Guarantees
//  - Linearizable (a committed operation takes effect at its commit; the STM
//    gives serializability and opacity). full and empty are decided inside the
//    transaction, on a consistent snapshot.
//  - Progress is the contention manager's: with cm::prstm some transaction
//    always commits. No call waits for another thread (progress::any is
//    enough), but every operation touches head or tail, so operations of one
//    kind serialize: it is the STM baseline, not the fast queue.
//  - Thread ids are the transactions' priorities: distinct among concurrent
//    callers and below stm::lock_word::max_threads.
//  - Counters are 64 bits (no rollover in practice); the capacity is any
//    number in [1, 2^30].
//
// Composition: as every transactional container (containers/stack/tx.hpp
// says what a caller must do): containers used in one transaction share one
// lock table (the `shared` constructor) and the transaction is built on it;
// the descriptor is opaque and has room (enqueue and dequeue: 3 reads,
// 2 writes).
//
// Differences from std::queue: bounded, concurrent, items are trivially
// copyable 4- or 8-byte types, no front()/back(); a composed operation is
// only visible when its whole transaction commits.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "cmp/prstm.hpp"
#include "containers/detail/tx_ops.hpp"
#include "containers/queue/detail/item_bits.hpp"
#include "containers/status.hpp"
#include "stm/backend.hpp"
#include "stm/buffer.hpp"
#include "stm/error.hpp"
#include "stm/lock_table.hpp"
#include "stm/tx.hpp"
#include "stm/tx_macros.hpp"  // the usage comment's TX_BEGIN, TX_READ, ...

namespace stm::queue {

namespace detail {
/// Word offsets in a tx_queue's storage (head and tail on their own lines).
inline constexpr std::uint32_t txq_head_at = 0;
inline constexpr std::uint32_t txq_tail_at = 16;
inline constexpr std::uint32_t txq_slots_at = 32;
}  // namespace detail

/// Kernel handle of a tx_queue; CM is the manager of its one-shot operations.
template <class T, class CM = cm::prstm>
class tx_queue_ref {
  static_assert(detail::is_queue_item<T>, "queue items are trivially copyable 4- or 8-byte types");
  using word = detail::item_word_t<T>;

 public:
  using value_type = T;
  using contention_manager = CM;
  /// Read and write sets one one-shot operation needs (head, tail, a slot).
  using config = tx_config<4, 4>;

  /// Inside the caller's open transaction tx (built on locks()): ok, full (the
  /// transaction goes on; abort it or not), or aborted (tx aborted on a
  /// conflict; leave the body, TX_END retries it).
  template <class Tx, class = containers::detail::if_transaction<Tx>>
  STM_HD op_status enqueue(Tx& tx, const T& v) const {
    STM_COMPOSED_OP(Tx, tx);
    const std::uint64_t h = tx.read(&storage_[detail::txq_head_at]);
    const std::uint64_t t = tx.read(&storage_[detail::txq_tail_at]);
    if (!tx.active()) return op_status::aborted;
    if (t - h >= capacity_) return op_status::full;
    tx.write(&storage_[detail::txq_slots_at + t % capacity_], static_cast<std::uint64_t>(detail::item_to_word<word>(v)));
    tx.write(&storage_[detail::txq_tail_at], t + 1);
    return tx.active() ? op_status::ok : op_status::aborted;
  }

  /// Inside the caller's open transaction: ok (out set), empty, or aborted.
  template <class Tx, class = containers::detail::if_transaction<Tx>>
  STM_HD op_status dequeue(Tx& tx, T& out) const {
    STM_COMPOSED_OP(Tx, tx);
    const std::uint64_t h = tx.read(&storage_[detail::txq_head_at]);
    const std::uint64_t t = tx.read(&storage_[detail::txq_tail_at]);
    if (!tx.active()) return op_status::aborted;
    if (t == h) return op_status::empty;
    const std::uint64_t w = tx.read(&storage_[detail::txq_slots_at + h % capacity_]);
    tx.write(&storage_[detail::txq_head_at], h + 1);
    if (!tx.active()) return op_status::aborted;
    out = detail::word_to_item<T>(static_cast<word>(w));
    return op_status::ok;
  }

  /// A transaction of its own: ok or full. counters (optional) accumulates
  /// the transaction's commits and aborts.
  STM_HD op_status enqueue(std::uint32_t tid, const T& v, tx_counters* counters = nullptr) const {
    transaction<CM, config> tx(locks_, tid, cm_);
    op_status s = op_status::aborted;
    for (tx.begin();;) {
      s = enqueue(tx, v);
      if (s == op_status::full) tx.semantic_conflict();
      if (tx.commit() || !tx.retry()) break;
    }
    if (counters) *counters += tx.counters();
    return tx.committed() ? op_status::ok : s == op_status::full ? s : op_status::capacity;
  }

  /// A transaction of its own: ok (out set) or empty.
  STM_HD op_status dequeue(std::uint32_t tid, T& out, tx_counters* counters = nullptr) const {
    transaction<CM, config> tx(locks_, tid, cm_);
    op_status s = op_status::aborted;
    T got{};
    for (tx.begin();;) {
      s = dequeue(tx, got);
      if (s == op_status::empty) tx.semantic_conflict();
      if (tx.commit() || !tx.retry()) break;
    }
    if (counters) *counters += tx.counters();
    if (tx.committed()) {
      out = got;
      return op_status::ok;
    }
    return s == op_status::empty ? s : op_status::capacity;
  }

  /// The lock table its transactions use (build composed transactions on it).
  STM_HD lock_table_ref locks() const { return locks_; }
  STM_HD std::uint32_t capacity() const { return static_cast<std::uint32_t>(capacity_); }

 private:
  template <class>
  friend class tx_queue;
  std::uint64_t* storage_ = nullptr;
  std::uint64_t capacity_ = 0;
  lock_table_ref locks_{};
  CM cm_{};
};

template <class T>
class tx_queue {
  static_assert(detail::is_queue_item<T>, "queue items are trivially copyable 4- or 8-byte types");

 public:
  using value_type = T;
  template <class CM = cm::prstm>
  using ref_type = tx_queue_ref<T, CM>;

  /// A queue with its own lock table (one lock per word). capacity in [1, 2^30].
  tx_queue(backend where, std::uint64_t capacity)
      : storage_(where, checked_words(capacity)),
        // No commit clock: a one-shot transaction reads at most three locations.
        locks_(lock_table(where, storage_.size(), storage_.data(), sizeof(std::uint64_t), 1, /*clock=*/false)),
        capacity_(capacity) {}
  /// A queue whose transactions use the caller's lock table `shared` (so that
  /// they compose with transactions on other data of that table). The table
  /// must outlive the queue's use.
  tx_queue(backend where, std::uint64_t capacity, const lock_table& shared)
      : storage_(where, checked_words(capacity)), locks_(where, shared), capacity_(capacity) {}

  tx_queue(tx_queue&&) noexcept = default;
  tx_queue& operator=(tx_queue&&) noexcept = default;

  /// The kernel handle, whose one-shot operations run under manager cm.
  template <class CM = cm::prstm>
  tx_queue_ref<T, CM> ref(CM cm = CM{}) const {
    tx_queue_ref<T, CM> r;
    r.storage_ = storage_.data();
    r.capacity_ = capacity_;
    r.locks_ = locks_.ref();
    r.cm_ = cm;
    return r;
  }
  std::uint32_t capacity() const { return static_cast<std::uint32_t>(capacity_); }
  backend where() const { return storage_.where(); }
  const lock_table& locks() const { return locks_.table(); }
  /// After a launch every lock must be free again (tests).
  bool locks_free() const { return locks_.all_free(); }

  /// Items in the queue, front first (between launches only).
  std::vector<T> contents() const {
    const auto s = storage_.to_vector();
    const std::uint64_t h = s[detail::txq_head_at], t = s[detail::txq_tail_at];
    std::vector<T> out;
    for (std::uint64_t i = h; i != t && out.size() < capacity_; ++i)
      out.push_back(detail::word_to_item<T>(static_cast<detail::item_word_t<T>>(s[detail::txq_slots_at + i % capacity_])));
    return out;
  }
  std::uint64_t size() const {
    std::uint64_t h = 0, t = 0;
    storage_.download(&h, 1, detail::txq_head_at);
    storage_.download(&t, 1, detail::txq_tail_at);
    return t - h;
  }
  bool empty() const { return size() == 0; }

 private:
  static std::size_t checked_words(std::uint64_t capacity) {
    if (capacity < 1 || capacity > (std::uint64_t(1) << 30))
      throw usage_error("tx queue capacity must be between 1 and 2^30, got " + std::to_string(capacity));
    return static_cast<std::size_t>(detail::txq_slots_at + capacity);
  }

  buffer<std::uint64_t> storage_;
  containers::detail::tx_locks locks_;
  std::uint64_t capacity_ = 0;
};

static_assert(std::is_trivially_copyable_v<tx_queue_ref<std::uint32_t>>);
static_assert(std::is_trivially_copyable_v<tx_queue_ref<double>>);

}  // namespace stm::queue
