// SPDX-License-Identifier: Apache-2.0
// workloads/vacation/detail/tx_bodies.hpp - the vacation transactions over the
// STM: one attempt of an entry (TX_ATTEMPT) for the transaction table.
//
// The descriptor runs with Opaque = false (commit-time validation): a body may
// see values of different moments until its commit fails. Every value used as
// an index (a customer's count, a reservation's item) is therefore bounded
// before use, so a torn snapshot can only make the attempt fail, never read or
// write outside the arena. A stale sold-out seen by a booking only postpones it.
#pragma once

#include <cstdint>

#include "stm/tx_macros.hpp"
#include "workloads/vacation/detail/model.hpp"

namespace stm::workloads::vacation::detail {

/// Worst-case read and write sets of one transaction (checked against the
/// descriptor's capacities before a run; an overflow would still be reported
/// as a capacity abort and the entry as unresolved, never be silent).
struct set_sizes {
  std::uint32_t reads, writes;
};
STM_HD inline set_sizes worst_case(std::uint32_t n, std::uint32_t list_cap) {
  const std::uint32_t reserve_r = 2 * n + 3 + num_tables, reserve_w = 3 + 4 * num_tables;
  const std::uint32_t delete_r = 3 + 3 * list_cap, delete_w = 3 + 2 * list_cap;
  const std::uint32_t update_r = 3 * n, update_w = 3 * n;
  const std::uint32_t pair_r = 6, pair_w = 5;
  auto mx = [](std::uint32_t a, std::uint32_t b) { return a > b ? a : b; };
  return {mx(mx(reserve_r, delete_r), mx(update_r, pair_r)), mx(mx(reserve_w, delete_w), mx(update_w, pair_w))};
}

/// One attempt of entry e on descriptor tx (TX_ATTEMPT / TX_ATTEMPT_END).
template <class Tx>
STM_HD void attempt(Tx& tx, const layout& L, const vtx& e) {
  TX_ATTEMPT(tx) {
    switch (e.kind) {
      case make_reservation: {
        // STAMP: for each table keep the dearest queried item with a free unit.
        draw d(e.seed);
        const std::uint32_t n = 1 + d.below(e.n);
        std::uint32_t best[num_tables] = {~0u, ~0u, ~0u};
        int best_price[num_tables] = {0, 0, 0}, best_free[num_tables] = {0, 0, 0};
        bool found = false;
        for (std::uint32_t q = 0; q < n; ++q) {
          const std::uint32_t g = d.item(L);
          const std::uint32_t t = g / L.relations;
          int* const it = L.item(g);
          const int price = TX_READ(tx, it + field::price);
          if (price <= 0 || price <= best_price[t]) continue;
          const int f = TX_READ(tx, it + field::free);
          if (f <= 0) continue;
          best[t] = g;
          best_price[t] = price;
          best_free[t] = f;
          found = true;
        }
        if (!found) break;  // read-only: nothing to book
        int* const c = L.customer(e.customer);
        const int present = TX_READ(tx, c + field::present);
        std::uint32_t count = static_cast<std::uint32_t>(TX_READ(tx, c + field::count));
        int bill = TX_READ(tx, c + field::bill);
        if (count > L.list_cap) count = L.list_cap;  // only a torn snapshot: the commit fails
        if (!present) TX_WRITE(tx, c + field::present, 1);  // STAMP adds an absent customer
        for (std::uint32_t t = 0; t < num_tables && count < L.list_cap; ++t) {
          if (best[t] == ~0u) continue;
          int* const it = L.item(best[t]);
          const int used = TX_READ(tx, it + field::used);
          TX_WRITE(tx, it + field::free, best_free[t] - 1);
          TX_WRITE(tx, it + field::used, used + 1);
          TX_WRITE(tx, L.slot_ref(e.customer, count), static_cast<int>(best[t] + 1));
          TX_WRITE(tx, L.slot_price(e.customer, count), best_price[t]);
          bill += best_price[t];
          ++count;
        }
        TX_WRITE(tx, c + field::count, static_cast<int>(count));
        TX_WRITE(tx, c + field::bill, bill);
        break;
      }
      case delete_customer: {
        int* const c = L.customer(e.customer);
        if (!TX_READ(tx, c + field::present)) break;
        std::uint32_t count = static_cast<std::uint32_t>(TX_READ(tx, c + field::count));
        if (count > L.list_cap) count = L.list_cap;
        const int bill = TX_READ(tx, c + field::bill);  // STAMP sums the bill before the cancellations
        (void)bill;
        for (std::uint32_t s = 0; s < count; ++s) {
          const std::uint32_t g = static_cast<std::uint32_t>(TX_READ(tx, L.slot_ref(e.customer, s))) - 1u;
          if (g >= L.items()) continue;  // only a torn snapshot
          int* const it = L.item(g);
          const int f = TX_READ(tx, it + field::free);
          const int used = TX_READ(tx, it + field::used);
          TX_WRITE(tx, it + field::free, f + 1);
          TX_WRITE(tx, it + field::used, used - 1);
        }
        TX_WRITE(tx, c + field::present, 0);
        TX_WRITE(tx, c + field::count, 0);
        TX_WRITE(tx, c + field::bill, 0);
        break;
      }
      case update_tables: {
        draw d(e.seed);
        const std::uint32_t n = 1 + d.below(e.n);
        for (std::uint32_t q = 0; q < n; ++q) {
          const std::uint32_t g = d.item(L);
          const bool add = (d.next() >> 63) != 0;
          const int new_price = static_cast<int>(d.below(5)) * 10 + 50;
          int* const it = L.item(g);
          const int price = TX_READ(tx, it + field::price);
          if (add) {  // STAMP: 100 more units (a new item if absent) at the new price
            const int total = price > 0 ? TX_READ(tx, it + field::total) : 0;
            const int f = price > 0 ? TX_READ(tx, it + field::free) : 0;
            TX_WRITE(tx, it + field::total, total + 100);
            TX_WRITE(tx, it + field::free, f + 100);
            TX_WRITE(tx, it + field::price, new_price);
          } else if (price > 0) {  // remove the item, unless units of it are in use
            if (TX_READ(tx, it + field::used) != 0) continue;
            TX_WRITE(tx, it + field::total, 0);
            TX_WRITE(tx, it + field::free, 0);
            TX_WRITE(tx, it + field::price, 0);
          }
        }
        break;
      }
      case query: {
        draw d(e.seed);
        const std::uint32_t n = 1 + d.below(e.n);
        for (std::uint32_t q = 0; q < n; ++q) {
          int* const it = L.item(d.item(L));
          const int price = TX_READ(tx, it + field::price);
          const int f = TX_READ(tx, it + field::free);
          (void)price;
          (void)f;
        }
        break;
      }
      case book: {  // one unit of room type e.seed into the holder's free slot of pair e.pair
        const std::uint32_t s0 = 2 * e.pair;
        const int r0 = TX_READ(tx, L.slot_ref(e.customer, s0));
        const int r1 = TX_READ(tx, L.slot_ref(e.customer, s0 + 1));
        int* const it = L.item(e.seed);
        const int f = TX_READ(tx, it + field::free);
        if (f <= 0 || (r0 != 0 && r1 != 0)) TX_SEMANTIC_ABORT(tx);  // sold out (both slots full: a torn snapshot)
        const int price = TX_READ(tx, it + field::price);
        const int used = TX_READ(tx, it + field::used);
        const int bill = TX_READ(tx, L.customer(e.customer) + field::bill);
        const std::uint32_t s = r0 == 0 ? s0 : s0 + 1;
        TX_WRITE(tx, it + field::free, f - 1);
        TX_WRITE(tx, it + field::used, used + 1);
        TX_WRITE(tx, L.slot_ref(e.customer, s), static_cast<int>(e.seed + 1));
        TX_WRITE(tx, L.slot_price(e.customer, s), price);
        TX_WRITE(tx, L.customer(e.customer) + field::bill, bill + price);
        break;
      }
      default: {  // cancel: one unit of the pair's room type back to the table
        const std::uint32_t s0 = 2 * e.pair;
        const int want = static_cast<int>(e.seed + 1);
        const int r0 = TX_READ(tx, L.slot_ref(e.customer, s0));
        const int r1 = r0 == want ? 0 : TX_READ(tx, L.slot_ref(e.customer, s0 + 1));
        if (r0 != want && r1 != want) TX_SEMANTIC_ABORT(tx);  // nothing held (cannot happen; see vacation.hpp)
        const std::uint32_t s = r0 == want ? s0 : s0 + 1;
        const int price = TX_READ(tx, L.slot_price(e.customer, s));
        int* const it = L.item(e.seed);
        const int f = TX_READ(tx, it + field::free);
        const int used = TX_READ(tx, it + field::used);
        const int bill = TX_READ(tx, L.customer(e.customer) + field::bill);
        TX_WRITE(tx, it + field::free, f + 1);
        TX_WRITE(tx, it + field::used, used - 1);
        TX_WRITE(tx, L.slot_ref(e.customer, s), 0);
        TX_WRITE(tx, L.customer(e.customer) + field::bill, bill - price);
        break;
      }
    }
  }
  TX_ATTEMPT_END(tx);
}

}  // namespace stm::workloads::vacation::detail
