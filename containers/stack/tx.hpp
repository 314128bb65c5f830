// SPDX-License-Identifier: Apache-2.0
// containers/stack/tx.hpp - stm::stack::tx_stack: the STM-backed stack, an
// array and a top index read and written only through PR-STM transactions,
// under any contention manager.
//
//   stm::stack::tx_stack<int> s(stm::backend::gpu, 1 << 16);
//   auto r = s.ref();                          // manager: stm::cm::prstm; s.ref<CM>() or s.ref(cm) for another
//   ... in a kernel: r.push(tid, 42); int v; r.pop(tid, v);     // one transaction each
//   ... or inside a caller's transaction (composition, containers/status.hpp):
//   stm::transaction<> tx(r.locks(), tid);
//   TX_BEGIN(tx) {
//     int v;
//     if (r.pop(tx, v) != stm::op_status::ok) TX_SEMANTIC_ABORT(tx);
//     TX_WRITE(tx, &sum[0], TX_READ(tx, &sum[0]) + v);
//   } TX_END(tx);
//
// Operations: push(tid, v) -> ok | full; pop(tid, out) -> ok | empty; the same
// on a caller's transaction tx -> the same, or aborted when tx aborted (leave
// the body: TX_END retries it). One-shot forms take an optional tx_counters*
// that accumulates their transaction's commits and aborts.
//
// Guarantees
//  - Linearizable LIFO stack: each operation is one serializable transaction
//    (reads top, reads/writes one cell, writes top) that commits at one
//    instant inside its call; a composed operation takes effect when its
//    caller's transaction commits, together with everything else it did.
//  - Progress: that of the contention manager (PR-STM: the highest-priority
//    running transaction is never aborted by a lower one, so some operation
//    always completes; no thread waits on another).
//  - Thread ids: distinct among concurrent callers and below
//    stm::lock_word::max_threads (the transaction's priority).
//  - Values: any trivially copyable 4- or 8-byte T; nothing reserved.
//  - full / empty end a one-shot transaction without retry (semantic abort).
//  - Elimination (one-shot operations only): a one-shot push or pop whose
//    transaction has aborted `patience` times leaves it (a semantic abort:
//    nothing written) and tries an elimination slot (detail/exchanger.hpp,
//    Hendler, Shavit and Yerushalmi's elimination back-off, as the scan stack
//    uses it): a push offers its value in a slot for offer_ns, a pop takes an
//    offer. A pair that meets returns ok to both without touching the stack:
//    it is linearized at the pop's take, push first and pop right after, a
//    moment inside both calls at which the pair leaves the stack as it was;
//    so the stack stays a linearizable LIFO, and every transaction (composed
//    ones included) sees a state that some order of the operations explains.
//    An operation that meets nobody runs its transaction again. One
//    exception to the bounded stack's sequential specification: a push that
//    meets a pop while the stack is full succeeds (the pair behaves as on a
//    stack with room for one more); a push offers only when a plain load of
//    the top shows room, so this needs a pop and a push to meet while other
//    pushes fill the stack's last cell. Composed
//    operations never eliminate (their effect belongs to the caller's
//    commit). The elimination slots are the owner's (elimination_config;
//    slots = 0: none).
//
// Composition (the same for tx_stack, tx_queue, tx_set and tx_skiplist): a
// transaction that uses several containers (and the caller's own words) must
// be built on the one lock table they all use: construct them with the same
// `shared` lock_table and build the transaction on r.locks(). A transaction
// spans one table only: a container with a table of its own cannot join a
// transaction on another, because its one-shot operations would not see the
// composed ones' locks: an operation on a
// transaction of another table returns op_status::rejected and changes
// nothing (with STM_CHECKS, as in debug builds, the program stops: rule
// composed-table, stm/detail/check.hpp). Any address maps to a lock of a table
// (stm/lock_table.hpp), so the caller's words need no table of their own, but
// while such transactions run every access to those words goes through
// transactions on that same table. The caller's descriptor must have room for
// everything (push: 1 read, 2 writes; pop: 2 reads, 1 write) and be opaque
// (the default; the operations static_assert it), and its manager should be
// the one the handles were given.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "cmp/prstm.hpp"
#include "containers/detail/tx_ops.hpp"
#include "containers/stack/common.hpp"
#include "containers/stack/detail/exchanger.hpp"
#include "stm/buffer.hpp"
#include "stm/lock_table.hpp"
#include "stm/tx.hpp"
#include "stm/tx_macros.hpp"

