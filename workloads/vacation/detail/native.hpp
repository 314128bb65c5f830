// SPDX-License-Identifier: Apache-2.0
// workloads/vacation/detail/native.hpp - the native baseline: the same
// transactions without the STM, under one try-lock per record.
//
// Why per-record locks: every transaction changes several words of several
// records together (an item's free and used, a customer's list, count and
// bill), which single-word atomics cannot make atomic; a lock per record is
// the finest grain that can. Every item record and every customer record has
// a lock word (0 free, 1 held). A transaction try-locks the records it writes, all or nothing: when
// one is held it releases what it took and reports a retryable abort, so no
// thread ever waits for a lock (no deadlock whatever the order, and no lane of
// a warp spinning on a lock that another lane of the same warp holds). The
// transaction table drives the retries and the postponements exactly as it
// drives the STM's, so one run compares the two on the same entries.
//
// make_reservation selects optimistically: it reads prices and free units
// without locks (relaxed loads), then locks the customer and the chosen items
// and checks each again; if a chosen item changed price or sold out meanwhile
// it releases everything and retries. Reads of items it did not choose are
// not re-checked (a native application would not pay for it either), so the
// selection is not serializable against concurrent updates the way the STM's
// is; every invariant the verifier checks still holds. query reads without
// locks.
//
// Synchronization: lock CAS (acquire) pairs with the unlock store (release)
// of the previous holder, so a holder sees every write made under the lock
// before; data words are relaxed atomics (the optimistic readers race with
// writers by design).
#pragma once

#include <cstdint>

#include "stm/detail/tx_core.hpp"
#include "stm/manager.hpp"
#include "stm/platform.hpp"
#include "stm/stats.hpp"
#include "workloads/vacation/detail/model.hpp"

namespace stm::workloads::vacation::detail {

/// What the transaction table needs of a descriptor (stm::outcome_of and
/// drain_blocks), for the native bodies: a status, a thread id, a pause.
struct native_tx {
  std::uint32_t tid = 0;
  std::uint32_t attempt = 0;
  manager_tuning tune{};  ///< its backoff_max_ns caps pause_ns (0: default_backoff_ns)
  tx_status st = tx_status::active;
  tx_counters c{};

  STM_HD void set_thread_id(std::uint32_t t) { tid = t; }
  STM_HD std::uint32_t thread_id() const { return tid; }
  STM_HD void begin() {
    st = tx_status::active;
    attempt = 0;
  }
  STM_HD void start_attempt() {
    if (st == tx_status::aborted) ++attempt;
    else attempt = 0;
    st = tx_status::active;
  }
  STM_HD bool committed() const { return st == tx_status::committed; }
  STM_HD tx_status status() const { return st; }
  STM_HD bool retryable() const { return st == tx_status::aborted; }
  static constexpr std::uint32_t default_backoff_ns = 1u << 14;
  /// Randomized exponential back-off after a busy lock, up to the tuning's
  /// cap (stm_bench's --cm-backoff) or default_backoff_ns (16 us).
  STM_HD std::uint32_t pause_ns() const { return tune.backoff_span_ns(tid, attempt, default_backoff_ns); }
  STM_HD const tx_counters& counters() const { return c; }

  STM_HD void commit() {
    st = tx_status::committed;
    ++c.commits;
  }
  STM_HD void abort(abort_cause why) {
    st = why == abort_cause::semantic ? tx_status::semantic : tx_status::aborted;
    ++c.aborts[static_cast<std::uint32_t>(why)];
  }
};

/// The records a native transaction holds (at most max_held, distinct).
struct held_locks {
  static constexpr std::uint32_t max_held = 2 + max_list + max_queries;
  std::uint32_t* words;  // one lock word per record: items, then customers
  std::uint32_t idx[max_held] = {};  // value-initialized: GCC cannot see that only idx[0, n) is read
  std::uint32_t n = 0;

  STM_HD explicit held_locks(std::uint32_t* w) : words(w) {}

