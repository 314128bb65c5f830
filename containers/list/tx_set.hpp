// SPDX-License-Identifier: Apache-2.0
// containers/list/tx_set.hpp - stm::list::tx_set: a sorted set whose
// operations are PR-STM transactions (stm/tx.hpp) that conflict only on their
// key, over Harris' lock-free list (harris_set): optimistic transactional
// boosting (containers/detail/boost.hpp, docs/container-boosting.md).
//
//   stm::list::tx_set set(stm::backend::gpu, capacity, {0, 9999, 2500});
//   auto s = set.ref();                      // manager stm::cm::prstm; set.ref<CM, Config>() or set.ref(cm)
//   // device / thread body, tid distinct per concurrent thread, < 2^19:
//   stm::op_status st = s.insert(tid, key);  // ok | exists | full (pool exhausted)
//   s.remove(tid, key);                      // ok | not_found
//   s.contains(tid, key);                    // ok (present) | not_found
//   set.reclaim();                           // host, between launches
//
//   // composed: the insert and the caller's counter commit together
//   stm::list::node_slot slot;               // outside the body, one per call site
//   stm::transaction<> tx(s.locks(), tid);
//   TX_BEGIN(tx) {
//     if (s.insert(tx, key, slot) != stm::op_status::ok) TX_SEMANTIC_ABORT(tx);
//     TX_WRITE(tx, &count[0], TX_READ(tx, &count[0]) + 1);
//   } TX_END(tx);
//   s.settle(tx, slot);                      // right after the transaction, always
//
// Layout: harris_set's nodes and bucket sentinels, changed only by its own
// lock-free algorithm, and one key lock (a 64-bit STM word) per key of the
// hint's range (keys outside it alias onto those words, modulo their count,
// which is at most max(64, 2 x capacity) and 2^22). An operation reads its
// key's lock through the transaction, looks the key up in the Harris list
// with plain loads, and an insert or remove that changes the set writes the
// lock (pending); settle() applies the change with Harris' insert or remove
// after the commit. So two operations conflict only when their keys share a
// lock word (never for two keys of the hint's range), and nothing of the
// list is read or written through the transaction. One-shot updates run in
// the set's one_shot_mode (set_one_shot; containers/detail/boost.hpp): by
// default direct, where one that changes nothing answers from a lookup and
// one that changes the set commits its key lock by one CAS on the lock's STM
// lock word and applies at once from the window its search found
// (docs/container-boosting.md, "One-shot updates").
//
// Guarantees: every update is one commit (its own, or the caller's
// transaction's) whose effect every other transaction and lookup sees from its commit on
// (they wait while it is pending), so operations are linearizable, and a
// composed transaction is atomic and opaque (docs/container-boosting.md).
// A one-shot contains() runs no transaction: a pending key answers with its
// view, another with a lookup between two equal loads of its key's lock.
// Progress is the contention manager's for updates; a lookup waits only
// while a commit writes back (never for a pending key's owner).
// On a caller's transaction the operations return the same statuses, or
// aborted when that transaction aborted (leave the body: TX_END retries
// it), or capacity when this transaction already changed another key that
// shares the key's lock word (nothing changed; only for keys outside the
// hint's range). The caller settles every insert and remove (node_slot)
// right after the transaction, before its thread runs another operation
// on the set: until then every other update of the key aborts and retries.
//
// Composition: as every transactional container (containers/stack/tx.hpp
// says what a caller must do): construct the set with the `shared` lock table
// of the other containers, build the transaction on s.locks(), with an opaque
// descriptor. An operation reads one word and writes at most one.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cmp/prstm.hpp"
#include "containers/detail/boost.hpp"
#include "containers/detail/tx_ops.hpp"
#include "containers/list/harris_set.hpp"
#include "stm/lock_table.hpp"
#include "stm/tx_macros.hpp"

namespace stm::list {

/// Default descriptor of tx_set operations: an operation reads one word and
/// writes at most one; opaque (a composed caller's answers are facts).
using tx_set_config = tx_config<4, 2, true>;

/// Kernel handle of a tx_set: CM and Config are the manager and the
/// descriptor of its one-shot operations.
template <class CM = cm::prstm, class Config = tx_set_config>
class tx_set_ref : public containers::detail::boosted_ref<tx_set_ref<CM, Config>, CM, Config> {
  using base = containers::detail::boosted_ref<tx_set_ref<CM, Config>, CM, Config>;
  using base::keys_;
  using base::locks_;
  using base::one_shot;
  using base::one_shot_update;
  using base::update_in;

