// containers/queue/tx.hpp - stm::tx_queue<T>: a bounded FIFO queue built on the
// STM API (a ring of slots with a head and a tail counter, every access a
// transactional read or write), runnable under every contention manager.
//
//   stm::tx_queue<std::uint32_t> q(stm::backend::gpu, 4096);
//   auto r = q.ref();
//   // its own transaction (CM: any contention manager type, e.g. stm::cm::prstm):
//   r.enqueue<CM>(tid, x);                      // success | full
//   r.dequeue<CM>(tid, x);                      // success | empty
//   // or composed with other transactional work, in one transaction:
//   stm::transaction<CM> tx(r.locks(), tid);
//   TX_BEGIN(tx) {
//     if (r.dequeue(tx, x) != stm::queue_status::success) TX_SEMANTIC_ABORT(tx);
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
//  - Logical thread ids are the transactions' priorities: distinct among
//    concurrent callers and below stm::lock_word::max_threads.
//  - Counters are 64 bits (no rollover in practice); the capacity is any
//    number in [1, 2^30].
//
// Differences from std::queue: bounded, concurrent, items are trivially
// copyable 4- or 8-byte types, no front()/back(); a composed operation is
// only visible when its whole transaction commits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "cmp/prstm.hpp"
#include "containers/queue/detail/item_bits.hpp"
#include "containers/queue/status.hpp"
#include "stm/backend.hpp"
#include "stm/buffer.hpp"
#include "stm/error.hpp"
#include "stm/lock_table.hpp"
#include "stm/tx.hpp"

namespace stm {

namespace detail {
/// Word offsets in a tx_queue's storage (head and tail on their own lines).
inline constexpr std::uint32_t txq_head_at = 0;
inline constexpr std::uint32_t txq_tail_at = 16;
inline constexpr std::uint32_t txq_slots_at = 32;
/// Read and write sets one standalone operation needs (head, tail, a slot).
using txq_config = tx_config<4, 4>;

STM_HD inline void accumulate(tx_counters& into, const tx_counters& c) { into += c; }
}  // namespace detail

template <class T>
class tx_queue_ref {
  static_assert(detail::is_queue_item<T>, "queue items are trivially copyable 4- or 8-byte types");
  using word = detail::item_word_t<T>;

 public:
  using value_type = T;

  /// Inside an open transaction tx (built on locks()): success, or full (the
  /// transaction goes on; abort it or not). When tx aborts on a conflict the
  /// result is busy and TX_END retries the body.
  template <class Tx>
  STM_HD queue_status enqueue(Tx& tx, const T& v) const {
    const std::uint64_t h = tx.read(&storage_[detail::txq_head_at]);
    const std::uint64_t t = tx.read(&storage_[detail::txq_tail_at]);
    if (!tx.active()) return queue_status::busy;
    if (t - h >= capacity_) return queue_status::full;
    tx.write(&storage_[detail::txq_slots_at + t % capacity_], static_cast<std::uint64_t>(detail::item_to_word<word>(v)));
    tx.write(&storage_[detail::txq_tail_at], t + 1);
    return tx.active() ? queue_status::success : queue_status::busy;
  }

  /// Inside an open transaction: success (out set), empty, or busy (aborted).
  template <class Tx>
  STM_HD queue_status dequeue(Tx& tx, T& out) const {
    const std::uint64_t h = tx.read(&storage_[detail::txq_head_at]);
    const std::uint64_t t = tx.read(&storage_[detail::txq_tail_at]);
    if (!tx.active()) return queue_status::busy;
    if (t == h) return queue_status::empty;
    const std::uint64_t w = tx.read(&storage_[detail::txq_slots_at + h % capacity_]);
    tx.write(&storage_[detail::txq_head_at], h + 1);
    if (!tx.active()) return queue_status::busy;
    out = detail::word_to_item<T>(static_cast<word>(w));
    return queue_status::success;
  }

  /// A transaction of its own under contention manager CM: success or full.
  /// counters (optional) accumulates the transaction's commits and aborts.
  template <class CM = cm::prstm>
  STM_HD queue_status enqueue(std::uint32_t tid, const T& v, tx_counters* counters = nullptr, CM cm = CM{}) const {
    transaction<CM, detail::txq_config> tx(locks_, tid, cm);
    queue_status s = queue_status::busy;
    for (tx.begin();;) {
      s = enqueue(tx, v);
      if (s == queue_status::full) tx.semantic_conflict();
      if (tx.commit() || !tx.retry()) break;
    }
    if (counters) detail::accumulate(*counters, tx.counters());
    return tx.committed() ? queue_status::success : s == queue_status::full ? s : queue_status::busy;
  }

  /// A transaction of its own: success (out set) or empty.
  template <class CM = cm::prstm>
  STM_HD queue_status dequeue(std::uint32_t tid, T& out, tx_counters* counters = nullptr, CM cm = CM{}) const {
    transaction<CM, detail::txq_config> tx(locks_, tid, cm);
    queue_status s = queue_status::busy;
    T got{};
    for (tx.begin();;) {
      s = dequeue(tx, got);
      if (s == queue_status::empty) tx.semantic_conflict();
      if (tx.commit() || !tx.retry()) break;
    }
    if (counters) detail::accumulate(*counters, tx.counters());
    if (tx.committed()) {
      out = got;
      return queue_status::success;
    }
    return s == queue_status::empty ? s : queue_status::busy;
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
};

template <class T>
class tx_queue {
  static_assert(detail::is_queue_item<T>, "queue items are trivially copyable 4- or 8-byte types");

 public:
  using value_type = T;
  using ref_type = tx_queue_ref<T>;

  /// A queue with its own lock table (one lock per word). capacity in [1, 2^30].
  tx_queue(backend where, std::uint64_t capacity) : storage_(where, checked_words(capacity)) {
    // No commit clock: a transaction reads at most four locations (see the stack).
    own_locks_.emplace(where, storage_.size(), storage_.data(), sizeof(std::uint64_t), 1, /*clock=*/false);
    init(capacity, own_locks_->ref());
  }
  /// A queue whose transactions use the caller's lock table `shared` (so that
  /// they compose with transactions on other data of that table). The table
  /// must outlive the queue's use.
  tx_queue(backend where, std::uint64_t capacity, const lock_table& shared) : storage_(where, checked_words(capacity)) {
    if (shared.where() != where) throw usage_error("tx queue and its lock table must live on the same backend");
    init(capacity, shared.ref());
  }

  tx_queue(tx_queue&&) noexcept = default;
  tx_queue& operator=(tx_queue&&) noexcept = default;

  ref_type ref() const { return ref_; }
  std::uint32_t capacity() const { return ref_.capacity(); }
  backend where() const { return storage_.where(); }

  /// Items in the queue (between launches only).
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
  void init(std::uint64_t capacity, lock_table_ref locks) {
    ref_.storage_ = storage_.data();
    ref_.capacity_ = capacity;
    ref_.locks_ = locks;
  }

  buffer<std::uint64_t> storage_;
  std::optional<lock_table> own_locks_;
  ref_type ref_{};
};

static_assert(std::is_trivially_copyable_v<tx_queue_ref<std::uint32_t>>);
static_assert(std::is_trivially_copyable_v<tx_queue_ref<double>>);

}  // namespace stm