  /// Try-lock record i (already held: true). False when another holds it.
  STM_HD bool take(std::uint32_t i) {
    for (std::uint32_t k = 0; k < n; ++k)
      if (idx[k] == i) return true;
    std::uint32_t expected = 0;
    // acquire: pairs with the release store of the previous holder's unlock.
    if (!atomic_ref<std::uint32_t>(words[i]).compare_exchange_strong(expected, 1u, memory_order_acquire,
                                                                     memory_order_relaxed))
      return false;
    idx[n++] = i;
    return true;
  }
  STM_HD void release() {
    // release: pairs with the acquire CAS of the next holder.
    for (std::uint32_t k = 0; k < n; ++k) atomic_ref<std::uint32_t>(words[idx[k]]).store(0u, memory_order_release);
    n = 0;
  }
};

STM_HD inline int ld(const int* p) { return atomic_ref<int>(*const_cast<int*>(p)).load(memory_order_relaxed); }
STM_HD inline void st(int* p, int v) { atomic_ref<int>(*p).store(v, memory_order_relaxed); }

/// Entry e, once, natively; the outcome is left in tx (committed, semantic,
/// or a retryable abort when a lock was busy or a chosen item changed).
STM_HD inline void native_attempt(native_tx& tx, const layout& L, std::uint32_t* lock_words, const vtx& e) {
  tx.start_attempt();
  held_locks h(lock_words);
  const std::uint32_t cust_lock = L.items() + e.customer;
  auto busy = [&](abort_cause why) {
    h.release();
    tx.abort(why);
  };
  switch (e.kind) {
    case make_reservation: {
      draw d(e.seed);
      const std::uint32_t n = 1 + d.below(e.n);
      std::uint32_t best[num_tables] = {~0u, ~0u, ~0u};
      int best_price[num_tables] = {0, 0, 0};
      for (std::uint32_t q = 0; q < n; ++q) {
        const std::uint32_t g = d.item(L);
        const std::uint32_t t = g / L.relations;
        const int price = ld(L.item(g) + field::price);
        if (price <= 0 || price <= best_price[t] || ld(L.item(g) + field::free) <= 0) continue;
        best[t] = g;
        best_price[t] = price;
      }
      if (best[0] == ~0u && best[1] == ~0u && best[2] == ~0u) break;
      if (!h.take(cust_lock)) return busy(abort_cause::lock);
      for (std::uint32_t t = 0; t < num_tables; ++t) {
        if (best[t] == ~0u) continue;
        if (!h.take(best[t])) return busy(abort_cause::lock);
        const int* it = L.item(best[t]);
        if (ld(it + field::price) != best_price[t] || ld(it + field::free) <= 0) return busy(abort_cause::validation);
      }
      int* const c = L.customer(e.customer);
      std::uint32_t count = static_cast<std::uint32_t>(ld(c + field::count));
      int bill = ld(c + field::bill);
      st(c + field::present, 1);
      for (std::uint32_t t = 0; t < num_tables && count < L.list_cap; ++t) {
        if (best[t] == ~0u) continue;
        int* const it = L.item(best[t]);
        st(it + field::free, ld(it + field::free) - 1);
        st(it + field::used, ld(it + field::used) + 1);
        st(L.slot_ref(e.customer, count), static_cast<int>(best[t] + 1));
        st(L.slot_price(e.customer, count), best_price[t]);
        bill += best_price[t];
        ++count;
      }
      st(c + field::count, static_cast<int>(count));
      st(c + field::bill, bill);
      break;
    }
    case delete_customer: {
      if (!h.take(cust_lock)) return busy(abort_cause::lock);
      int* const c = L.customer(e.customer);
      if (!ld(c + field::present)) break;
      const std::uint32_t count = static_cast<std::uint32_t>(ld(c + field::count));
      for (std::uint32_t s = 0; s < count; ++s)
        if (!h.take(static_cast<std::uint32_t>(ld(L.slot_ref(e.customer, s))) - 1u)) return busy(abort_cause::lock);
      for (std::uint32_t s = 0; s < count; ++s) {
        int* const it = L.item(static_cast<std::uint32_t>(ld(L.slot_ref(e.customer, s))) - 1u);
        st(it + field::free, ld(it + field::free) + 1);
        st(it + field::used, ld(it + field::used) - 1);
      }
      st(c + field::present, 0);
      st(c + field::count, 0);
      st(c + field::bill, 0);
      break;
    }
    case update_tables: {
      draw d(e.seed);
      const std::uint32_t n = 1 + d.below(e.n);
      draw again = d;
      for (std::uint32_t q = 0; q < n; ++q) {  // lock every item first: the update is one atomic step
        if (!h.take(d.item(L))) return busy(abort_cause::lock);
        d.next();
        d.below(5);
      }
      for (std::uint32_t q = 0; q < n; ++q) {
        const std::uint32_t g = again.item(L);
        const bool add = (again.next() >> 63) != 0;
        const int new_price = static_cast<int>(again.below(5)) * 10 + 50;
        int* const it = L.item(g);
        const int price = ld(it + field::price);
        if (add) {
          st(it + field::total, (price > 0 ? ld(it + field::total) : 0) + 100);
          st(it + field::free, (price > 0 ? ld(it + field::free) : 0) + 100);
          st(it + field::price, new_price);
        } else if (price > 0 && ld(it + field::used) == 0) {
          st(it + field::total, 0);
          st(it + field::free, 0);
          st(it + field::price, 0);
        }
      }
      break;
    }
    case query: {
      draw d(e.seed);
      const std::uint32_t n = 1 + d.below(e.n);
      int sink = 0;
      for (std::uint32_t q = 0; q < n; ++q) {
        const int* it = L.item(d.item(L));
        sink += ld(it + field::price) + ld(it + field::free);
      }
      (void)sink;
      break;
    }
    case book: {
      if (!h.take(cust_lock) || !h.take(e.seed)) return busy(abort_cause::lock);
      int* const it = L.item(e.seed);
      const std::uint32_t s = ld(L.slot_ref(e.customer, 2 * e.pair)) == 0 ? 2 * e.pair : 2 * e.pair + 1;
      const int f = ld(it + field::free);
      if (f <= 0) return busy(abort_cause::semantic);  // sold out: postponed by the table
      const int price = ld(it + field::price);
      st(it + field::free, f - 1);
      st(it + field::used, ld(it + field::used) + 1);
      st(L.slot_ref(e.customer, s), static_cast<int>(e.seed + 1));
      st(L.slot_price(e.customer, s), price);
      st(L.customer(e.customer) + field::bill, ld(L.customer(e.customer) + field::bill) + price);
      break;
    }
    default: {  // cancel
      if (!h.take(cust_lock) || !h.take(e.seed)) return busy(abort_cause::lock);
      const int want = static_cast<int>(e.seed + 1);
      const std::uint32_t s = ld(L.slot_ref(e.customer, 2 * e.pair)) == want ? 2 * e.pair : 2 * e.pair + 1;
      if (ld(L.slot_ref(e.customer, s)) != want) return busy(abort_cause::semantic);
      int* const it = L.item(e.seed);
      st(it + field::free, ld(it + field::free) + 1);
      st(it + field::used, ld(it + field::used) - 1);
      st(L.slot_ref(e.customer, s), 0);
      st(L.customer(e.customer) + field::bill, ld(L.customer(e.customer) + field::bill) - ld(L.slot_price(e.customer, s)));
      break;
    }
  }
  h.release();
  tx.commit();
}

}  // namespace stm::workloads::vacation::detail