 public:
  using base::locks;

  /// One-shot (its own commit, in the set's one_shot_mode): ok, exists, or
  /// full (no free node until reclaim(); the direct and precheck modes take
  /// a node only for a key they insert).
  STM_HD op_status insert(std::uint32_t tid, std::uint32_t key, tx_counters* counters = nullptr) const {
    return one_shot_update(tid, key, /*insert=*/true, counters);
  }

  /// One-shot (its own commit, in the set's one_shot_mode): ok or not_found.
  STM_HD op_status remove(std::uint32_t tid, std::uint32_t key, tx_counters* counters = nullptr) const {
    return one_shot_update(tid, key, /*insert=*/false, counters);
  }

  /// ok (present) or not_found: a lookup between two equal loads of the
  /// key's lock (no transaction; counters unchanged).
  STM_HD op_status contains(std::uint32_t /*tid*/, std::uint32_t key, tx_counters* /*counters*/ = nullptr) const {
    return containers::detail::lookup(locks_, keys_, key, present_fn()) ? op_status::ok : op_status::not_found;
  }

  /// On the caller's open transaction (built on locks(), opaque): ok, exists,
  /// full, capacity, or aborted. Call settle(tx, slot) after the transaction.
  template <class Tx, class = containers::detail::if_transaction<Tx>>
  STM_HD op_status insert(Tx& tx, std::uint32_t key, node_slot& slot) const {
    STM_COMPOSED_OP(Tx, tx);
    return update_in(tx, key, containers::detail::update_kind::insert, slot);
  }
  /// On the caller's open transaction: ok, not_found, capacity, or aborted.
  /// Call settle(tx, slot) after the transaction.
  template <class Tx, class = containers::detail::if_transaction<Tx>>
  STM_HD op_status remove(Tx& tx, std::uint32_t key, node_slot& slot) const {
    STM_COMPOSED_OP(Tx, tx);
    return update_in(tx, key, containers::detail::update_kind::remove, slot);
  }
  /// On the caller's open transaction: ok (present), not_found, capacity, or
  /// aborted.
  template <class Tx, class = containers::detail::if_transaction<Tx>>
  STM_HD op_status contains(Tx& tx, std::uint32_t key) const {
    STM_COMPOSED_OP(Tx, tx);
    containers::detail::observed o;
    const op_status st = containers::detail::observe(tx, keys_, key, present_fn(), o);
    if (st != op_status::ok) return st;
    return o.present ? op_status::ok : op_status::not_found;
  }

  /// After a transaction that ran insert(tx, ..., slot) or remove(tx, ...,
  /// slot), whatever its outcome, right after it: applies the committed
  /// change to the list and frees the key, gives back an unused node, and
  /// empties the slot for the next transaction.
  template <class Tx>
  STM_HD void settle(const Tx& tx, node_slot& slot) const {
    bool used = false;
    if (tx.committed() && slot.attempt == tx.attempts() + 1) {
      const std::uint32_t node_id = slot.node;
      containers::detail::settle_key(
          keys_, slot.lock, slot.key, tx.thread_id(), node_id != node::head,
          // insert_node links node_id, or retires it itself had the key been
          // present (never: the key was pending, so nobody else changed it).
          [&](std::uint32_t k, containers::detail::key_lock::word_t) {
            set_.insert_node(k, node_id);
            used = true;
          },
          [&](std::uint32_t k) { set_.remove(0, k); },
          [](std::uint32_t, containers::detail::key_lock::word_t) {});  // a set never assigns
    }
    if (slot.node != node::head && !used) node_pool().retire(slot.node);  // never published
    slot = node_slot{};
  }

 private:
  friend class tx_set;
  friend base;
  static constexpr bool has_values = false;

  STM_HD const detail::pool_ref& node_pool() const { return set_.pool_; }

  /// The native lookup (harris_set's wait-free contains).
  struct present {
    harris_set_ref set;
    STM_HD bool operator()(std::uint32_t key) const { return set.contains(0, key) == op_status::ok; }
  };
  STM_HD present present_fn() const { return present{set_}; }