namespace stm::stack {

/// Elimination of a tx_stack's one-shot operations (see the header).
struct tx_elimination_config {
  std::uint32_t slots = 1024;   ///< elimination slots; 0: no elimination
  std::uint32_t patience = 2;   ///< aborted attempts before an operation tries a slot (0: one try first, then the transaction)
  std::uint32_t offer_ns = 2048;  ///< how long a push waits in a slot
};

/// Kernel handle of a tx_stack; CM is the manager of its one-shot operations
/// (containers/status.hpp says why the manager is chosen there).
template <class T, class CM = cm::prstm>
class tx_stack_ref {
  static_assert(is_stack_value<T>, "stack values are trivially copyable 4- or 8-byte types");
  using word = detail::word_t<T>;

 public:
  using value_type = T;
  using contention_manager = CM;
  using config = tx_config<2, 2>;  // top + one cell

  /// One transaction of its own: ok or full.
  STM_HD op_status push(std::uint32_t tid, T value, tx_counters* counters = nullptr) const {
    return exec(tid, op_kind::push, value, counters);
  }
  /// One transaction of its own: ok (out set) or empty.
  STM_HD op_status pop(std::uint32_t tid, T& out, tx_counters* counters = nullptr) const {
    return exec(tid, op_kind::pop, out, counters);
  }
  /// push or pop by kind (value: pushed, or popped into).
  STM_HD op_status exec(std::uint32_t tid, op_kind kind, T& value, tx_counters* counters = nullptr) const {
    // patience 0: one try at a slot first, then the transaction until it ends.
    if (n_slots_ != 0 && patience_ == 0 && try_slot(kind, value, slot_for(tid, 0))) return eliminated();
    for (std::uint32_t round = 1;; ++round) {
      transaction<CM, config> tx(locks_, tid, cm_);
      op_status st = op_status::ok;
      T got{};
      bool eliminate = false;
      TX_BEGIN(tx) {
        // Contended: leave (nothing written) and try an elimination slot.
        if (n_slots_ != 0 && patience_ != 0 && tx.attempts() >= patience_) {
          eliminate = true;
          TX_SEMANTIC_ABORT(tx);
        }
        st = kind == op_kind::push ? push(tx, value) : pop(tx, got);
        if (st == op_status::full || st == op_status::empty) TX_SEMANTIC_ABORT(tx);
      }
      TX_END(tx);
      if (counters) *counters += tx.counters();
      if (!eliminate) {
        // The sets hold two entries at most: a capacity abort cannot happen.
        if (st == op_status::ok && kind == op_kind::pop) value = got;
        return st;
      }
      if (try_slot(kind, value, slot_for(tid, round))) return eliminated();
    }
  }

  /// Inside the caller's open transaction tx (built on locks()): ok, full, or
  /// aborted (tx aborted; leave the body).
  template <class Tx, class = containers::detail::if_transaction<Tx>>
  STM_HD op_status push(Tx& tx, const T& value) const {
    STM_COMPOSED_OP(Tx, tx);
    const word t = tx.read(top());
    if (!tx.active()) return op_status::aborted;
    if (t >= capacity_) return op_status::full;
    tx.write(&cells_[t], detail::bits_of(value));
    tx.write(top(), static_cast<word>(t + 1));
    return tx.active() ? op_status::ok : op_status::aborted;
  }
  /// Inside the caller's open transaction: ok (out set), empty, or aborted.
  template <class Tx, class = containers::detail::if_transaction<Tx>>
  STM_HD op_status pop(Tx& tx, T& out) const {
    STM_COMPOSED_OP(Tx, tx);
    const word t = tx.read(top());
    if (!tx.active()) return op_status::aborted;
    if (t == 0) return op_status::empty;
    const word v = tx.read(&cells_[t - 1]);
    tx.write(top(), static_cast<word>(t - 1));
    if (!tx.active()) return op_status::aborted;
    out = detail::value_of<T>(v);
    return op_status::ok;
  }

  /// The lock table its transactions use (build composed transactions on it).
  STM_HD lock_table_ref locks() const { return locks_; }
  STM_HD std::uint32_t capacity() const { return capacity_; }

