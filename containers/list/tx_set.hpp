// containers/list/tx_set.hpp - stm::list::tx_set: a sorted set whose
// operations are PR-STM transactions (stm/tx.hpp), under any contention
// manager.
//
//   stm::list::tx_set set(stm::backend::gpu, capacity, {0, 9999, 2500});
//   auto s = set.ref();                      // manager stm::cm::prstm; set.ref<CM, Config>() or set.ref(cm)
//   // device / thread body, tid distinct per concurrent thread, < 2^19:
//   stm::op_status st = s.insert(tid, key);  // ok | exists | full (pool exhausted) | capacity
//   s.remove(tid, key);                      // ok | not_found | capacity
//   s.contains(tid, key);                    // ok (present) | not_found | capacity
//   set.reclaim();                           // host, between launches
//
//   // composed: the insert and the caller's counter commit together
//   stm::list::node_slot slot;               // outside the body, one per call site
//   stm::transaction<> tx(s.locks(), tid);
//   TX_BEGIN(tx) {
//     if (s.insert(tx, key, slot) != stm::op_status::ok) TX_SEMANTIC_ABORT(tx);
//     TX_WRITE(tx, &count[0], TX_READ(tx, &count[0]) + 1);
//   } TX_END(tx);
//   s.settle(tx, slot);                      // after the transaction, always
//
// Layout: the same nodes and bucket sentinels as harris_set (one 64-bit word
// per node: key and next), read and written only through the transaction; a
// remove unlinks the node by writing its predecessor, and the node is reused
// after reclaim() (the quiescent point), so an invisible reader never sees a
// node change identity under it.
//
// Guarantees: every operation is one transaction (its own, or the caller's),
// so operations are linearizable (serializable transactions whose effects
// appear at commit). Progress is the contention manager's (PR-STM: the
// system makes progress). On a caller's transaction the operations return
// the same statuses, or aborted when that transaction aborted (leave the body:
// TX_END retries it); insert and remove take a node_slot that settle()
// resolves after the transaction (node_pool.hpp says why).
//
// Composition: as every transactional container (containers/stack/tx.hpp
// says what a caller must do): construct the set with the `shared` lock table
// of the other containers, build the transaction on s.locks(), with an opaque
// descriptor that has room for the walks below.
//
// Read-set needs: a traversal reads one word per node it passes, so an
// operation needs (nodes between its bucket sentinel and its key) + 1 reads.
// With B buckets over N keys that is about N/B + 1; without buckets it is the
// list length. Config::max_reads bounds it: a longer walk ends with status
// capacity (the transaction aborts with abort_cause::capacity; nothing is
// changed), never silently. Inserts write 2 words (the new node and its
// predecessor), removes 2 (the victim, marked, and its predecessor).
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cmp/prstm.hpp"
#include "containers/detail/tx_ops.hpp"
#include "containers/list/harris_set.hpp"
#include "stm/lock_table.hpp"
#include "stm/tx_macros.hpp"

namespace stm::list {

/// Default descriptor of tx_set operations: 64 reads (walks of up to 63
/// nodes), 2 writes, opacity on (the walk never follows an inconsistent next).
using tx_set_config = tx_config<64, 2, true>;

/// Kernel handle of a tx_set: CM and Config are the manager and the
/// descriptor of its one-shot operations.
template <class CM = cm::prstm, class Config = tx_set_config>
class tx_set_ref {
 public:
  using contention_manager = CM;
  using config = Config;

  /// One transaction of its own: ok, exists, full (no free node until
  /// reclaim()), or capacity (the walk overflowed the read set).
  STM_HD op_status insert(std::uint32_t tid, std::uint32_t key, tx_counters* counters = nullptr) const {
    node_slot slot;
    slot.node = pool().allocate();
    if (slot.node == node::head) return op_status::full;
    transaction<CM, Config> tx(locks_, tid, cm_);
    op_status st = op_status::ok;
    TX_BEGIN(tx) {
      st = insert_in(tx, key, slot);
      if (st == op_status::exists) TX_SEMANTIC_ABORT(tx);
    }
    TX_END(tx);
    settle(tx, slot);
    if (counters) *counters += tx.counters();
    if (tx.committed()) return op_status::ok;
    return st == op_status::exists ? st : op_status::capacity;
  }

