// SPDX-License-Identifier: Apache-2.0
// workloads/vacation/vacation.hpp - STAMP's vacation (a travel reservation
// system: Minh et al., "STAMP: Stanford Transactional Applications for
// Multi-Processing", IISWC 2008) on the transaction table of PR-STM (Shang et
// al., "PR-STM: Priority Rule Based Software Transactions for the GPU",
// sections 4.1-4.3), with the paper's semantic conflict: booking a sold-out
// room type. Written once over an execution policy (cpu_exec / gpu_exec) and a
// contention manager; run_native() runs the same entries without the STM.
//
// Data (detail/model.hpp): three tables of `relations` items (cars, flights,
// rooms; each item total, used, free, price), ordinary customers with a bounded
// reservation list (item, price) and a bill. Arrays indexed by id stand in for
// STAMP's red-black trees (an absent item has price 0). Each logical thread
// owns a block of `tpt` table entries, generated on the backend from (seed,
// thread, launch):
//   make_reservation  STAMP: query 1..n random items (ids in the first q% of
//                     each table), keep the dearest item with a free unit of
//                     each table, book them for a random customer (created if
//                     absent): free -1, used +1, append (item, price), bill +=
//                     price. A full list books nothing more.
//   delete_customer   STAMP: read the bill, cancel every reservation (free +1,
//                     used -1), remove the customer.
//   update_tables     STAMP: for 1..n random items, add 100 units at a new
//                     price (creating the item if absent), or remove the item
//                     unless some of its units are in use.
//   query             --read-only: read the price and free units of 1..n items.
// The mix of the STAMP kinds is STAMP's: u% make_reservation, the rest split
// evenly between delete_customer and update_tables.
//
// Semantic pairs (--semantic P). P% of the update entries of each block are
// pairs, a book and a cancel of one unit of one "semantic" room type, by the
// thread's holder customer. The first round(rooms x P / 100) room types are
// semantic: their units all start held by the holders (free = 0, sold out) and
// the STAMP kinds never touch them. Holder t holds, before each launch, one
// unit of room type pair_item(t, k) for each of its pairs k (in slot 2k or
// 2k+1); the cancel of pair k gives that unit back, the book takes one again.
// A book that finds its room type sold out declares TX_SEMANTIC_ABORT: the
// table postpones it (prstm) until a cancel of that type commits, or the
// manager retries it (gpustm: 100 times) and then leaves it unresolved.
// Every postponed book is resolvable: for each type, free = cancels done -
// books done, and while a book waits the cancels still to come sit in threads
// that are not finished and never wait themselves. After a launch every holder
// holds its units again, so timed mode (--seconds) repeats the same state.
// --presort puts each block's cancels (tag 1) before its books: a thread then
// books a type only after it gave back as many units of it, and no semantic
// conflict can occur (the paper's pre-sorted table).
//
// Verified after every run (verify(), exact, on the host): every item has
// free >= 0, used >= 0, free + used = total, an absent item nothing; used =
// the reservations of it across all customers' lists and holders' slots;
// every customer's bill = the sum of the prices of its reservations, an absent
// customer nothing; semantic room types keep their total, and (when nothing
// was unresolved) every holder holds exactly its units again; every table
// entry committed once (commit counter) or unresolved, none pending; semantic
// conflicts counted by the transactions = those the table saw; every lock free.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "stm/buffer.hpp"
#include "stm/lock_table.hpp"
#include "stm/stats.hpp"
#include "stm/txtable.hpp"
#include "workloads/detail/spread.hpp"
#include "workloads/vacation/detail/model.hpp"
#include "workloads/vacation/detail/native.hpp"
#include "workloads/vacation/detail/tx_bodies.hpp"

