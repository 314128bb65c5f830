// SPDX-License-Identifier: Apache-2.0
// containers/skiplist/tx_skiplist.hpp - stm::skiplist::tx_skiplist: an ordered
// set of 32-bit keys whose operations are PR-STM transactions (stm/tx.hpp)
// that conflict only on their keys (and a count on its range), over the
// lock-free skiplist (lockfree_skiplist): optimistic transactional boosting
// (containers/detail/boost.hpp, docs/container-boosting.md).
//
//   stm::skiplist::tx_skiplist set(stm::backend::gpu, capacity);   // 5 levels, one key lock per key
//   auto s = set.ref();                    // manager stm::cm::prstm; set.ref<CM, Config>() or set.ref(cm)
//   // device / thread body, tid distinct per concurrent thread, < 2^19:
//   stm::op_status st = s.insert(tid, key);  // ok | exists | full (pool exhausted)
//   s.remove(tid, key);                      // ok | not_found
//   s.contains(tid, key);                    // ok (present) | not_found
//   std::uint32_t n; s.count(tid, lo, hi, n);  // ok (n keys in [lo, hi))
//   set.reclaim();                           // host, between launches
//   // as a map (a 32-bit value per key; a set insert gives a new key value 0):
//   s.put(tid, key, value);                  // ok (inserted or assigned) | full
//   std::uint32_t v; s.get(tid, key, v);     // ok (v set) | not_found
//   s.erase(tid, key);                       // ok | not_found
//   // on a caller's transaction (opaque descriptor), as tx_set:
//   //   s.insert(tx, key, slot), s.remove(tx, key, slot), s.contains(tx, key), s.count(tx, lo, hi, n),
//   //   s.put(tx, key, value, slot), s.get(tx, key, v), s.erase(tx, key, slot),
//   //   s.for_each(tx, lo, hi, [&](std::uint32_t key, std::uint32_t value) { ... });
//   //   then s.settle(tx, slot) for every insert, remove, put and erase, right after the transaction
//
// Layout: lockfree_skiplist's towers (detail/towers.hpp), changed only by its
// own lock-free algorithm, and the key locks: 64-bit STM words, key k on
// word (k / keys_per_lock) mod count, count = max(64, 2 x capacity) /
// keys_per_lock, at most 2^22 (so with keys_per_lock 1, the default, keys
// 0 .. count-1 each have their own). An operation reads its key's lock
// through the transaction and searches the skiplist with plain loads; an
// insert or remove that changes the set writes the lock (pending), and
// settle() applies the change with the lock-free insert or remove after the
// commit. Two operations on keys with different lock words never conflict;
// nothing of the skiplist is read or written through the transaction.
// One-shot updates (insert, remove, erase) run in the set's one_shot_mode
// (set_one_shot; containers/detail/boost.hpp): by default direct, where one
// that changes nothing answers from a lookup and one that changes the set
// commits its key lock by one CAS on the lock's STM lock word (a single-word
// transaction's commit without the descriptor) and applies at once from the
// path its search found (docs/container-boosting.md, "One-shot updates").
//
// Values (the map): the skiplist's nodes carry a 32-bit value word
// (detail/towers.hpp), and each key lock a value word beside it, an STM word
// too: a put writes the value word and the key lock (pending, "staged")
// through the transaction, a get on a pending key of its own transaction
// reads the value word back, a one-shot get of another's committed pending
// put reads it once the commit's write-back is over, and settle() inserts the
// key with the value or assigns it with the native put (one atomic store).
// An erase is a remove. Everything else is the set's protocol: a put
// conflicts with the operations on its key only.
//
// count(lo, hi) reads the key lock of every key in [lo, hi) (each word once:
// at most count words), walks level 0, and then reads one more word (the
// guard) through the transaction, which re-checks the earlier reads: a count
// conflicts with the updates of its range only. for_each(lo, hi, f) reads the
// same key locks, walks level 0 with the values, and hands f its entries in
// batches of 16, each after one more read of the guard (f sees checked
// entries only; it may be called again on a retry, like the body). The one-shot count and
// contains run no transaction: the walk or lookup between two passes over
// the locks that find them unchanged, pending keys counted by their views.
//
// Guarantees: every update is one commit (its own, or the caller's
// transaction's) whose effect every other transaction, lookup and count sees from its
// commit on (they wait while it is pending), so operations are linearizable,
// and a composed transaction is atomic and opaque (docs/container-boosting.md).
// Progress is the contention manager's for updates; a lookup or a one-shot
// count waits only while a commit writes back (never for a pending key's
// owner; a count also for more than 8 pending keys of its range at once). On a caller's
// transaction the operations return the same statuses, or aborted when that
// transaction aborted (leave the body: TX_END retries it), or capacity when
// this transaction already changed another key on the same lock word
// (nothing changed), or, for count, changed more than 8 keys of the range
// or the range needs more reads than its descriptor holds (the transaction
// then aborts with abort_cause::capacity). The caller settles every insert
// and remove (node_slot) right after the transaction, before its thread
// runs another operation on the set: until then every other update of the
// key aborts and retries.
//
// Composition: as every transactional container (containers/stack/tx.hpp
// says what a caller must do): construct the set with the `shared` lock table
// of the other containers, build the transaction on s.locks(), with an opaque
// descriptor. An insert, remove, contains or get reads one word and writes at
// most one (a put two: its value and the key lock); a count reads one per key
// lock of its range plus one, a for_each also one per 16 entries.
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
#include "containers/skiplist/lockfree_skiplist.hpp"
#include "stm/lock_table.hpp"
#include "stm/tx_macros.hpp"