  /// One transaction of its own: ok, not_found, or capacity.
  STM_HD op_status remove(std::uint32_t tid, std::uint32_t key, tx_counters* counters = nullptr) const {
    node_slot slot;
    transaction<CM, Config> tx(locks_, tid, cm_);
    op_status st = op_status::ok;
    TX_BEGIN(tx) {
      st = remove_in(tx, key, slot);
      if (st == op_status::not_found) TX_SEMANTIC_ABORT(tx);
    }
    TX_END(tx);
    settle(tx, slot);
    if (counters) *counters += tx.counters();
    if (tx.committed()) return op_status::ok;
    return st == op_status::not_found ? st : op_status::capacity;
  }

  /// One transaction of its own: ok (present), not_found, or capacity.
  STM_HD op_status contains(std::uint32_t tid, std::uint32_t key, tx_counters* counters = nullptr) const {
    transaction<CM, Config> tx(locks_, tid, cm_);
    op_status st = op_status::ok;
    TX_BEGIN(tx) { st = contains_in(tx, key); }
    TX_END(tx);
    if (counters) *counters += tx.counters();
    return tx.committed() ? st : op_status::capacity;
  }

  /// On the caller's open transaction (built on locks(), opaque): ok, exists,
  /// full, or aborted. Call settle(tx, slot) after the transaction.
  template <class Tx, class = containers::detail::if_transaction<Tx>>
  STM_HD op_status insert(Tx& tx, std::uint32_t key, node_slot& slot) const {
    STM_COMPOSED_OP(Tx, tx);
    return insert_in(tx, key, slot);
  }
  /// On the caller's open transaction: ok, not_found, or aborted. Call
  /// settle(tx, slot) after the transaction.
  template <class Tx, class = containers::detail::if_transaction<Tx>>
  STM_HD op_status remove(Tx& tx, std::uint32_t key, node_slot& slot) const {
    STM_COMPOSED_OP(Tx, tx);
    return remove_in(tx, key, slot);
  }
  /// On the caller's open transaction: ok (present), not_found, or aborted.
  template <class Tx, class = containers::detail::if_transaction<Tx>>
  STM_HD op_status contains(Tx& tx, std::uint32_t key) const {
    STM_COMPOSED_OP(Tx, tx);
    return contains_in(tx, key);
  }

  /// After a transaction that ran insert(tx, ..., slot) or remove(tx, ...,
  /// slot), whatever its outcome: hands slot's node on (node_slot) and
  /// empties the slot for the next transaction.
  template <class Tx>
  STM_HD void settle(const Tx& tx, node_slot& slot) const {
    detail::settle(pool(), tx, slot);
  }

  /// The lock table its transactions use (build composed transactions on it).
  STM_HD lock_table_ref locks() const { return locks_; }

 private:
  friend class tx_set;

  /// What the sorted walk saw: prev is the last node ordered before the key
  /// (a bucket sentinel at least), cur its successor (the tail, or the first
  /// node ordered at or after the key), pw and cw their words (cw: 0 for the
  /// tail).
  struct window {
    std::uint32_t prev, cur;
    node::word_t pw, cw;
    STM_HD bool holds(std::uint32_t key) const { return cur != node::tail && !node::flag(cw) && node::key(cw) == key; }
  };

  STM_HD const detail::pool_ref& pool() const { return set_.pool_; }

  /// The one transactional walk of every operation, from key's bucket
  /// sentinel; false when a read ended the attempt (!tx.active()).
  template <class Tx>
  STM_HD bool walk(Tx& tx, std::uint32_t key, window& w) const {
    node::word_t* words = pool().words;
    const std::uint64_t target = harris_set_ref::order(key, false);
    w.prev = set_.bucket_start(key);
    w.pw = tx.read(&words[w.prev]);
    w.cur = node::next(w.pw);
    w.cw = 0;
    if (!tx.active()) return false;
    while (w.cur != node::tail) {
      w.cw = tx.read(&words[w.cur]);
      if (!tx.active()) return false;
      if (harris_set_ref::order_of(w.cw) >= target) break;
      w.prev = w.cur;
      w.pw = w.cw;
      w.cur = node::next(w.cw);
    }
    return true;
  }

