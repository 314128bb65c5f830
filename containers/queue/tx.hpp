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
// Operations: enqueue/dequeue on a caller's transaction (composed); the
// one-shot enqueue(tid, x)/dequeue(tid, x), combined per warp; and the bulk
// forms enqueue_bulk/dequeue_bulk (n items in order, either in a caller's
// transaction or, n <= max_lanes, in a transaction of their own: the one a
// warp's leader runs).
//
// Combining (one-shot calls only). The lanes of a warp that call r.enqueue on
// one queue together (detail/lane_group.hpp: the active mask, split by queue)
// are served by ONE transaction, run by their lowest lane with its thread id:
// it reads head h and tail t, writes the k items of the k lanes, in lane
// order, into slots t .. t+n-1, n = min(k, capacity - (t - h)), and the tail
// t + n; lanes of rank < n return ok, the others full. A dequeue group alike:
// n = min(k, t - h) items from slot h on, head h + n, lane of rank j gets
// item j, the others empty. One transaction on the tail (head) per warp
// instead of one per lane: 32 times fewer commits on the hot word, each
// covering a warp. On the CPU a warp is one thread: the same code with k = 1.
// A lane's composed operations are never merged (they belong to its own
// transaction). The group's transaction also keeps the other end out of its
// read set while that is safe: an enqueue loads the head outside the
// transaction, a lower bound at its commit since the head only grows, and
// reads it through the transaction only when that bound leaves too little
// room for all k; a dequeue alike with the tail. So enqueues and dequeues do
// not abort each other unless the queue is nearly full or nearly empty.
//
// Guarantees
//  - Linearizable FIFO queue. A composed or bulk operation takes effect when
//    its transaction commits. A combined group takes effect at its leader's
//    commit, as n enqueues (dequeues) in lane order immediately followed by
//    the k - n that find the queue full (empty), which they do: after the n,
//    the queue holds capacity items (none). That is a valid linearization:
//    every one of the k calls was pending at that commit (each lane entered
//    the call before the gather that precedes the transaction and leaves
//    after the shuffle that follows its commit), and the commit is one
//    instant at which the transaction's reads all hold. A group that places
//    (takes) nothing commits read-only, so full and empty are facts of the
//    state at that commit's validation. A group that leaves lanes full
//    (empty) has read the head (tail) through the transaction, so that answer
//    is exact too; one that took the other end as a lower bound placed
//    (took) all k, which the bound guarantees at the commit (enqueue_run and
//    dequeue_run say why). The combined dequeue's descriptor is not opaque
//    (its up to 34 reads are validated once, at commit): its body computes
//    only a count clamped to [0, k] and slot positions modulo the capacity
//    from what it read, and hands nothing out before the commit.
//  - Progress is the contention manager's: with cm::prstm some transaction
//    always commits. No call waits for another thread (progress::any is
//    enough): the lanes of a group wait only for their own leader's
//    transaction. Operations of one kind still serialize on head or tail, but
//    a warp's worth at a time.
//  - Thread ids are the transactions' priorities: distinct among concurrent
//    callers and below stm::lock_word::max_threads.
//  - Counters are 64 bits (no rollover in practice); the capacity is any
//    number in [1, 2^30].
//
// Composition: as every transactional container (containers/stack/tx.hpp
// says what a caller must do): containers used in one transaction share one
// lock table (the `shared` constructor) and the transaction is built on it;
// the descriptor is opaque and has room (enqueue: 2 reads, 2 writes; dequeue:
// 3 reads, 1 write; a bulk form of n: 2 + n reads or n + 1 writes). The
// design and its argument: docs/container-boosting.md#queue.
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
#include "containers/queue/detail/lane_group.hpp"
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
  /// Lanes one combined one-shot transaction serves at most (a warp).
  static constexpr std::uint32_t max_lanes = 32;
  /// The combined one-shot transactions' descriptors. An enqueue reads the
  /// tail (and the head, unless bounded) and writes up to max_lanes slots and
  /// the tail. A dequeue reads the head (and the tail, unless bounded) and up
  /// to max_lanes slots and writes the head; its reads are
  /// validated at commit only (Opaque = false: no re-validation per read; the
  /// header says why its body tolerates an inconsistent snapshot). (The
  /// enqueue's read set has room for 8: the batched scans of a set larger
  /// than 8 load 8 entries at a time, and GCC's -Warray-bounds does not see
  /// that a read set of 2 is never indexed past its count.)
  using enqueue_config = tx_config<8, max_lanes + 1>;
  using dequeue_config = tx_config<max_lanes + 2, 1, /*Opaque=*/false>;

  /// Inside the caller's open transaction tx (built on locks()): ok, full (the
  /// transaction goes on; abort it or not), or aborted (tx aborted on a
  /// conflict; leave the body, TX_END retries it). 2 reads, 2 writes.
  template <class Tx, class = containers::detail::if_transaction<Tx>>
  STM_HD op_status enqueue(Tx& tx, const T& v) const {
    STM_COMPOSED_OP(Tx, tx);
    std::uint32_t placed = 0;
    return enqueue_run(tx, &v, 1, placed);
  }

  /// Inside the caller's open transaction: ok (out set), empty, or aborted.
  /// 3 reads, 1 write.
  template <class Tx, class = containers::detail::if_transaction<Tx>>
  STM_HD op_status dequeue(Tx& tx, T& out) const {
    STM_COMPOSED_OP(Tx, tx);
    std::uint32_t taken = 0;
    word got[1] = {0};
    const op_status s = dequeue_run(tx, got, 1, taken);
    if (s == op_status::ok) out = detail::word_to_item<T>(got[0]);
    return s;
  }

  /// Inside the caller's open transaction: enqueue items[0..n) in order, as
  /// far as there is room. ok (all n), full (only the first `placed` fit: the
  /// queue is full after them), or aborted. 2 reads, placed + 1 writes.
  template <class Tx, class = containers::detail::if_transaction<Tx>>
  STM_HD op_status enqueue_bulk(Tx& tx, const T* items, std::uint32_t n, std::uint32_t& placed) const {
    placed = 0;
    STM_COMPOSED_OP(Tx, tx);
    return enqueue_run(tx, items, n, placed);
  }

  /// Inside the caller's open transaction: dequeue up to n items into
  /// out[0..taken), front first. ok (all n), empty (only `taken` were there:
  /// the queue is empty after them), or aborted (out's contents then mean
  /// nothing). 2 + taken reads, 1 write (none when taken is 0).
  template <class Tx, class = containers::detail::if_transaction<Tx>>
  STM_HD op_status dequeue_bulk(Tx& tx, T* out, std::uint32_t n, std::uint32_t& taken) const {
    taken = 0;
    STM_COMPOSED_OP(Tx, tx);
    return dequeue_run(tx, out, n, taken);
  }

  /// A transaction of its own, combined with the warp's other lanes that
  /// enqueue into this queue at the same call: ok or full. counters
  /// (optional) accumulates the commits and aborts of the transaction that
  /// served the call, on the lane that ran it (the group's lowest lane; the
  /// others add nothing).
  STM_HD op_status enqueue(std::uint32_t tid, const T& v, tx_counters* counters = nullptr) const {
    const detail::lane_group g = detail::group_of(key());
    // Gather the group's items at the leader, in lane order (every lane of
    // the group takes part in every shuffle).
    word items[platform::warp_size()];
    const word mine = detail::item_to_word<word>(v);
    std::uint32_t j = 0;
    for (std::uint32_t rest = g.mask; rest != 0; rest &= rest - 1, ++j) {
      const word w = platform::shfl(g.mask, mine, platform::lowest_bit(rest));
      if (g.leads()) items[j] = w;
    }
    std::uint32_t placed = 0;
    op_status rest_status = op_status::full;
    if (g.leads()) rest_status = enqueue_tx(tid, items, g.size, placed, counters);
    placed = platform::shfl(g.mask, placed, g.leader);
    rest_status = static_cast<op_status>(platform::shfl(g.mask, static_cast<std::uint32_t>(rest_status), g.leader));
    return g.rank < placed ? op_status::ok : rest_status;
  }

  /// A transaction of its own, combined with the warp's other lanes that
  /// dequeue from this queue at the same call: ok (out set) or empty.
  /// counters: as enqueue's.
  STM_HD op_status dequeue(std::uint32_t tid, T& out, tx_counters* counters = nullptr) const {
    const detail::lane_group g = detail::group_of(key());
    word items[platform::warp_size()] = {};  // filled by the leader (GCC cannot tell which entries)
    std::uint32_t taken = 0;
    op_status rest_status = op_status::empty;
    if (g.leads()) rest_status = dequeue_tx(tid, items, g.size, taken, counters);
    taken = platform::shfl(g.mask, taken, g.leader);
    rest_status = static_cast<op_status>(platform::shfl(g.mask, static_cast<std::uint32_t>(rest_status), g.leader));
    // Hand out the items: the lane of rank j gets item j (every lane of the
    // group takes part in every shuffle).
    word got = 0;
    for (std::uint32_t j = 0; j < taken; ++j) {
      const word w = platform::shfl(g.mask, g.leads() ? items[j] : word(0), g.leader);
      if (g.rank == j) got = w;
    }
    if (g.rank >= taken) return rest_status;
    out = detail::word_to_item<T>(got);
    return op_status::ok;
  }

  /// A transaction of its own (the one a warp's leader runs for its group)
  /// that enqueues items[0..n) in order, as far as there is room: ok (all n),
  /// full (only the first `placed` fit: the queue was full after them), or
  /// rejected (n above max_lanes: nothing done). counters: as enqueue's.
  STM_HD op_status enqueue_bulk(std::uint32_t tid, const T* items, std::uint32_t n, std::uint32_t& placed,
                                tx_counters* counters = nullptr) const {
    placed = 0;
    if (n > max_lanes) return op_status::rejected;
    const op_status rest = enqueue_tx(tid, items, n, placed, counters);
    return placed == n ? op_status::ok : rest;
  }
  /// A transaction of its own that dequeues up to n items into out[0..taken),
  /// front first: ok (all n), empty (only `taken` were there), or rejected
  /// (n above max_lanes: nothing done).
  STM_HD op_status dequeue_bulk(std::uint32_t tid, T* out, std::uint32_t n, std::uint32_t& taken,
                                tx_counters* counters = nullptr) const {
    taken = 0;
    if (n > max_lanes) return op_status::rejected;
    const op_status rest = dequeue_tx(tid, out, n, taken, counters);
    return taken == n ? op_status::ok : rest;
  }

  /// The lock table its transactions use (build composed transactions on it).
  STM_HD lock_table_ref locks() const { return locks_; }
  STM_HD std::uint32_t capacity() const { return static_cast<std::uint32_t>(capacity_); }

 private:
  template <class>
  friend class tx_queue;

  STM_HD std::uint64_t* head() const { return &storage_[detail::txq_head_at]; }
  STM_HD std::uint64_t* tail() const { return &storage_[detail::txq_tail_at]; }
  STM_HD std::uint64_t* slot(std::uint64_t position) const {
    return &storage_[detail::txq_slots_at + position % capacity_];
  }
  /// What tells this queue's lanes from other queues' in a warp.
  STM_HD std::uint64_t key() const { return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(storage_)); }

  template <class Item>
  STM_HD static word to_word(const Item& x) {
    if constexpr (std::is_same_v<Item, word>) return x;
    else return detail::item_to_word<word>(x);
  }
  template <class Item>
  STM_HD static Item from_word(word w) {
    if constexpr (std::is_same_v<Item, word>) return w;
    else return detail::word_to_item<Item>(w);
  }

  /// The enqueue algorithm (composed, bulk and combined forms): read tail
  /// and head; place min(n, room) items at tail, tail + 1, ...; advance the
  /// tail past them. Items: T or its word.
  ///
  /// bound_head (the one-shot transactions only): the head is first loaded
  /// outside the transaction, as a lower bound. The head only grows and a
  /// value written back is a committed one, so at this transaction's commit
  /// (which validates the tail t) the head is at least that value and the
  /// room at least capacity - (t - bound). When that is room for all n, the
  /// head stays out of the read set: the enqueue then does not conflict with
  /// the dequeues that commit meanwhile. Otherwise (some items may not fit)
  /// the head is read through the transaction, so that full is exact.
  template <class Tx, class Item>
  STM_HD op_status enqueue_run(Tx& tx, const Item* items, std::uint32_t n, std::uint32_t& placed,
                               bool bound_head = false) const {
    placed = 0;
    const std::uint64_t t = tx.read(tail());
    if (!tx.active()) return op_status::aborted;
    std::uint64_t h = 0;
    bool roomy = false;
    if (bound_head) {
      h = atomic_ref<std::uint64_t>(*head()).load(memory_order_relaxed);
      roomy = t - h <= capacity_ && capacity_ - (t - h) >= n;  // (a head beyond t: a stale t; read it exactly)
    }
    if (!roomy) {
      h = tx.read(head());
      if (!tx.active()) return op_status::aborted;
    }
    // On a consistent snapshot t - h <= capacity; the test keeps the count
    // in range whatever was read.
    const std::uint64_t used = t - h;
    const std::uint64_t room = used < capacity_ ? capacity_ - used : 0;
    const std::uint32_t fit = room < n ? static_cast<std::uint32_t>(room) : n;
    for (std::uint32_t i = 0; i < fit; ++i) tx.write(slot(t + i), static_cast<std::uint64_t>(to_word(items[i])));
    if (fit != 0) tx.write(tail(), t + fit);
    if (!tx.active()) return op_status::aborted;
    placed = fit;
    return fit == n ? op_status::ok : op_status::full;
  }

  /// The dequeue algorithm: read head and tail; read min(n, t - h) slots
  /// from head on; advance the head past them. With Opaque = false (the
  /// combined form) the values may come from different moments until commit
  /// validates them: the count stays within [0, n], the slots within the
  /// ring, and nothing read leaves the transaction before it commits.
  ///
  /// bound_tail (the one-shot transactions only): as enqueue_run's
  /// bound_head, with the tail. The tail only grows: when a value of it
  /// loaded outside the transaction shows n items from the head h (which the
  /// commit validates), at least n are there at the commit, and their slots
  /// (read through the transaction) hold them then; the tail stays out of
  /// the read set and the dequeue does not conflict with the enqueues that
  /// commit meanwhile. Otherwise the tail is read through the transaction, so
  /// that empty is exact.
  template <class Tx, class Item>
  STM_HD op_status dequeue_run(Tx& tx, Item* out, std::uint32_t n, std::uint32_t& taken,
                               bool bound_tail = false) const {
    taken = 0;
    const std::uint64_t h = tx.read(head());
    if (!tx.active()) return op_status::aborted;
    std::uint64_t t = 0;
    bool plenty = false;
    if (bound_tail) {
      t = atomic_ref<std::uint64_t>(*tail()).load(memory_order_relaxed);
      plenty = t - h <= capacity_ && t - h >= n;
    }
    if (!plenty) {
      t = tx.read(tail());
      if (!tx.active()) return op_status::aborted;
    }
    const std::uint64_t there = t - h;
    const std::uint32_t take = there < n ? static_cast<std::uint32_t>(there) : n;
    for (std::uint32_t i = 0; i < take; ++i) {
      const std::uint64_t w = tx.read(slot(h + i));
      if (!tx.active()) return op_status::aborted;
      out[i] = from_word<Item>(static_cast<word>(w));
    }
    if (take != 0) tx.write(head(), h + take);
    if (!tx.active()) return op_status::aborted;
    taken = take;
    return take == n ? op_status::ok : op_status::empty;
  }

  /// The leader's transaction for k <= max_lanes enqueueing lanes (or a
  /// one-shot bulk call): places a prefix of items[0..k). Returns the answer
  /// of the lanes beyond it: full (the queue was full at the commit), or
  /// capacity should the descriptor overflow (placed is then 0). Nothing
  /// fits: the transaction ends read-only, its commit validating that the
  /// queue was full at that instant.
  template <class Item>
  STM_HD op_status enqueue_tx(std::uint32_t tid, const Item* items, std::uint32_t k, std::uint32_t& placed,
                              tx_counters* counters) const {
    return one_shot<enqueue_config>(tid, counters, placed, op_status::full, [&](auto& tx) {
      enqueue_run(tx, items, k, placed, /*bound_head=*/true);
    });
  }

  /// The leader's transaction for k <= max_lanes dequeueing lanes (or a
  /// one-shot bulk call): takes up to k items into items[0..taken). Returns
  /// the answer of the lanes beyond them: empty, or capacity should the
  /// descriptor overflow (taken is then 0).
  template <class Item>
  STM_HD op_status dequeue_tx(std::uint32_t tid, Item* items, std::uint32_t k, std::uint32_t& taken,
                              tx_counters* counters) const {
    return one_shot<dequeue_config>(tid, counters, taken, op_status::empty, [&](auto& tx) {
      dequeue_run(tx, items, k, taken, /*bound_tail=*/true);
    });
  }

  /// run(tx) in a transaction of its own under Config, retried until it
  /// commits or cannot be retried; `moved` (what run placed or took) is 0
  /// unless it committed. Returns `rest` once committed (the answer of the
  /// lanes run could not serve), else capacity.
  template <class Config, class Run>
  STM_HD op_status one_shot(std::uint32_t tid, tx_counters* counters, std::uint32_t& moved, op_status rest,
                            Run&& run) const {
    transaction<CM, Config> tx(locks_, tid, cm_);
    for (tx.begin();;) {
      run(tx);
      if (tx.commit() || !tx.retry()) break;
    }
    if (counters) *counters += tx.counters();
    if (!tx.committed()) moved = 0;
    return tx.committed() ? rest : op_status::capacity;
  }

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