namespace stm::workloads::vacation {

struct config {
  std::uint32_t relations = 65536;  // items per table (STAMP -r)
  std::uint32_t customers = 65536;  // ordinary customers (STAMP: as many as relations)
  std::uint32_t queries = 10;       // items per transaction, 1..n (STAMP -n)
  std::uint32_t query_range = 90;   // % of the relations and customers queried (STAMP -q)
  std::uint32_t user = 80;          // % of the STAMP kinds that are make_reservation (STAMP -u)
  std::uint32_t units = 0;          // units per item at the start; 0: STAMP's 100-500 at random
  std::uint32_t list_cap = 8;       // reservations per ordinary customer (1..max_list)
  std::uint32_t spacing = 4;        // words per item record (power of two >= 4)
  std::uint32_t threads = 6720;
  std::uint32_t hash = 1;           // words per lock
  std::uint32_t tpt = 64;           // entries per thread and launch
  double seconds = 0;               // > 0: new tables until this much kernel time; 0: drain one table
  std::uint64_t seed = 1;
  double semantic = 0;              // % of the update entries in semantic pairs
  double read_only = 0;             // % of the entries that are queries
  bool presort = false;
  bool keep_state = false;          // copy the final arena into outcome::state (tests)
  stm::txtable_policy policy{};
};

/// The descriptor's capacities: at most, a make_reservation of 16 items reads
/// 38 words, a delete_customer of 15 reservations reads 48, an update of 16
/// items reads and writes 48 (detail::worst_case; check() refuses a
/// configuration beyond them). The bodies hold 57 accesses: out of line
/// (stm::outlined_accesses; docs/design-decisions.md#outlined-accesses).
using tx_config = stm::outlined_accesses<stm::tx_config<64, 48, false>>;

struct outcome {
  stm::tx_stats stats;
  stm::txtable_audit table;
  double seconds = 0;
  std::uint64_t launches = 0, transactions = 0;
  std::uint64_t semantic_capable = 0;  // books of pairs
  std::uint32_t semantic_items = 0, pairs_per_thread = 0, semantic_retries = 0;
  std::uint64_t reservations = 0;      // reservations held at the end (lists and holders)
  // Spread of the blocks' drain times (block t: thread t's transactions),
  // summed over the launches: median, slowest, and the means over the blocks
  // of the lowest and of the highest tenth of the thread ids (under a
  // priority that is the thread id, the high ids lose every conflict).
  double thread_seconds_p50 = 0, thread_seconds_max = 0, thread_seconds_low_ids = 0, thread_seconds_high_ids = 0;
  // The mean pause those two tenths asked for (aborts' and idle passes').
  double pause_seconds_low_ids = 0, pause_seconds_high_ids = 0;
  // Threads that drained the table: the blocks below `drainers` started
  // together at the launch, the others one by one as blocks finished
  // (stm::txtable_blocks). The mean drain time of a block of each kind.
  std::uint32_t drainers = 0;
  double thread_seconds_first_wave = 0, thread_seconds_handed_out = 0;
  bool verified = false;
  std::string message;
  std::vector<int> state;              // the final arena, with config::keep_state
};

/// Entries of each kind in one thread's block: queries, pairs, STAMP kinds.
struct block_mix {
  std::uint32_t queries = 0, pairs = 0, stamp = 0;
};
inline block_mix mix_of(const config& c) {
  block_mix m;
  m.queries = static_cast<std::uint32_t>(double(c.tpt) * c.read_only / 100.0 + 0.5);
  if (m.queries > c.tpt) m.queries = c.tpt;
  const std::uint32_t updates = c.tpt - m.queries;
  m.pairs = static_cast<std::uint32_t>(double(updates) * c.semantic / 200.0 + 0.5);
  if (2 * m.pairs > updates) m.pairs = updates / 2;
  if (c.semantic > 0 && m.pairs == 0 && updates >= 2) m.pairs = 1;
  m.stamp = updates - 2 * m.pairs;
  return m;
}
inline std::uint32_t semantic_items(const config& c) {
  if (c.semantic <= 0) return 0;
  const std::uint32_t s = static_cast<std::uint32_t>(double(c.relations) * c.semantic / 100.0 + 0.5);
  return std::min(c.relations, std::max(1u, s));
}

/// The arena's shape for configuration c (arena pointer left null).
inline layout layout_of(const config& c) {
  layout L;
  const block_mix m = mix_of(c);
  L.relations = c.relations;
  L.customers = c.customers;
  L.pairs = m.pairs;
  L.holders = m.pairs > 0 ? c.threads : 0;
  L.sem_items = L.holders ? semantic_items(c) : 0;
  L.spacing = c.spacing;
  L.list_cap = c.list_cap;
  L.cstride = field::slots + 2 * std::max(c.list_cap, 2 * m.pairs);
  L.query_pct = c.query_range;
  L.seed = c.seed;
  return L;
}

/// Throws stm::usage_error for a configuration that cannot run.
inline void check(const config& c) {
  auto bad = [](const std::string& s) { throw stm::usage_error(s); };
  if (c.relations == 0 || c.relations > (1u << 24)) bad("--relations must be between 1 and 2^24, got " + std::to_string(c.relations));
  if (c.customers == 0 || c.customers > (1u << 24)) bad("--customers must be between 1 and 2^24, got " + std::to_string(c.customers));
  if (c.queries == 0 || c.queries > max_queries)
    bad("--queries must be between 1 and " + std::to_string(max_queries) + ", got " + std::to_string(c.queries));
  if (c.query_range == 0 || c.query_range > 100) bad("--query-range must be a percentage in [1, 100], got " + std::to_string(c.query_range));
  if (c.user > 100) bad("--user must be a percentage in [0, 100], got " + std::to_string(c.user));
  if (c.units > 1000000) bad("--units must be at most 1000000, got " + std::to_string(c.units));
  if (c.list_cap == 0 || c.list_cap > max_list)
    bad("--list-cap must be between 1 and " + std::to_string(max_list) + ", got " + std::to_string(c.list_cap));
  if (c.spacing < 4 || c.spacing > 4096 || (c.spacing & (c.spacing - 1)) != 0)
    bad("--spacing must be a power of two from 4 to 4096 words, got " + std::to_string(c.spacing));
  if (c.threads == 0) bad("--threads must be at least 1");
  if (c.tpt == 0 || c.tpt > 4096) bad("--tpt must be between 1 and 4096, got " + std::to_string(c.tpt));
  if (c.hash == 0 || (c.hash & (c.hash - 1)) != 0) bad("--hash must be a power of two, got " + std::to_string(c.hash));
  if (!(c.semantic >= 0 && c.semantic <= 100)) bad("--semantic must be a percentage in [0, 100], got " + std::to_string(c.semantic));
  if (!(c.read_only >= 0 && c.read_only <= 100)) bad("--read-only must be a percentage in [0, 100], got " + std::to_string(c.read_only));
  if (c.policy.max_postpones == 0) bad("--max-postpones must be at least 1");
  if (std::uint64_t(c.threads) * c.tpt > (std::uint64_t(1) << 32)) bad("--threads x --tpt must stay below 2^32");
  const layout L = layout_of(c);
  if (c.semantic > 0 && L.pairs == 0) bad("--semantic needs at least 2 update entries per thread (--tpt, --read-only)");
  if (L.words() > (std::uint64_t(1) << 31)) bad("the tables and customers need " + std::to_string(L.words()) + " words: more than 2^31");
  const auto sz = detail::worst_case(c.queries, c.list_cap);
  if (sz.reads > tx_config::max_reads || sz.writes > tx_config::max_writes)
    bad("a transaction could read " + std::to_string(sz.reads) + " and write " + std::to_string(sz.writes) +
        " words: more than the descriptor holds");
  stm::require_priorities(c.threads);
}

/// What verify() found.
struct report {
  bool ok = true;
  std::uint64_t violations = 0;
  std::uint64_t reservations = 0;
  std::string first;  // the first violation, in words
  void fail(const std::string& what) {
    if (ok) first = what;
    ok = false;
    ++violations;
  }
};

/// Checks the data invariants (file comment) on a host copy of the arena.
/// restored: every pair completed, so every holder must hold its units again.
inline report verify(const layout& L, const std::vector<int>& arena, bool restored) {
  report r;
  if (arena.size() != L.words()) {
    r.fail("arena of " + std::to_string(arena.size()) + " words, expected " + std::to_string(L.words()));
    return r;
  }
  const std::uint32_t n_items = L.items();
  std::vector<long long> refs(n_items, 0), held(n_items, 0);
  auto at = [&](std::uint64_t w) { return arena[w]; };
  auto cust = [&](std::uint32_t c, std::uint32_t f) { return at(L.customers_base() + std::uint64_t(c) * L.cstride + f); };
  auto add_ref = [&](std::uint32_t c, std::uint32_t s, long long& sum) {
    const int ref = cust(c, field::slots + 2 * s), price = cust(c, field::slots + 2 * s + 1);
    if (ref <= 0 || std::uint32_t(ref) > n_items) {
      r.fail("customer " + std::to_string(c) + " slot " + std::to_string(s) + " names item " + std::to_string(ref - 1));
      return;
    }
    if (price <= 0) r.fail("customer " + std::to_string(c) + " slot " + std::to_string(s) + " has price " + std::to_string(price));
    ++refs[ref - 1];
    ++r.reservations;
    sum += price;
  };
  for (std::uint32_t c = 0; c < L.customers; ++c) {
    const int present = cust(c, field::present), count = cust(c, field::count), bill = cust(c, field::bill);
    if (count < 0 || std::uint32_t(count) > L.list_cap) {
      r.fail("customer " + std::to_string(c) + " holds " + std::to_string(count) + " reservations (list of " +
             std::to_string(L.list_cap) + ")");
      continue;
    }
    if (!present && (count != 0 || bill != 0))
      r.fail("absent customer " + std::to_string(c) + " has " + std::to_string(count) + " reservations, bill " + std::to_string(bill));
    long long sum = 0;
    for (std::uint32_t s = 0; s < std::uint32_t(count); ++s) add_ref(c, s, sum);
    if (sum != bill)
      r.fail("customer " + std::to_string(c) + " bill " + std::to_string(bill) + " != " + std::to_string(sum) +
             " (its reservations' prices)");
  }
  for (std::uint32_t t = 0; t < L.holders; ++t) {
    const std::uint32_t c = L.customers + t;
    long long sum = 0;
    for (std::uint32_t k = 0; k < L.pairs; ++k) {
      const std::uint32_t g = L.pair_item(t, k);
      ++held[g];
      int n = 0;
      for (std::uint32_t s = 2 * k; s < 2 * k + 2; ++s) {
        const int ref = cust(c, field::slots + 2 * s);
        if (ref == 0) continue;
        ++n;
        if (std::uint32_t(ref) != g + 1)
          r.fail("holder " + std::to_string(t) + " pair " + std::to_string(k) + " holds item " + std::to_string(ref - 1) +
                 ", not its room type " + std::to_string(g));
        add_ref(c, s, sum);
      }
      if (restored ? n != 1 : n > 2)
        r.fail("holder " + std::to_string(t) + " pair " + std::to_string(k) + " holds " + std::to_string(n) + " units");
    }
    if (sum != cust(c, field::bill))
      r.fail("holder " + std::to_string(t) + " bill " + std::to_string(cust(c, field::bill)) + " != " + std::to_string(sum));
  }
  for (std::uint32_t g = 0; g < n_items; ++g) {
    const std::uint64_t b = std::uint64_t(g) * L.spacing;
    const int total = at(b + field::total), used = at(b + field::used), f = at(b + field::free), price = at(b + field::price);
    const std::string id = "item " + std::to_string(g);
    if (f < 0 || used < 0) r.fail(id + ": free " + std::to_string(f) + ", used " + std::to_string(used));
    if (static_cast<long long>(f) + used != total)
      r.fail(id + ": free " + std::to_string(f) + " + used " + std::to_string(used) + " != total " + std::to_string(total));
    if (used != refs[g])
      r.fail(id + ": used " + std::to_string(used) + " but " + std::to_string(refs[g]) + " reservations name it");
    if (price < 0 || (price == 0 && total != 0)) r.fail(id + ": price " + std::to_string(price) + ", total " + std::to_string(total));
    if (L.is_semantic(g) && total != held[g])
      r.fail(id + " (semantic): total " + std::to_string(total) + " != " + std::to_string(held[g]) + " units of its holders");
  }
  return r;
}

namespace detail {

/// Fills thread tid's block (then shuffles it).
struct generate_kernel {
  vtx* table;
  layout L;
  std::uint32_t threads, tpt, user, n;
  block_mix mix;
  std::uint64_t launch;