namespace stm::skiplist {

/// Default descriptor of tx_skiplist's one-shot updates: one read, one
/// write; opaque.
using tx_skiplist_config = tx_config<4, 2, true>;

/// Kernel handle of a tx_skiplist: CM and Config are the manager and the
/// descriptor of its one-shot updates.
template <class CM = cm::prstm, class Config = tx_skiplist_config>
class tx_skiplist_ref : public containers::detail::boosted_ref<tx_skiplist_ref<CM, Config>, CM, Config> {
  using base = containers::detail::boosted_ref<tx_skiplist_ref<CM, Config>, CM, Config>;
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

  /// n = how many keys k with lo <= k < hi the set holds (0 when hi <= lo):
  /// ok. No transaction (see the header; counters unchanged).
  STM_HD op_status count(std::uint32_t /*tid*/, std::uint32_t lo, std::uint32_t hi, std::uint32_t& n,
                         tx_counters* /*counters*/ = nullptr) const {
    n = containers::detail::count_lookup(locks_, keys_, lo, hi, walk_fn());
    return op_status::ok;
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
  /// On the caller's open transaction: ok (n = keys in [lo, hi), this
  /// transaction's own changes included), capacity, or aborted.
  template <class Tx, class = containers::detail::if_transaction<Tx>>
  STM_HD op_status count(Tx& tx, std::uint32_t lo, std::uint32_t hi, std::uint32_t& n) const {
    STM_COMPOSED_OP(Tx, tx);
    return containers::detail::count_in(tx, keys_, lo, hi, walk_fn(), n);
  }

  // --- the map: a 32-bit value per key (a set insert gives a new key 0) ---

  /// Insert key with value or assign value to it, one transaction of its
  /// own: ok, or full (no free node until reclaim()).
  STM_HD op_status put(std::uint32_t tid, std::uint32_t key, std::uint32_t value,
                       tx_counters* counters = nullptr) const {
    node_slot slot;
    return one_shot(tid, key, containers::detail::update_kind::put, slot, counters, value);
  }
  /// ok (value set) or not_found, without a transaction (as contains).
  STM_HD op_status get(std::uint32_t /*tid*/, std::uint32_t key, std::uint32_t& value,
                       tx_counters* /*counters*/ = nullptr) const {
    return containers::detail::lookup_value(locks_, keys_, key, getter{set_}, value) ? op_status::ok
                                                                                   : op_status::not_found;
  }
  /// Remove key and its value: remove().
  STM_HD op_status erase(std::uint32_t tid, std::uint32_t key, tx_counters* counters = nullptr) const {
    return remove(tid, key, counters);
  }

  /// On the caller's open transaction: ok, full, capacity, or aborted. Call
  /// settle(tx, slot) after the transaction.
  template <class Tx, class = containers::detail::if_transaction<Tx>>
  STM_HD op_status put(Tx& tx, std::uint32_t key, std::uint32_t value, node_slot& slot) const {
    STM_COMPOSED_OP(Tx, tx);
    return update_in(tx, key, containers::detail::update_kind::put, slot, value);
  }
  /// On the caller's open transaction: ok (value set), not_found, capacity,
  /// or aborted.
  template <class Tx, class = containers::detail::if_transaction<Tx>>
  STM_HD op_status get(Tx& tx, std::uint32_t key, std::uint32_t& value) const {
    STM_COMPOSED_OP(Tx, tx);
    containers::detail::observed o;
    std::uint32_t native_value = 0;
    const op_status st = containers::detail::observe(
        tx, keys_, key, [&](std::uint32_t k) { return getter{set_}(k, native_value); }, o);
    if (st != op_status::ok) return st;
    if (!o.present) return op_status::not_found;
    value = o.own ? containers::detail::own_value(tx, keys_, o.lock, o.value) : native_value;
    return tx.active() ? op_status::ok : op_status::aborted;
  }
  /// On the caller's open transaction: remove(tx, key, slot).
  template <class Tx, class = containers::detail::if_transaction<Tx>>
  STM_HD op_status erase(Tx& tx, std::uint32_t key, node_slot& slot) const {
    return remove(tx, key, slot);
  }
  /// On the caller's open transaction: f(key, value) for every key k with lo
  /// <= k < hi, in increasing order, this transaction's own changes included
  /// (containers/detail/boost.hpp, for_each_in: f sees only checked
  /// snapshots, in batches; the body reruns on a retry). ok, capacity, or
  /// aborted (leave the body).
  template <class Tx, class F, class = containers::detail::if_transaction<Tx>>
  STM_HD op_status for_each(Tx& tx, std::uint32_t lo, std::uint32_t hi, F&& f) const {
    STM_COMPOSED_OP(Tx, tx);
    return containers::detail::for_each_in(tx, keys_, lo, hi, walk_values{set_}, f);
  }

  /// After a transaction that ran insert, remove, erase or put on (tx, ...,
  /// slot), whatever its outcome, right after it: applies the committed
  /// change to the skiplist and frees the key, gives back an unused node, and
  /// empties the slot for the next transaction.
  template <class Tx>
  STM_HD void settle(const Tx& tx, node_slot& slot) const {
    bool used = false;
    if (tx.committed() && slot.attempt == tx.attempts() + 1) {
      const std::uint32_t node_id = slot.node;
      const std::uint32_t lock = slot.lock;
      // The committed value of a put (the value word this thread wrote back).
      auto staged = [&](containers::detail::key_lock::word_t v) -> std::uint32_t {
        if (!containers::detail::key_lock::staged(v)) return 0u;
        return static_cast<std::uint32_t>(
            atomic_ref<containers::detail::key_lock::word_t>(*keys_.value_word(lock)).load(memory_order_relaxed));
      };
      containers::detail::settle_key(
          keys_, lock, slot.key, tx.thread_id(), node_id != node::head,
          // insert_node links node_id, or retires it itself had the key been
          // present (never: the key was pending, so nobody else changed it).
          // The value goes into the node before insert_node publishes it.
          [&](std::uint32_t k, containers::detail::key_lock::word_t v) {
            t().value_at(node_id).store(staged(v), memory_order_relaxed);
            set_.insert_node(k, node_id);
            used = true;
          },
          [&](std::uint32_t k) { set_.remove(0, k); },
          // The key is present and nobody else changes it: put assigns.
          [&](std::uint32_t k, containers::detail::key_lock::word_t v) { set_.put(0, k, staged(v)); });
    }
    if (slot.node != node::head && !used) t().pool.retire(slot.node);  // never published
    slot = node_slot{};
  }

  STM_HD std::uint32_t levels() const { return set_.levels(); }

 private:
  friend class tx_skiplist;
  friend base;
  static constexpr bool has_values = true;

  STM_HD const detail::towers_ref& t() const { return set_.t_; }
  STM_HD const list::detail::pool_ref& node_pool() const { return set_.t_.pool; }

  /// The native lookup and range walk (lockfree_skiplist's wait-free ones).
  struct present {
    lockfree_skiplist_ref set;
    STM_HD bool operator()(std::uint32_t key) const { return set.contains(0, key) == op_status::ok; }
  };
  struct walk {
    lockfree_skiplist_ref set;
    template <class Visit>
    STM_HD void operator()(std::uint32_t lo, std::uint32_t hi, Visit&& visit) const {
      set.for_each_in(lo, hi, visit);
    }
  };
  /// The native get (the value too).
  struct getter {
    lockfree_skiplist_ref set;
    STM_HD bool operator()(std::uint32_t key, std::uint32_t& value) const { return set.get(0, key, value) == op_status::ok; }
  };
  struct walk_values {
    lockfree_skiplist_ref set;
    template <class Visit>
    STM_HD void operator()(std::uint32_t lo, std::uint32_t hi, Visit&& visit) const {
      set.for_each_value_in(lo, hi, visit);
    }
  };
  STM_HD present present_fn() const { return present{set_}; }
  STM_HD walk walk_fn() const { return walk{set_}; }

  /// The direct one-shot updates' native steps (boosted_ref::direct): the
  /// search that keeps the path (the native insert's find(), which unlinks
  /// marked nodes on its way), and the change from that path, calling
  /// applied() once the key's presence has changed (the level-0 link or
  /// mark) and before the upper levels' links or the unlinking search; or,
  /// without carry, the plain insert or remove and then applied(). A set
  /// insert gives the key value 0.
  using position = lockfree_skiplist_ref::path;
  STM_HD bool find_native(std::uint32_t key, position& p) const { return set_.find(key, p); }
  template <class Applied>
  STM_HD void apply_native(std::uint32_t key, bool insert, std::uint32_t node_id, position& p, bool carry,
                           Applied&& applied) const {
    if (insert) t().value_at(node_id).store(0u, memory_order_relaxed);  // published by the level-0 link
    if (carry) {
      if (insert) set_.insert_node_from(key, node_id, p, applied);
      else set_.remove_from(key, p, applied);
      return;
    }
    if (insert) set_.insert_node(key, node_id);
    else set_.remove(0, key);
    applied();
  }

  lockfree_skiplist_ref set_{};
};
static_assert(std::is_trivially_copyable_v<tx_skiplist_ref<>>);

/// Host owner: the lock-free skiplist, the key locks, and the lock table
/// (its own, one lock per key lock, or a shared one).
class tx_skiplist : public containers::detail::one_shot_choice {  // set_one_shot(), one_shot()
 public:
  /// capacity: user nodes (>= 1); levels: 1 .. max_levels; keys_per_lock:
  /// consecutive keys sharing a key lock (a power of two; 1: each key its
  /// own); lock_spread: lock words per slot of the own lock table
  /// (stm/lock_table.hpp; 0: automatic).
  tx_skiplist(backend where, std::uint64_t capacity, std::uint32_t levels = default_levels,
              std::uint32_t keys_per_lock = 1, std::uint32_t lock_spread = 0)
      : set_(where, capacity, levels),
        keys_(where, 0, key_lock_count(capacity, keys_per_lock), keys_per_lock, /*values=*/true),
        locks_(lock_table(where, keys_.words(), keys_.ref().words, sizeof(containers::detail::key_lock::word_t),
                          lock_spread ? lock_spread : lock_table::auto_spread(keys_.words()), /*clock=*/false)) {}
  /// A skiplist whose transactions use the caller's lock table `shared`, so
  /// that they compose with other containers and data of that table; the
  /// table must outlive the skiplist's use.
  tx_skiplist(backend where, std::uint64_t capacity, const lock_table& shared, std::uint32_t levels = default_levels)
      : set_(where, capacity, levels), keys_(where, 0, key_lock_count(capacity, 1), 1, /*values=*/true), locks_(where, shared) {}

