// SPDX-License-Identifier: Apache-2.0
// workloads/vacation/detail/model.hpp - the vacation data model in one arena of
// 4-byte words, the table entries and their generator. Included by
// workloads/vacation/vacation.hpp.
//
// Arena (int words, all accessed through the STM or, by the native baseline,
// through relaxed atomics under per-record locks):
//
//   items      3 x relations records of `spacing` words: car table, flight
//              table, room table (item g: table g / relations, id g % relations)
//                [0] total  [1] used  [2] free  [3] price (0: item absent)
//   customers  (customers + holders) records of `cstride` words
//                [0] present  [1] bill  [2] count  [3] unused
//                [4 + 2s] reservation s: item g + 1 (0: empty)  [5 + 2s] its price
//
// Ordinary customers [0, customers) keep their reservations in slots
// [0, count), count <= list_cap (a bounded list: a reservation that finds the
// list full books nothing more). Holders (one per logical thread of the
// table, only with --semantic) keep pair k of their thread in slots 2k and
// 2k + 1 (see vacation.hpp, "Semantic pairs").
//
// Item records are `spacing` words apart (a power of two >= 4): with lock
// coverage (--hash) <= spacing one lock never covers two records, which is
// what the paper's "interval 100" between room-type records is for.
#pragma once

#include <cstdint>
#include <type_traits>

#include "stm/platform.hpp"

namespace stm::workloads::vacation {

/// Fields of an item record, and of a customer record.
namespace field {
inline constexpr std::uint32_t total = 0, used = 1, free = 2, price = 3;
inline constexpr std::uint32_t present = 0, bill = 1, count = 2, slots = 4;
}  // namespace field

inline constexpr std::uint32_t num_tables = 3;        // cars, flights, rooms
inline constexpr std::uint32_t room_table = 2;
inline constexpr std::uint32_t max_queries = 16;      // items a transaction may query (STAMP -n)
inline constexpr std::uint32_t max_list = 15;         // reservations an ordinary customer may hold
inline constexpr int semantic_price = 100;            // price of a semantic (sold-out) room type

/// Trivially copyable view of the arena and its shape, passed into kernels.
struct layout {
  int* arena = nullptr;
  std::uint32_t relations = 0;   // items per table
  std::uint32_t customers = 0;   // ordinary customers
  std::uint32_t holders = 0;     // semantic holders (0 without --semantic)
  std::uint32_t spacing = 4;     // words per item record
  std::uint32_t cstride = 0;     // words per customer record
  std::uint32_t list_cap = 0;    // reservations per ordinary customer
  std::uint32_t pairs = 0;       // semantic pairs per logical thread (holder slots / 2)
  std::uint32_t sem_items = 0;   // room ids [0, sem_items) are semantic (sold out at the start)
  std::uint32_t query_pct = 100; // STAMP -q: % of the relations that are queried
  std::uint64_t seed = 1;

  STM_HD std::uint32_t items() const { return num_tables * relations; }
  STM_HD std::uint64_t customers_base() const { return std::uint64_t(items()) * spacing; }
  STM_HD std::uint64_t words() const { return customers_base() + std::uint64_t(customers + holders) * cstride; }
  STM_HD int* item(std::uint32_t g) const { return arena + std::uint64_t(g) * spacing; }
  STM_HD int* customer(std::uint32_t c) const { return arena + customers_base() + std::uint64_t(c) * cstride; }
  STM_HD int* slot_ref(std::uint32_t c, std::uint32_t s) const { return customer(c) + field::slots + 2 * s; }
  STM_HD int* slot_price(std::uint32_t c, std::uint32_t s) const { return customer(c) + field::slots + 2 * s + 1; }
  STM_HD bool is_semantic(std::uint32_t g) const { return g / relations == room_table && g % relations < sem_items; }

  /// Ids a STAMP query draws from in table t: [first, first + count). Rooms
  /// skip the semantic room types; count 0 means the table is not queried.
  STM_HD std::uint32_t first_id(std::uint32_t t) const { return t == room_table ? sem_items : 0; }
  STM_HD std::uint32_t id_count(std::uint32_t t) const {
    const std::uint32_t n = relations - first_id(t);
    if (n == 0) return 0;
    const std::uint64_t q = std::uint64_t(n) * query_pct / 100;
    return q == 0 ? 1 : static_cast<std::uint32_t>(q);
  }
  /// Customers a STAMP transaction draws from (the query range of the customers).
  STM_HD std::uint32_t customer_range() const {
    const std::uint64_t q = std::uint64_t(customers) * query_pct / 100;
    return q == 0 ? 1 : static_cast<std::uint32_t>(q);
  }
  /// The semantic room type of pair k of logical thread t (the same in every launch).
  STM_HD std::uint32_t pair_item(std::uint32_t t, std::uint32_t k) const {
    std::uint64_t h = (seed + 0x632BE59BD9B4E019ull) ^ (std::uint64_t(t) << 24) ^ k;
    h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
    h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
    h ^= h >> 31;
    return room_table * relations + static_cast<std::uint32_t>(h % sem_items);
  }
};
static_assert(std::is_trivially_copyable_v<layout>);

/// Generator of a transaction's parameters (SplitMix64): the table stores a
/// 32-bit seed per entry and the body draws its items from it, the same in
/// every attempt.
struct draw {
  std::uint64_t s;
  STM_HD explicit draw(std::uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 0x6A09E667F3BCC909ull) {}
  STM_HD std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  STM_HD std::uint32_t below(std::uint32_t n) { return static_cast<std::uint32_t>(((next() >> 32) * n) >> 32); }
  /// A queried item: a random table with ids to draw, then an id of it.
  STM_HD std::uint32_t item(const layout& L) {
    std::uint32_t t = below(num_tables);
    if (L.id_count(t) == 0) t = below(room_table);  // every room type is semantic: cars and flights only
    return t * L.relations + L.first_id(t) + below(L.id_count(t));
  }
};

enum kind : std::uint8_t {
  make_reservation = 0,  // STAMP: query n items, book the dearest free one of each table
  delete_customer = 1,   // STAMP: sum the bill, cancel every reservation, remove the customer
  update_tables = 2,     // STAMP: add capacity to, or remove, n random items
  query = 3,             // read-only: prices and free units of n items
  book = 4,              // semantic pair: book one unit of a sold-out room type
  cancel = 5             // semantic pair: cancel one unit of it
};

/// One table entry (16 bytes).
struct vtx {
  std::uint32_t customer;  // the customer (book/cancel: the holder)
  std::uint32_t pair;      // book/cancel: the pair's index in its thread
  std::uint32_t seed;      // STAMP kinds: the parameters' seed; book/cancel: the item
  std::uint8_t kind;
  std::uint8_t tag;        // semantic priority for presort: cancel 1, the rest 0
  std::uint8_t semantic;   // 1: can meet a semantic conflict (a booking of a pair)
  std::uint8_t n;          // STAMP kinds: the -n bound on items
  STM_HD std::uint32_t priority() const { return tag; }
};
static_assert(sizeof(vtx) == 16 && std::is_trivially_copyable_v<vtx>);

}  // namespace stm::workloads::vacation