  template <class Tx>
  STM_HD op_status insert_in(Tx& tx, std::uint32_t key, node_slot& slot) const {
    slot.attempt = 0;
    slot.unlinks = false;
    window w;
    if (!walk(tx, key, w)) return op_status::aborted;
    if (w.holds(key)) return op_status::exists;
    if (slot.node == node::head && (slot.node = pool().allocate()) == node::head) return op_status::full;
    tx.write(&pool().words[slot.node], node::make(key, w.cur));
    tx.write(&pool().words[w.prev], node::with_next(w.pw, slot.node));
    if (!tx.active()) return op_status::aborted;
    slot.attempt = tx.attempts() + 1;
    return op_status::ok;
  }

  template <class Tx>
  STM_HD op_status remove_in(Tx& tx, std::uint32_t key, node_slot& slot) const {
    slot.attempt = 0;
    slot.unlinks = true;
    window w;
    if (!walk(tx, key, w)) return op_status::aborted;
    if (!w.holds(key)) return op_status::not_found;
    // Mark the victim as well as unlinking it: every pair of conflicting
    // updates then writes a common word (an insert or remove next to the
    // victim writes the victim or its predecessor), so they are ordered by
    // write-write conflicts on the pre-locks, not only by read validation.
    tx.write(&pool().words[w.cur], node::with_mark(w.cw));
    tx.write(&pool().words[w.prev], node::with_next(w.pw, node::next(w.cw)));
    if (!tx.active()) return op_status::aborted;
    slot.node = w.cur;
    slot.attempt = tx.attempts() + 1;
    return op_status::ok;
  }

  template <class Tx>
  STM_HD op_status contains_in(Tx& tx, std::uint32_t key) const {
    window w;
    if (!walk(tx, key, w)) return op_status::aborted;
    return w.holds(key) ? op_status::ok : op_status::not_found;
  }

  harris_set_ref set_{};
  lock_table_ref locks_{};
  CM cm_{};
};
static_assert(std::is_trivially_copyable_v<tx_set_ref<>>);

/// Host owner: the node pool (with its bucket sentinels) and the lock table
/// (its own, one lock per node, or a shared one).
class tx_set {
 public:
  tx_set(backend where, std::uint64_t capacity, bucket_hint hint = {})
      : set_(where, capacity, hint),
        locks_(lock_table(where, capacity + hint.buckets + 1, set_.ref().pool_.words, sizeof(node::word_t))) {}
  /// A set whose transactions use the caller's lock table `shared`, so that
  /// they compose with other containers and data of that table; the table
  /// must outlive the set's use.
  tx_set(backend where, std::uint64_t capacity, const lock_table& shared, bucket_hint hint = {})
      : set_(where, capacity, hint), locks_(where, shared) {}

  /// The kernel handle, whose one-shot operations run under manager cm with
  /// descriptor Config.
  template <class CM = cm::prstm, class Config = tx_set_config>
  tx_set_ref<CM, Config> ref(CM cm = CM{}) const {
    tx_set_ref<CM, Config> r;
    r.set_ = set_.ref();
    r.locks_ = locks_.ref();
    r.cm_ = cm;
    return r;
  }
  std::uint64_t capacity() const { return set_.capacity(); }
  std::uint64_t reclaim() { return set_.reclaim(); }
  /// Quiescent point: replace the contents by `keys` (harris_set::assign).
  void assign(std::vector<std::uint32_t> keys) { set_.assign(std::move(keys)); }
  /// Quiescent point: the keys in order.
  std::vector<std::uint32_t> contents() const { return set_.contents(); }
  std::string check(std::vector<std::uint32_t>* keys = nullptr) const { return set_.check(keys); }
  const lock_table& locks() const { return locks_.table(); }
  /// After a launch every lock must be free again (tests).
  bool locks_free() const { return locks_.all_free(); }

 private:
  harris_set set_;
  containers::detail::tx_locks locks_;
};

}  // namespace stm::list