  /// The kernel handle, whose one-shot updates run in this set's
  /// one_shot_mode (the transactions under manager cm with descriptor Config).
  template <class CM = cm::prstm, class Config = tx_skiplist_config>
  tx_skiplist_ref<CM, Config> ref(CM cm = CM{}) const {
    tx_skiplist_ref<CM, Config> r;
    r.set_ = set_.ref();
    r.keys_ = keys_.ref();
    r.locks_ = locks_.ref();
    r.cm_ = cm;
    r.mode_ = mode_;
    return r;
  }
  std::uint64_t capacity() const { return set_.capacity(); }
  std::uint32_t levels() const { return set_.levels(); }
  std::uint32_t num_locks() const { return locks_.table().size(); }
  std::uint32_t key_locks() const { return keys_.size(); }
  std::uint64_t reclaim() { return set_.reclaim(); }
  /// Quiescent point: empty the set and free every node (the key locks stay clean).
  void clear() { set_.clear(); }
  /// Quiescent point: the contents become `keys` (values[i] each, or 0), in
  /// linear time after a sort (the key locks stay clean: nothing is pending).
  void assign(std::vector<std::uint32_t> keys, std::vector<std::uint32_t> values = {}) {
    set_.assign(std::move(keys), std::move(values));
  }
  /// Quiescent point: the keys in order.
  std::vector<std::uint32_t> contents() const { return list::detail::checked_contents(*this, "tx_skiplist"); }
  /// Quiescent point: the skiplist's check, then that no key lock is pending.
  std::string check(std::vector<std::uint32_t>* keys = nullptr) const {
    std::string e = set_.check(keys);
    return e.empty() ? keys_.check() : e;
  }
  std::vector<std::uint32_t> free_nodes() const { return set_.free_nodes(); }
  /// Quiescent point: (key, value) pairs in key order (the map's contents).
  std::vector<std::pair<std::uint32_t, std::uint32_t>> entries() const { return set_.entries(); }
  const lock_table& locks() const { return locks_.table(); }
  /// After a launch every lock must be free again (tests).
  bool locks_free() const { return locks_.all_free(); }

 private:
  /// max(64, 2 x capacity) keys' worth of locks, at most 2^22 words.
  static std::uint64_t key_lock_count(std::uint64_t capacity, std::uint32_t keys_per_lock) {
    if (keys_per_lock == 0 || (keys_per_lock & (keys_per_lock - 1)) != 0)
      throw usage_error("keys per lock must be a power of two, got " + std::to_string(keys_per_lock));
    const std::uint64_t keys = std::max<std::uint64_t>(64, 2 * capacity);
    return std::max<std::uint64_t>(1, std::min<std::uint64_t>((keys + keys_per_lock - 1) / keys_per_lock, 1u << 22));
  }
  lockfree_skiplist set_;
  containers::detail::key_locks keys_;
  containers::detail::tx_locks locks_;
};

}  // namespace stm::skiplist