  STM_HD void operator()(std::uint32_t tid) const {
    draw r(L.seed ^ (std::uint64_t(tid) << 22) ^ (launch << 48) ^ 0x5EED);
    auto blk = [tid, this](std::uint32_t k) -> vtx& { return table[stm::txtable_index(tid, k, threads)]; };
    const std::uint8_t nn = static_cast<std::uint8_t>(n);
    std::uint32_t k = 0;
    for (std::uint32_t i = 0; i < mix.queries; ++i) blk(k++) = vtx{0, 0, static_cast<std::uint32_t>(r.next()), query, 0, 0, nn};
    for (std::uint32_t p = 0; p < mix.pairs; ++p) {
      const std::uint32_t g = L.pair_item(tid, p), h = L.customers + tid;
      blk(k++) = vtx{h, p, g, book, 0, 1, 0};
      blk(k++) = vtx{h, p, g, cancel, 1, 0, 0};
    }
    for (std::uint32_t i = 0; i < mix.stamp; ++i) {
      const std::uint32_t u = r.below(100), cust = r.below(L.customer_range());
      const std::uint8_t kd = u < user ? make_reservation : (r.next() & 1) ? delete_customer : update_tables;
      blk(k++) = vtx{cust, 0, static_cast<std::uint32_t>(r.next()), kd, 0, 0, nn};
    }
    for (std::uint32_t j = tpt; j > 1; --j) {  // Fisher-Yates over this thread's block
      const std::uint32_t i = r.below(j);
      const vtx t = blk(j - 1);
      blk(j - 1) = blk(i);
      blk(i) = t;
    }
  }
};

/// Starting state, one word of the arena per call: STAMP's items (units and
/// prices drawn per item), semantic room types empty, customers present with
/// nothing booked, holders empty (init_holders_kernel fills them).
struct init_kernel {
  layout L;
  std::uint32_t units;
  std::uint32_t workers;
  STM_HD void operator()(std::uint32_t w) const {
    const std::uint64_t items_words = L.customers_base(), all = L.words();
    for (std::uint64_t i = w; i < all; i += workers) {
      int v = 0;
      if (i < items_words) {
        const std::uint32_t g = static_cast<std::uint32_t>(i / L.spacing), f = static_cast<std::uint32_t>(i % L.spacing);
        draw d(L.seed * 31 + g);
        const int u = units ? static_cast<int>(units) : static_cast<int>(d.below(5) + 1) * 100;
        const int price = static_cast<int>(d.below(5)) * 10 + 50;
        if (L.is_semantic(g)) v = f == field::price ? semantic_price : 0;
        else v = f == field::total || f == field::free ? u : f == field::price ? price : 0;
      } else {
        v = (i - items_words) % L.cstride == field::present ? 1 : 0;  // customers and holders present
      }
      L.arena[i] = v;
    }
  }
};
/// Holder t takes one unit of each of its pairs' room types (slot 2k).
struct init_holders_kernel {
  layout L;
  STM_HD void operator()(std::uint32_t t) const {
    const std::uint32_t c = L.customers + t;
    int bill = 0;
    for (std::uint32_t k = 0; k < L.pairs; ++k) {
      const std::uint32_t g = L.pair_item(t, k);
      *L.slot_ref(c, 2 * k) = static_cast<int>(g + 1);
      *L.slot_price(c, 2 * k) = semantic_price;
      bill += semantic_price;
      atomic_ref<int>(L.item(g)[field::total]).fetch_add(1, memory_order_relaxed);
      atomic_ref<int>(L.item(g)[field::used]).fetch_add(1, memory_order_relaxed);
    }
    *(L.customer(c) + field::bill) = bill;
  }
};

/// The audit's value of an entry: vacation checks its data instead.
struct no_value {
  STM_HD long long operator()(const vtx&) const { return 0; }
};

/// Per thread: book entries (semantic-capable) of the block.
struct count_kernel {
  const vtx* table;
  std::uint32_t threads, tpt;
  long long* out;
  STM_HD void operator()(std::uint32_t tid) const {
    long long s = 0;
    for (std::uint32_t k = 0; k < tpt; ++k) s += table[stm::txtable_index(tid, k, threads)].semantic;
    out[tid] = s;
  }
};

/// drain_blocks' report of a finished block t: its drain time (times[t]) and
/// the pauses it asked for (times[threads + t]), in ns.
struct block_time {
  unsigned long long* times;
  std::uint32_t threads;
  STM_HD void operator()(std::uint32_t t, const stm::txtable_drain_times& d) const {
    times[t] = d.ns;
    times[std::uint64_t(threads) + t] = d.pause_ns;
  }
};

/// Adds one launch's spread of the blocks' drain times (outcome's fields);
/// tt: block_time's array; blocks [0, drainers) started together.
inline void add_block_times(outcome& out, std::vector<unsigned long long> tt, std::uint32_t drainers) {
  const std::size_t n = tt.size() / 2;
  if (n == 0) return;
  const std::size_t tenth = std::max<std::size_t>(1, n / 10);
  auto mean = [&](std::size_t from, std::size_t count) {
    double s = 0;
    for (std::size_t i = from; i < from + count; ++i) s += double(tt[i]);
    return count ? s / double(count) * 1e-9 : 0.0;
  };
  out.thread_seconds_low_ids += mean(0, tenth);
  out.thread_seconds_high_ids += mean(n - tenth, tenth);
  out.pause_seconds_low_ids += mean(n, tenth);
  out.pause_seconds_high_ids += mean(2 * n - tenth, tenth);
  const std::size_t first = std::min<std::size_t>(drainers, n);
  out.thread_seconds_first_wave += mean(0, first);
  out.thread_seconds_handed_out += mean(first, n - first);
  const stm::workloads::detail::median_max s =
      stm::workloads::detail::median_and_max_seconds(tt.begin(), tt.begin() + static_cast<std::ptrdiff_t>(n));
  out.thread_seconds_p50 += s.p50;
  out.thread_seconds_max += s.max;
}

/// Algorithm 3 over the vacation table, STM bodies.
template <class CM, class Cfg>
struct drain_kernel {
  CM cm;
  stm::lock_table_ref locks;
  stm::stats_ref stats;
  stm::txtable_ref<vtx> table;
  stm::txtable_policy policy;
  layout L;
  stm::txtable_blocks blocks;
  unsigned long long* times;  // block_time's array
  STM_HD void operator()(std::uint32_t worker) const {
    stm::transaction<CM, Cfg> tx(locks, worker, cm);
    const layout lay = L;
    auto run = [&tx, &lay](const vtx& e) { attempt(tx, lay, e); };
    table.drain_blocks(tx, run, policy, worker, blocks, block_time{times, table.threads});
    stats.add(tx.counters());
  }
};

/// The same, native bodies.
struct native_drain_kernel {
  stm::stats_ref stats;
  stm::txtable_ref<vtx> table;
  stm::txtable_policy policy;
  layout L;
  std::uint32_t* record_locks;
  stm::txtable_blocks blocks;
  unsigned long long* times;
  stm::manager_tuning tune;  // native_tx::tune
  STM_HD void operator()(std::uint32_t worker) const {
    native_tx tx;
    tx.tid = worker;
    tx.tune = tune;
    const layout lay = L;
    std::uint32_t* const rl = record_locks;
    auto run = [&tx, &lay, rl](const vtx& e) { native_attempt(tx, lay, rl, e); };
    table.drain_blocks(tx, run, policy, worker, blocks, block_time{times, table.threads});
    stats.add(tx.counters());
  }
};

/// One run: set up, launch until done, verify. make(L, table, policy, handed,
/// times) gives the drain kernel; locks_free() says whether every lock is free after.
template <class Exec, class Make, class LocksFree>
outcome run_with(const config& c, std::uint32_t semantic_retries, const layout& shape, stm::buffer<int>& arena,
                 stm::stats_block& stats, Make&& make, LocksFree&& locks_free, void (*on_progress)(double)) {
  const stm::backend where = Exec::where;
  outcome out;
  out.semantic_retries = semantic_retries;
  layout L = shape;
  L.arena = arena.data();
  out.semantic_items = L.sem_items;
  out.pairs_per_thread = L.pairs;
  const std::uint32_t workers = L.words() < 65536 ? static_cast<std::uint32_t>(L.words()) : 65536u;
  Exec::run(workers, init_kernel{L, c.units, workers});
  if (L.holders) Exec::run(L.holders, init_holders_kernel{L});

  stm::txtable<vtx> table(where, c.threads, c.tpt);
  stm::buffer<long long> per_thread(where, c.threads);
  stm::buffer<std::uint32_t> handed(where, 1);
  stm::buffer<unsigned long long> times(where, 2ull * c.threads);
  stm::txtable_policy policy = c.policy;
  policy.semantic_retries = semantic_retries;
  generate_kernel gen{table.data(), L, c.threads, c.tpt, c.user, c.queries, mix_of(c), 0};
  auto k = make(L, table.ref(), policy, handed.data(), times.data());
  out.drainers = k.blocks.workers;
  do {
    gen.launch = out.launches++;
    Exec::run(c.threads, gen);  // not timed: the table is the application's input
    if (c.presort) table.template presort<Exec>();
    table.reset();
    Exec::run(c.threads, count_kernel{table.data(), c.threads, c.tpt, per_thread.data()});
    out.semantic_capable += static_cast<std::uint64_t>(Exec::template sum<long long, long long>(per_thread.data(), c.threads));
    handed.fill(0);
    out.seconds += Exec::run(k.blocks.workers, k);
    add_block_times(out, times.to_vector(), k.blocks.workers);  // not timed
    const stm::txtable_audit a = table.template audit<Exec>(no_value{});
    out.table.committed += a.committed;
    out.table.unresolved += a.unresolved;
    out.table.pending += a.pending;
    out.table.committed_after_conflict += a.committed_after_conflict;
    out.table.conflicts += a.conflicts;
    out.transactions += table.size();
    if (on_progress && c.seconds > 0) on_progress(out.seconds / c.seconds);
  } while (out.seconds < c.seconds);

  out.stats = stats.read();
  std::vector<int> final_state = arena.to_vector();
  const report r = verify(L, final_state, out.table.unresolved == 0);
  if (c.keep_state) out.state = std::move(final_state);
  out.reservations = r.reservations;
  const bool free_locks = locks_free();
  const std::uint64_t sem = out.stats.aborts[static_cast<std::uint32_t>(stm::abort_cause::semantic)];
  const bool once = out.table.pending == 0 && out.table.committed == out.stats.commits &&
                    out.table.committed + out.table.unresolved == out.transactions;
  out.verified = r.ok && once && free_locks && sem == out.table.conflicts;
  out.message = std::to_string(r.reservations) + " reservations held, " +
                (r.ok ? std::string("every item, customer and holder consistent")
                      : std::to_string(r.violations) + " violations (first: " + r.first + ")") +
                "; " + std::to_string(out.table.committed) + " committed + " + std::to_string(out.table.unresolved) +
                " unresolved + " + std::to_string(out.table.pending) + " pending of " + std::to_string(out.transactions) +
                " (commit counter " + std::to_string(out.stats.commits) + "), semantic conflicts " + std::to_string(sem) +
                " (table saw " + std::to_string(out.table.conflicts) + "), capacity aborts " +
                std::to_string(out.stats.aborts[static_cast<std::uint32_t>(stm::abort_cause::capacity)]) + ", locks " +
                (free_locks ? "free" : "NOT free");
  return out;
}

}  // namespace detail

/// Runs the workload under contention manager CM (descriptor capacities Cfg).
template <class Exec, class CM, class Cfg = tx_config>
outcome run(const config& c, const CM& cm, void (*on_progress)(double) = nullptr) {
  check(c);
  const layout shape = layout_of(c);
  stm::buffer<int> arena(Exec::where, shape.words());
  const std::uint64_t num_locks = (shape.words() + c.hash - 1) / c.hash;
  stm::lock_table locks(Exec::where, num_locks, arena.data(), 4ull * c.hash,
                        stm::lock_table::auto_spread(num_locks));
  stm::stats_block stats(Exec::where);
  auto make = [&](const layout& L, stm::txtable_ref<vtx> t, const stm::txtable_policy& p, std::uint32_t* handed,
                  unsigned long long* times) {
    const std::uint32_t drainers = Exec::template resident<detail::drain_kernel<CM, Cfg>>(c.threads);
    return detail::drain_kernel<CM, Cfg>{cm, locks.ref(), stats.ref(), t, p, L, stm::txtable_blocks{handed, drainers}, times};
  };
  auto free_locks = [&] {
    for (std::uint32_t w : locks.snapshot())
      if (!stm::lock_word::is_free(w)) return false;
    return true;
  };
  return detail::run_with<Exec>(c, stm::semantic_retries_v<CM>, shape, arena, stats, make, free_locks, on_progress);
}

/// Runs the same entries natively (detail/native.hpp): per-record try-locks.
/// Semantic conflicts are postponed by the table as under prstm. The pause
/// after a busy lock is capped by the tuning's backoff_max_ns (0: native_tx's
/// default); its wait_polls is unused (no lock is waited for).
template <class Exec>
outcome run_native(const config& c, const stm::manager_tuning& tune = {}, void (*on_progress)(double) = nullptr) {
  check(c);
  const layout shape = layout_of(c);
  stm::buffer<int> arena(Exec::where, shape.words());
  stm::buffer<std::uint32_t> record_locks(Exec::where, std::uint64_t(shape.items()) + shape.customers + shape.holders);
  stm::stats_block stats(Exec::where);
  auto make = [&](const layout& L, stm::txtable_ref<vtx> t, const stm::txtable_policy& p, std::uint32_t* handed,
                  unsigned long long* times) {
    const std::uint32_t drainers = Exec::template resident<detail::native_drain_kernel>(c.threads);
    return detail::native_drain_kernel{stats.ref(), t, p, L, record_locks.data(), stm::txtable_blocks{handed, drainers}, times,
                                       tune};
  };
  auto free_locks = [&] {
    for (std::uint32_t w : record_locks.to_vector())
      if (w != 0) return false;
    return true;
  };
  return detail::run_with<Exec>(c, 0, shape, arena, stats, make, free_locks, on_progress);
}

}  // namespace stm::workloads::vacation