  /// The direct one-shot updates' native steps (boosted_ref::direct):
  /// Harris' search from the key's bucket, keeping the window, and the
  /// change from that window, calling applied() once the key's presence has
  /// changed (an insert's link, a remove's mark, before its unlinking); or,
  /// without carry, the plain insert or remove and then applied().
  using position = detail::window;
  STM_HD bool find_native(std::uint32_t key, position& w) const { return set_.find_window(key, w); }
  template <class Applied>
  STM_HD void apply_native(std::uint32_t key, bool insert, std::uint32_t node_id, const position& w, bool carry,
                           Applied&& applied) const {
    if (carry) {
      if (insert) {
        set_.insert_from(key, node_id, w);  // its link is its last step
        applied();
      } else {
        set_.remove_from(key, w, applied);
      }
      return;
    }
    if (insert) set_.insert_node(key, node_id);
    else set_.remove(0, key);
    applied();
  }

  harris_set_ref set_{};
};
static_assert(std::is_trivially_copyable_v<tx_set_ref<>>);

/// Host owner: the Harris list (with its bucket sentinels), the key locks,
/// and the lock table (its own, one lock per key lock, or a shared one).
class tx_set : public containers::detail::one_shot_choice {  // set_one_shot(), one_shot()
 public:
  tx_set(backend where, std::uint64_t capacity, bucket_hint hint = {})
      : set_(where, capacity, hint),
        keys_(where, hint.lo, key_lock_count(capacity, hint), 1),
        locks_(own_table(where, keys_)) {}
  /// A set whose transactions use the caller's lock table `shared`, so that
  /// they compose with other containers and data of that table; the table
  /// must outlive the set's use.
  tx_set(backend where, std::uint64_t capacity, const lock_table& shared, bucket_hint hint = {})
      : set_(where, capacity, hint), keys_(where, hint.lo, key_lock_count(capacity, hint), 1), locks_(where, shared) {}

  /// The kernel handle, whose one-shot operations run under manager cm with
  /// descriptor Config.
  template <class CM = cm::prstm, class Config = tx_set_config>
  tx_set_ref<CM, Config> ref(CM cm = CM{}) const {
    tx_set_ref<CM, Config> r;
    r.set_ = set_.ref();
    r.keys_ = keys_.ref();
    r.locks_ = locks_.ref();
    r.cm_ = cm;
    r.mode_ = mode_;
    return r;
  }
  std::uint64_t capacity() const { return set_.capacity(); }
  std::uint32_t key_locks() const { return keys_.size(); }
  std::uint64_t reclaim() { return set_.reclaim(); }
  /// Quiescent point: replace the contents by `keys` (harris_set::assign).
  void assign(std::vector<std::uint32_t> keys) { set_.assign(std::move(keys)); }
  /// Quiescent point: the keys in order.
  std::vector<std::uint32_t> contents() const { return set_.contents(); }
  /// Quiescent point: the list's check, then that no key lock is pending.
  std::string check(std::vector<std::uint32_t>* keys = nullptr) const {
    std::string e = set_.check(keys);
    return e.empty() ? keys_.check() : e;
  }
  const lock_table& locks() const { return locks_.table(); }
  /// After a launch every lock must be free again (tests).
  bool locks_free() const { return locks_.all_free(); }

 private:
  /// One key lock per key of the hint's range, at most max(64, 2 x capacity)
  /// and 2^22 (keys beyond alias).
  static std::uint64_t key_lock_count(std::uint64_t capacity, const bucket_hint& hint) {
    const std::uint64_t span = std::uint64_t(hint.hi) - hint.lo + 1;
    const std::uint64_t limit = std::min<std::uint64_t>(std::max<std::uint64_t>(64, 2 * capacity), 1u << 22);
    return std::min(span, limit);
  }
  /// Without a commit clock: an operation reads one word, so opaque reads
  /// need no clock, and update commits skip its contended increment.
  static lock_table own_table(backend where, const containers::detail::key_locks& keys) {
    return lock_table(where, keys.words(), keys.ref().words, sizeof(containers::detail::key_lock::word_t),
                      lock_table::auto_spread(keys.words()), /*clock=*/false);
  }
  harris_set set_;
  containers::detail::key_locks keys_;
  containers::detail::tx_locks locks_;
};

}  // namespace stm::list