 private:
  template <class>
  friend class tx_stack;
  STM_HD word* top() const { return cells_ + capacity_; }
  /// A slot drawn from the thread id and the round (as the scan stack's).
  STM_HD detail::exchange_slot* slot_for(std::uint32_t tid, std::uint32_t round) const {
    const std::uint32_t x = (tid * 2654435761u) ^ (round * 40503u + 0x9E3779B9u);
    return slots_ + (x >> 7) % n_slots_;
  }
  /// A push offers its value in slot (when a plain load of the top shows
  /// room: a full stack is the transaction's to answer, see the header); a
  /// pop takes an offer into value. True when the pair met.
  STM_HD bool try_slot(op_kind kind, T& value, detail::exchange_slot* slot) const {
    if (kind == op_kind::push) {
      if (atomic_ref<word>(*top()).load(memory_order_relaxed) >= capacity_) return false;
      return detail::exchange_push(slot, detail::bits_of(value), offer_ns_);
    }
    std::uint64_t bits = 0;
    if (!detail::exchange_pop(slot, bits)) return false;
    value = detail::value_of<T>(static_cast<word>(bits));
    return true;
  }
  /// One eliminated operation (counted for eliminated()): ok.
  STM_HD op_status eliminated() const {
    atomic_ref<std::uint64_t>(*eliminated_).fetch_add(1, memory_order_relaxed);
    return op_status::ok;
  }
  word* cells_ = nullptr;  // cells_[capacity_] is the top index
  std::uint32_t capacity_ = 0;
  detail::exchange_slot* slots_ = nullptr;
  std::uint64_t* eliminated_ = nullptr;  // operations completed by elimination
  std::uint32_t n_slots_ = 0, patience_ = 0, offer_ns_ = 0;
  lock_table_ref locks_{};
  CM cm_{};
};

/// Move-only owner of an STM-backed stack: the cells, the top and the lock
/// table covering them (its own: one lock per cell, so that push and pop
/// conflict only on the cells they touch and on the top; or a shared one).
template <class T>
class tx_stack {
 public:
  using word = detail::word_t<T>;
  template <class CM = cm::prstm>
  using ref_type = tx_stack_ref<T, CM>;

  /// capacity: 1 .. 2^31 values; usage_error otherwise.
  tx_stack(backend where, std::uint64_t capacity, tx_elimination_config elim = {})
      : cells_(where, checked(capacity) + 1),
        // No commit clock: a one-shot transaction reads at most two locations,
        // so opacity is cheap without it, and it would be a second hot word.
        locks_(lock_table(where, capacity + 1, cells_.data(), sizeof(word), 1, /*clock=*/false)),
        capacity_(static_cast<std::uint32_t>(capacity)),
        elim_(elim),
        slots_(where, std::max<std::uint32_t>(elim.slots, 1)),
        eliminated_(where, 1) {
    reset_elimination();
  }
  /// A stack whose transactions use the caller's lock table `shared`, so that
  /// they compose with other containers and data of that table; the table
  /// must outlive the stack's use.
  tx_stack(backend where, std::uint64_t capacity, const lock_table& shared, tx_elimination_config elim = {})
      : cells_(where, checked(capacity) + 1),
        locks_(where, shared),
        capacity_(static_cast<std::uint32_t>(capacity)),
        elim_(elim),
        slots_(where, std::max<std::uint32_t>(elim.slots, 1)),
        eliminated_(where, 1) {
    reset_elimination();
  }
  /// Operations completed by elimination so far (quiescent point).
  std::uint64_t eliminated() const { return eliminated_.to_vector()[0]; }

  /// The kernel handle, whose one-shot operations run under manager cm.
  template <class CM = cm::prstm>
  tx_stack_ref<T, CM> ref(CM cm = CM{}) const {
    tx_stack_ref<T, CM> r;
    r.cells_ = cells_.data();
    r.capacity_ = capacity_;
    r.slots_ = slots_.data();
    r.eliminated_ = eliminated_.data();
    r.n_slots_ = elim_.slots;
    r.patience_ = elim_.patience;
    r.offer_ns_ = elim_.offer_ns;
    r.locks_ = locks_.ref();
    r.cm_ = cm;
    return r;
  }
  std::uint32_t capacity() const { return capacity_; }
  backend where() const { return cells_.where(); }
  const lock_table& locks() const { return locks_.table(); }
  /// After a launch every lock must be free again (tests).
  bool locks_free() const { return locks_.all_free(); }

  /// Values on the stack, top first (quiescent only).
  std::vector<T> contents() const {
    const auto c = cells_.to_vector();
    const word top = c[capacity_];
    if (top > capacity_) throw std::logic_error("tx stack: top index beyond the capacity");
    std::vector<T> out;
    for (word i = top; i-- > 0;) out.push_back(detail::value_of<T>(c[i]));
    return out;
  }

 private:
  static std::size_t checked(std::uint64_t capacity) {
    if (capacity == 0) throw usage_error("a stack needs a capacity of at least 1");
    if (capacity > (1u << 31)) throw usage_error("tx stack capacity is at most 2^31 values, got " + std::to_string(capacity));
    return static_cast<std::size_t>(capacity);
  }
  void reset_elimination() {
    slots_.upload(std::vector<detail::exchange_slot>(slots_.size(), detail::exchange_slot{}));
    eliminated_.upload(std::vector<std::uint64_t>{0});
  }
  buffer<word> cells_;
  containers::detail::tx_locks locks_;
  std::uint32_t capacity_;
  tx_elimination_config elim_;
  buffer<detail::exchange_slot> slots_;
  buffer<std::uint64_t> eliminated_;
};

static_assert(std::is_trivially_copyable_v<tx_stack_ref<int>>);

}  // namespace stm::stack
