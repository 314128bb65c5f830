// SPDX-License-Identifier: Apache-2.0
// workloads/bank/bank.hpp - the bank benchmark of the PR-STM paper (section
// 4.1, semantic experiments of 4.3), driven by the global transaction table of
// Algorithm 3 (stm/txtable.hpp). Written once over an execution policy
// (cpu_exec / gpu_exec) and a contention manager.
//
// Accounts are 4-byte balances (2,621,440 = 10 MB by default). Every logical
// thread owns a block of `tpt` transactions of the table, generated on the
// backend from (seed, thread, launch):
//   deposit(a, x)        a += x                         semantic tag 1
//   withdraw(a, x)       a -= x, needs a >= x            semantic tag 0
//   transfer(a, b, x)    a -= x, b += x, needs a >= x    semantic tag 0
//   query(a, b)          reads a and b (read-only)       semantic tag 1
// A withdrawal or transfer that finds too little money declares a semantic
// conflict (TX_SEMANTIC_ABORT) and is postponed by the table.
//
// The mix. --read-only R: R% of the table are queries. --semantic P: P% of the
// other (update) transactions are semantic pairs, a deposit(a, x) and, in the
// same thread's block, a withdrawal or transfer of x out of a, where a is one of
// the "semantic accounts", which start empty: the withdrawal can only commit
// after a deposit (its own, or another pair's still to be repaid). So at most
// half of the pair transactions, P/2 % of the updates, can meet a semantic
// conflict; the result reports that number (semantic_capable). The other
// updates are transfers of 1-10 out of the other accounts, which start with
// `initial` (1,000,000) each, so they cannot run dry in any run this tool does.
// The semantic accounts are the first round(accounts x P / 100).
//
// Audits (TinySTM's read-all transaction). --read-all A: A% of the table are
// audits that read --audit-size R accounts and check their total. The
// accounts form accounts / R groups of R accounts spread over the table
// (group g: g, g + G, g + 2G, ... with G = accounts / R), and in such a run a
// transfer moves money within one group, so every group always holds R x
// initial: an audit reads one whole group, and a committed audit with another
// total fails the run. With --opaque (tx_config Opaque = true, the lock table
// then keeps its commit clock) a body that sees a wrong total fails the run
// too, in any attempt. Audits need a descriptor with room for R reads: such a
// run uses one of audit_capacity reads for every transaction (on the GPU it
// lives in local memory, 32 KB per thread at 1,024 reads, so GPU audits are
// capped at 1,024); a run without audits keeps the small descriptor that
// stays in registers, and a lock table without a clock or escalation token. Audits need
// --semantic 0 (deposits and withdrawals would move a group's total) and
// --driver table.
//
// Every block is shuffled; --presort sorts each block by descending tag (the
// paper's "pre-sorted" table): every deposit then precedes the withdrawals of
// its thread, and no semantic conflict can occur (a semantic account always
// holds at least the sum of the pending withdrawals whose deposit committed).
// Without presort every postponed withdrawal is still resolvable by running
// threads: money that another pair took early is repaid by that pair's deposit,
// which sits in a thread that has not finished.
//
// The drivers (--driver): `table` drains the table with Algorithm 3 (one
// resident worker per place, block after block: stm/txtable.hpp); `loop` runs
// each logical thread's block as a kernel written like the README's plain
// example would, a per-thread loop with one TX_BEGIN/TX_END per transaction;
// `for` runs it with the loop form TX_FOR (stm/tx_macros.hpp). The two kernel
// forms give a semantic conflict up at once (it ends the transaction, as
// TX_END does): the entry is reported unresolved, with one conflict.
//
// Invariants checked after every run: total money = initial + committed
// deposits - committed withdrawals (recounted from the table); no balance is
// negative; every transaction committed exactly once (table's finish flags ==
// commit counter) or is reported unresolved, none left pending; every lock word
// free; semantic conflicts counted by the transactions == those the table saw.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "cmp/contention_manager.hpp"
#include "stm/backoff.hpp"
#include "stm/buffer.hpp"
#include "stm/lock_table.hpp"
#include "stm/stats.hpp"
#include "stm/tx_macros.hpp"
#include "stm/txtable.hpp"
#include "workloads/detail/spread.hpp"

#if defined(__CUDACC__)
#include <thrust/execution_policy.h>
#include <thrust/sort.h>
#endif

namespace stm::workloads::bank {

/// Which code runs the table's transactions (see the file comment).
enum class driver : std::uint8_t { table, loop, for_each };
inline const char* driver_name(driver d) {
  return d == driver::table ? "table" : d == driver::loop ? "loop" : "for";
}
/// "table", "loop" or "for"; throws stm::usage_error otherwise.
inline driver parse_driver(const std::string& s) {
  if (s == "table") return driver::table;
  if (s == "loop") return driver::loop;
  if (s == "for") return driver::for_each;
  throw stm::usage_error("--driver must be table, loop or for, got '" + s + "'");
}

struct config {
  std::uint32_t accounts = 2621440;  // 10 MB of 4-byte balances, as the paper
  std::uint32_t threads = 6720;      // the paper's default launch
  std::uint32_t hash = 1;            // accounts per lock (lock coverage)
  std::uint32_t lock_spread = 0;     // words per lock slot (stm/lock_table.hpp); 0: lock_table::auto_spread
  std::uint32_t tpt = 64;            // transactions per thread (one table per launch)
  double seconds = 0;                // > 0: timed mode, new tables until this much kernel time; 0: drain one table
  std::uint64_t seed = 1;
  double semantic = 0;               // % of update transactions in semantic pairs
  double read_only = 0;              // % of the table that are balance queries
  double read_all = 0;               // % of the table that are audits (read a group, check its total)
  std::uint32_t audit_size = 1024;   // accounts an audit reads (a divisor of accounts)
  bool presort = false;              // sort each block by descending tag before the launch
  int initial = 1000000;             // starting balance of the non-semantic accounts
  stm::txtable_policy policy{};      // postponement bound (semantic_retries comes from the manager)
  driver drive = driver::table;      // who runs the transactions
  bool opaque = false;               // tx_config's Opaque (the bank validates at commit: false); with
                                     // audits the lock table then keeps its commit clock
  bool clock = false;                // the lock table keeps its commit clock (lock_table's default, so
                                     // the configuration of a user's table); else only with audits
  bool native = false;               // the native baseline (native_kernel) instead of the STM

  /// Whether the run's lock table keeps the commit clock: asked for, or opaque audits.
  bool table_clock() const { return clock || (read_all > 0 && opaque); }
};

struct outcome {
  stm::tx_stats stats;
  stm::txtable_audit table;     // summed over launches
  double seconds = 0;           // kernel time of the drain launches (CUDA events on the GPU)
  double prepare_seconds = 0;   // kernel time of the untimed launches that prepare the tables (prepare_kernel)
  std::uint64_t launches = 0;
  std::uint64_t transactions = 0;      // table entries run, all launches
  std::uint64_t semantic_capable = 0;  // withdrawals/transfers that need a deposit first
  std::uint64_t queries = 0;
  // Audits: committed, their attempts, totals wrong in a committed audit or
  // seen by an opaque body.
  std::uint64_t audits = 0, audit_attempts = 0, wrong_totals = 0;
  std::uint32_t semantic_accounts = 0;
  std::uint32_t semantic_retries = 0;  // the manager's (0: postpone)
  std::uint32_t lock_spread = 1;       // words per lock slot used
  long long total = 0, expected = 0;
  std::uint64_t negative = 0;
  // How long the logical threads of a launch took to drain their blocks: the
  // median and the slowest, summed over launches. A launch lasts as long as
  // its slowest worker's run of blocks (a worker drains block after block).
  double thread_seconds_p50 = 0, thread_seconds_max = 0, thread_seconds_mean = 0;
  // Where the threads' drain time went, all threads and launches together
  // (stm::txtable_drain_times): in attempts, and in the pauses asked for. The
  // rest is waiting for the other lanes of the warp and the loop itself.
  double thread_seconds_total = 0, attempt_seconds = 0, pause_seconds = 0;
  bool locks_free = false;
  bool verified = false;
  std::string message;
};

enum kind : std::uint16_t { deposit = 0, withdraw = 1, transfer = 2, query = 3, audit = 4 };

/// Reads an audit descriptor holds: every transaction of a run with audits
/// uses it (see above).
constexpr std::uint32_t audit_capacity_on(stm::backend where) { return where == stm::backend::gpu ? 1024u : 4096u; }
template <class Exec>
inline constexpr std::uint32_t audit_capacity = audit_capacity_on(Exec::where);

/// One table entry (16 bytes: one vector load).
struct bank_tx {
  std::uint32_t from;   // withdraw/transfer source, query's first account
  std::uint32_t to;     // deposit/transfer target, query's second account
  std::int32_t amount;
  std::uint16_t kind;
  std::uint8_t tag;       // the programmer's semantic priority: deposit 1, withdraw 0
  std::uint8_t semantic;  // 1: needs a deposit first (counted as semantic_capable)
  STM_HD std::uint32_t priority() const { return tag; }
};
static_assert(sizeof(bank_tx) == 16 && std::is_trivially_copyable_v<bank_tx>);

/// Per-thread generator (xorshift64*), seeded from (seed, thread, launch).
struct rng {
  std::uint64_t s;
  STM_HD rng(std::uint64_t seed, std::uint32_t tid, std::uint64_t launch)
      : s((seed + 1) * 0x9E3779B97F4A7C15ull ^ (std::uint64_t(tid) << 20) ^ (launch * 0xD1B54A32D192ED03ull)) {
    for (int i = 0; i < 4; ++i) next();
  }
  STM_HD std::uint64_t next() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 0x2545F4914F6CDD1Dull;
  }
  STM_HD std::uint32_t below(std::uint32_t n) { return static_cast<std::uint32_t>(((next() >> 32) * n) >> 32); }
};

/// Fills thread tid's block of the table (then shuffles it). Blocks are
/// interleaved (stm/txtable.hpp): entry k of thread tid at txtable_index(tid, k, threads).
struct generate_kernel {
  bank_tx* table;
  std::uint32_t threads;
  std::uint32_t tpt;
  std::uint32_t accounts;
  std::uint32_t semantic_accounts;  // [0, S) start empty
  std::uint32_t t_query;            // unit thresholds over 2^32: query, then pair, else single
  std::uint32_t t_pair;
  std::uint64_t seed;
  std::uint64_t launch;
  std::uint32_t t_audit = 0;   // unit threshold over 2^32 of an audit (own draw; 0: no audits)
  std::uint32_t groups = 0;    // audit groups G (0: no audits); transfers stay within a group
  std::uint32_t audit_size = 0;

  STM_HD std::uint32_t other(rng& r, std::uint32_t a) const {  // a distinct account, uniformly
    std::uint32_t b = r.below(accounts - 1);
    return b >= a ? b + 1 : b;
  }
  STM_HD std::uint32_t partner(rng& r, std::uint32_t a) const {  // transfer target
    if (groups == 0) return other(r, a);
    return static_cast<std::uint32_t>((a + std::uint64_t(groups) * (1 + r.below(audit_size - 1))) % accounts);
  }

  STM_HD void operator()(std::uint32_t tid) const {
    rng r(seed, tid, launch);
    auto blk = [tid, this](std::uint32_t k) -> bank_tx& { return table[stm::txtable_index(tid, k, threads)]; };
    const std::uint32_t S = semantic_accounts, plain = accounts - semantic_accounts;
    for (std::uint32_t k = 0; k < tpt;) {
      if (t_audit != 0 && static_cast<std::uint32_t>(r.next() >> 32) < t_audit) {
        blk(k++) = bank_tx{r.below(groups), 0, 0, audit, 1, 0};
        continue;
      }
      const std::uint32_t u = static_cast<std::uint32_t>(r.next() >> 32);
      const std::int32_t x = 1 + static_cast<std::int32_t>(r.below(10));
      if (u < t_query) {
        const std::uint32_t a = r.below(accounts);
        blk(k++) = bank_tx{a, other(r, a), 0, query, 1, 0};
      } else if (u < t_pair && k + 1 < tpt) {
        const std::uint32_t a = r.below(S);
        blk(k++) = bank_tx{0, a, x, deposit, 1, 0};
        if (r.next() & (1ull << 40)) blk(k++) = bank_tx{a, other(r, a), x, transfer, 0, 1};
        else blk(k++) = bank_tx{a, 0, x, withdraw, 0, 1};
      } else if (plain > 0) {
        const std::uint32_t a = S + r.below(plain);
        blk(k++) = bank_tx{a, partner(r, a), x, transfer, 0, 0};
      } else {
        blk(k++) = bank_tx{0, r.below(S), x, deposit, 1, 0};  // P = 100 and no room for a pair
      }
    }
    for (std::uint32_t k = tpt; k > 1; --k) {  // Fisher-Yates: this thread's block only
      const std::uint32_t j = r.below(k);
      const bank_tx t = blk(k - 1);
      blk(k - 1) = blk(j);
      blk(j) = t;
    }
  }
};

/// Money a committed entry adds to the bank (deposits in, withdrawals out).
struct money_of {
  STM_HD long long operator()(const bank_tx& e) const {
    return e.kind == deposit ? e.amount : e.kind == withdraw ? -static_cast<long long>(e.amount) : 0;
  }
};
/// Prepares thread tid's block for the next launch, in one pass on the
/// backend instead of a host-filled reset and a counting launch: generates it
/// (generate_kernel), sets its state words pending, and adds its entries that
/// can meet a semantic conflict and its queries and audits to the thread's
/// running counts (summed once after the last launch). Thread 0 also resets
/// the counter that hands out blocks (txtable_blocks) for the drain.
struct prepare_kernel {
  generate_kernel gen;
  std::uint32_t* state;    // the table's state words
  long long* counts;       // [0, threads): semantic-capable entries, [threads, 2 threads): queries and audits
  std::uint32_t* handed;   // the drain's block counter
  STM_HD void operator()(std::uint32_t tid) const {
    gen(tid);
    const std::uint32_t threads = gen.threads;
    long long s = 0, q = 0;
    for (std::uint32_t k = 0; k < gen.tpt; ++k) {
      const std::uint64_t i = stm::txtable_index(tid, k, threads);
      const bank_tx& e = gen.table[i];
      s += e.semantic;
      q += e.kind == query || e.kind == audit;
      state[i] = stm::txstate::pending;
    }
    counts[tid] += s;
    counts[threads + tid] += q;
    if (tid == 0) *handed = 0;
  }
};

/// One thread's drain of one launch (diagnosis; not part of the timing).
struct thread_times {
  unsigned long long ns;             // drain time on the device-wide clock
  unsigned long long ticks;          // the same span on the lane's clock (stm::platform::ticks)
  unsigned long long attempt_ticks;  // of which in attempts
  unsigned long long pause_ns;       // pauses asked for
};

/// After a launch: thread tid's drain time as a sort key (keys[tid], ns), and
/// its time, its time in attempts (ticks to ns by the thread's own ratio: the
/// SM clock varies with load) and its pauses added to its running sums
/// (sums[tid], sums[threads + tid], sums[2 threads + tid], ns; summed once after
/// the last launch).
struct thread_times_kernel {
  const thread_times* times;
  unsigned long long* keys;
  double* sums;
  std::uint32_t threads;
  STM_HD void operator()(std::uint32_t tid) const {
    const thread_times t = times[tid];
    keys[tid] = t.ns;
    sums[tid] += double(t.ns);
    if (t.ticks > 0) sums[threads + tid] += double(t.attempt_ticks) * double(t.ns) / double(t.ticks);
    sums[2ull * threads + tid] += double(t.pause_ns);
  }
};

/// The body of entry e, one attempt on tx. Reads and writes through
/// tx.read/tx.write (a conflict returns at once: the macros' rule), so that
/// every driver runs the same body inside its own form. Opaque = false is
/// enough for it: the body only adds, subtracts and compares, so a value it
/// reads can never make it crash or loop. A stale value can make it declare
/// a semantic conflict that was not one: that only postpones the transaction
/// (or, in the kernel forms, gives it up), it never commits on a stale value.
template <class Tx>
STM_HD inline void apply(Tx& tx, const bank_tx& e, int* bal) {
  switch (e.kind) {
    case deposit: {
      const int b = tx.read(&bal[e.to]);
      if (!tx.active()) return;
      tx.write(&bal[e.to], b + e.amount);
      return;
    }
    case withdraw: {
      const int a = tx.read(&bal[e.from]);
      if (!tx.active()) return;
      if (a < e.amount) return tx.semantic_conflict();
      tx.write(&bal[e.from], a - e.amount);
      return;
    }
    case transfer: {
      const int a = tx.read(&bal[e.from]);
      if (!tx.active()) return;
      const int b = tx.read(&bal[e.to]);
      if (!tx.active()) return;
      if (a < e.amount) return tx.semantic_conflict();
      tx.write(&bal[e.from], a - e.amount);
      if (!tx.active()) return;
      tx.write(&bal[e.to], b + e.amount);
      return;
    }
    default: {  // query: a consistent look at two balances
      (void)tx.read(&bal[e.from]);
      if (!tx.active()) return;
      (void)tx.read(&bal[e.to]);
      return;
    }
  }
}

/// An audit's body (entry e of kind audit, one attempt on tx): the total of
/// the audit_size accounts of group e.from (stride `groups`), as far as the
/// attempt got (a conflict returns at once, as in apply()).
template <class Tx>
STM_HD inline long long audit_sum(Tx& tx, const bank_tx& e, const int* bal, std::uint32_t groups,
                                  std::uint32_t audit_size) {
  long long sum = 0;
  for (std::uint32_t i = 0; i < audit_size; ++i) {
    sum += tx.read(&bal[e.from + std::uint64_t(i) * groups]);
    if (!tx.active()) break;
  }
  return sum;
}

/// The descriptor's configuration: 4 reads, 4 writes, opaque or not.
template <bool Opaque>
using tx_config_of = stm::tx_config<4, 4, Opaque>;

/// Algorithm 3 over the bank table: one descriptor per worker, which drains
/// the blocks (logical threads) `blocks` hands it; counters flushed once.
/// Cfg: tx_config_of<Opaque> (see apply()), or with more than 4 reads, a run
/// with audits.
template <class CM, class Cfg = tx_config_of<false>>
struct drain_kernel {
  CM cm;
  stm::lock_table_ref locks;
  stm::stats_ref stats;
  stm::txtable_ref<bank_tx> table;
  stm::txtable_policy policy;
  int* balance;
  stm::txtable_blocks blocks;
  thread_times* times = nullptr;  // optional: where each logical thread's drain time went
  // Audits (Cfg with room for them): group stride, accounts per audit, the
  // right total, and [audits, attempts, wrong totals] summed over workers.
  std::uint32_t groups = 0, audit_size = 0;
  long long audit_total = 0;
  unsigned long long* audit_out = nullptr;
  static constexpr bool has_audits = Cfg::max_reads > 4;

  STM_HD void operator()(std::uint32_t worker) const {
    stm::transaction<CM, Cfg> tx(locks, worker, cm);
    int* const bal = balance;
    unsigned long long audits = 0, attempts = 0, wrong = 0;
    auto run = [&, bal](const bank_tx& e) {
      long long sum = 0;
      TX_ATTEMPT(tx) {
        if (has_audits && e.kind == audit) {
          sum = audit_sum(tx, e, bal, groups, audit_size);
          // An opaque body sees one snapshot, even in an attempt that aborts.
          if (Cfg::opaque && tx.active() && sum != audit_total) ++wrong;
        } else {
          apply(tx, e, bal);
        }
      }
      TX_ATTEMPT_END(tx);
      if (has_audits && e.kind == audit && tx.committed()) {
        ++audits;
        attempts += tx.attempts() + 1;
        if (sum != audit_total) ++wrong;
      }
    };
    thread_times* const tt = times;
    table.drain_blocks(tx, run, policy, worker, blocks, [tt](std::uint32_t t, const stm::txtable_drain_times& d) {
      if (tt != nullptr) tt[t] = thread_times{d.ns, d.ticks, d.attempt_ticks, d.pause_ns};
    });
    stats.add(tx.counters());
    if (audit_out != nullptr) {
      stm::atomic_ref<unsigned long long>(audit_out[0]).fetch_add(audits, stm::memory_order_relaxed);
      stm::atomic_ref<unsigned long long>(audit_out[1]).fetch_add(attempts, stm::memory_order_relaxed);
      stm::atomic_ref<unsigned long long>(audit_out[2]).fetch_add(wrong, stm::memory_order_relaxed);
    }
  }
};

/// The kernel forms (drivers loop and for): logical thread tid runs its block
/// of the table in order, as a user's kernel would run its own transactions;
/// each entry's state word then says how it ended (committed; a semantic
/// conflict or an overflow: unresolved). times[tid] gets the thread's span
/// (its attempts and pauses are not split out: 0).
template <class CM, bool Opaque, bool Loop>
struct thread_kernel {
  CM cm;
  stm::lock_table_ref locks;
  stm::stats_ref stats;
  stm::txtable_ref<bank_tx> table;
  int* balance;
  thread_times* times;

  STM_HD void finish(std::uint32_t tid, std::uint32_t j, const stm::transaction<CM, tx_config_of<Opaque>>& tx) const {
    const std::uint32_t w = tx.committed() ? stm::txstate::make(stm::txstate::committed, 0)
                            : stm::txstate::make(stm::txstate::unresolved, tx.status() == stm::tx_status::semantic ? 1 : 0);
    stm::atomic_ref<std::uint32_t>(table.state[table.index(tid, j)]).store(w, stm::memory_order_relaxed);
  }

  STM_HD void operator()(std::uint32_t tid) const {
    const std::uint64_t ns0 = stm::platform::global_ns(), ticks0 = stm::platform::ticks();
    stm::transaction<CM, tx_config_of<Opaque>> tx(locks, tid, cm);
    int* const bal = balance;
    const bank_tx* const entries = table.entries;
    if constexpr (Loop) {  // the README's plain form: one TX_BEGIN/TX_END per transaction
      for (std::uint32_t j = 0; j < table.per_thread; ++j) {
        const bank_tx e = entries[table.index(tid, j)];
        TX_BEGIN(tx) { apply(tx, e, bal); }
        TX_END(tx);
        finish(tid, j, tx);
      }
    } else {  // the loop form
      TX_FOR(tx, j, table.per_thread) { apply(tx, entries[table.index(tid, j)], bal); }
      TX_FOR_THEN(tx) { finish(tid, j, tx); }
    }
    times[tid] = thread_times{stm::platform::global_ns() - ns0, stm::platform::ticks() - ticks0, 0, 0};
    stats.add(tx.counters());
  }
};

// The native baseline (stm_bench --workload bank --impl native): the entries
// of the same table, each logical thread running its block in order as the
// kernel forms do, every entry under per-account try-locks taken in address
// order, the fine-grained locking a CUDA programmer writes without an STM.
//
// Locks: one 32-bit word per account (0 free, 1 held), `spread` words apart
// (lock_table::auto_spread of the account count, as the STM's table: a small
// bank's locks do not share 128-byte lines either, so the two compare the
// synchronization alone). A transfer or a query takes its two accounts' locks
// lowest first; when the second is taken it gives the first back and tries
// again after a jittered back-off (doubling from 32 ns up to 64 us), so no
// lane ever waits while holding a lock: no deadlock between accounts, nor
// between the lanes of a warp (each runs its entry and unlocks inside its
// retry loop). A withdrawal or a transfer
// that finds too little money gives up (unresolved, a semantic conflict), as
// the kernel forms of the STM do (`--driver loop|for`); audits are refused
// (an audit would lock a thousand accounts).
//
// Synchronization: a lock's CAS acquires and its unlock releases (the
// pairing of every mutex), so the balance words accessed between are the
// latest; they are accessed through relaxed atomic_refs, never plain loads.
// Counts: a commit per entry done; a lock abort per failed try (the native
// version of a retry); a semantic abort per entry given up.

/// Per-account try-locks (above).
struct account_locks_ref {
  std::uint32_t* words = nullptr;
  std::uint32_t spread_log2 = 0;

  STM_HD atomic_ref<std::uint32_t> at(std::uint32_t a) const {
    return atomic_ref<std::uint32_t>(words[std::size_t(a) << spread_log2]);
  }
  STM_HD bool try_lock(std::uint32_t a) const {
    std::uint32_t expect = 0;
    // acquire: pairs with the release store of the last holder's unlock.
    return at(a).compare_exchange_strong(expect, 1u, memory_order_acquire, memory_order_relaxed);
  }
  STM_HD void unlock(std::uint32_t a) const { at(a).store(0u, memory_order_release); }
  /// Both accounts' locks, lowest first (a == b: one lock), or neither.
  STM_HD bool try_lock_pair(std::uint32_t a, std::uint32_t b) const {
    const std::uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
    if (!try_lock(lo)) return false;
    if (lo == hi || try_lock(hi)) return true;
    unlock(lo);
    return false;
  }
  STM_HD void unlock_pair(std::uint32_t a, std::uint32_t b) const {
    if (a != b) unlock(a < b ? b : a);
    unlock(a < b ? a : b);
  }
};

/// Logical thread tid runs its block of the table under the account locks;
/// each entry's state word then says how it ended (committed, or unresolved
/// with a semantic conflict), as the kernel forms write it.
struct native_kernel {
  account_locks_ref locks;
  stm::stats_ref stats;
  stm::txtable_ref<bank_tx> table;
  int* balance;
  thread_times* times;

  STM_HD void operator()(std::uint32_t tid) const {
    const std::uint64_t ns0 = stm::platform::global_ns(), ticks0 = stm::platform::ticks();
    tx_counters n;
    for (std::uint32_t j = 0; j < table.per_thread; ++j) {
      const std::uint64_t i = table.index(tid, j);
      const bank_tx e = table.entries[i];
      // The accounts it touches: deposit the target; withdrawal the source;
      // transfer and query both.
      const bool two = e.kind == transfer || e.kind == query;
      const std::uint32_t a = e.kind == deposit ? e.to : e.from;
      const std::uint32_t b = two ? e.to : a;
      bool done = true;
      // The entry runs inside the loop, right where its locks were taken, and
      // gives them back there: no lane leaves the loop holding a lock, so none
      // waits for a warp-mate that still tries (which, without independent
      // thread scheduling, would never get its turn).
      for (std::uint32_t attempt = 0;; ++attempt) {
        if (locks.try_lock_pair(a, b)) {
          atomic_ref<int> from(balance[e.from]), to(balance[e.to]);
          if (e.kind == deposit) {
            to.store(to.load(memory_order_relaxed) + e.amount, memory_order_relaxed);
          } else if (e.kind == withdraw || e.kind == transfer) {
            const int have = from.load(memory_order_relaxed);
            done = have >= e.amount;
            if (done) {
              from.store(have - e.amount, memory_order_relaxed);
              if (e.kind == transfer) to.store(to.load(memory_order_relaxed) + e.amount, memory_order_relaxed);
            }
          } else {  // query: a consistent look at two balances
            (void)from.load(memory_order_relaxed);
            (void)to.load(memory_order_relaxed);
          }
          locks.unlock_pair(a, b);
          break;
        }
        ++n.aborts[static_cast<std::uint32_t>(abort_cause::lock)];
        platform::backoff_ns(backoff_span_ns(tid, attempt, 1u << 16));
      }
      if (done) ++n.commits;
      else ++n.aborts[static_cast<std::uint32_t>(abort_cause::semantic)];
      const std::uint32_t w =
          done ? stm::txstate::make(stm::txstate::committed, 0) : stm::txstate::make(stm::txstate::unresolved, 1);
      atomic_ref<std::uint32_t>(table.state[i]).store(w, memory_order_relaxed);
    }
    times[tid] = thread_times{stm::platform::global_ns() - ns0, stm::platform::ticks() - ticks0, 0, 0};
    stats.add(n);
  }
};

/// Counts the negative balances of [i*stride...] per worker (then summed).
struct negative_kernel {
  const int* balance;
  std::uint32_t accounts;
  std::uint32_t workers;
  long long* out;
  STM_HD void operator()(std::uint32_t w) const {
    long long n = 0;
    for (std::uint64_t i = w; i < accounts; i += workers) n += balance[i] < 0;
    out[w] = n;
  }
};
/// Counts the lock words not free after the run, [i*stride...] per worker (then summed).
struct busy_locks_kernel {
  stm::lock_table_ref locks;
  std::uint32_t workers;
  long long* out;
  STM_HD void operator()(std::uint32_t w) const {
    long long n = 0;
    for (std::uint64_t i = w; i < locks.num_locks; i += workers)
      n += !stm::lock_word::is_free(*locks.word_ptr(static_cast<std::uint32_t>(i)));
    out[w] = n;
  }
};
/// Starting balances: semantic accounts empty, the others `initial`.
struct init_kernel {
  int* balance;
  std::uint32_t accounts;
  std::uint32_t semantic_accounts;
  std::uint32_t workers;
  int initial;
  STM_HD void operator()(std::uint32_t w) const {
    for (std::uint64_t i = w; i < accounts; i += workers) balance[i] = i < semantic_accounts ? 0 : initial;
  }
};

/// The first round(accounts x P / 100) accounts, at least one when P > 0 and
/// at most accounts - 1 when P < 100.
inline std::uint32_t semantic_accounts(const config& c) {
  if (c.semantic <= 0) return 0;
  if (c.semantic >= 100) return c.accounts;
  double s = double(c.accounts) * c.semantic / 100.0 + 0.5;
  std::uint32_t n = static_cast<std::uint32_t>(s);
  if (n < 1) n = 1;
  if (n > c.accounts - 1) n = c.accounts - 1;
  return n;
}

/// Throws stm::usage_error for a configuration that cannot run.
inline void check(const config& c) {
  if (c.accounts < 2) throw stm::usage_error("--accounts must be at least 2, got " + std::to_string(c.accounts));
  if (c.threads == 0) throw stm::usage_error("--threads must be at least 1");
  if (c.tpt == 0) throw stm::usage_error("--tpt must be at least 1");
  if (c.hash == 0 || (c.hash & (c.hash - 1)) != 0)
    throw stm::usage_error("--hash must be a power of two, got " + std::to_string(c.hash));
  if (!(c.semantic >= 0 && c.semantic <= 100))
    throw stm::usage_error("--semantic must be a percentage in [0, 100], got " + std::to_string(c.semantic));
  if (!(c.read_only >= 0 && c.read_only <= 100))
    throw stm::usage_error("--read-only must be a percentage in [0, 100], got " + std::to_string(c.read_only));
  if (c.lock_spread > 32 || (c.lock_spread & (c.lock_spread - 1)) != 0)
    throw stm::usage_error("--lock-spread must be 0 (auto) or a power of two from 1 to 32, got " +
                           std::to_string(c.lock_spread));
  if (c.policy.max_postpones == 0) throw stm::usage_error("--max-postpones must be at least 1");
  if (c.initial < 100) throw stm::usage_error("the starting balance must be at least 100");
  if (!(c.read_all >= 0 && c.read_all <= 100))
    throw stm::usage_error("--read-all must be a percentage in [0, 100], got " + std::to_string(c.read_all));
  if (c.read_all > 0) {
    if (c.audit_size < 2 || c.audit_size > c.accounts || c.accounts % c.audit_size != 0)
      throw stm::usage_error("--audit-size must be at least 2 and divide --accounts (" + std::to_string(c.accounts) +
                             "), got " + std::to_string(c.audit_size));
    if (c.semantic > 0) throw stm::usage_error("--read-all needs --semantic 0 (audits check constant group totals)");
    if (c.drive != driver::table)
      throw stm::usage_error(std::string("--read-all needs --driver table, got ") + driver_name(c.drive));
    if (c.native) throw stm::usage_error("--read-all is not run by the native baseline (an audit would lock its group)");
  }
  if (std::uint64_t(c.threads) * c.tpt > (std::uint64_t(1) << 32))
    throw stm::usage_error("--threads x --tpt must stay below 2^32 transactions per table, got " +
                           std::to_string(std::uint64_t(c.threads) * c.tpt));
  stm::require_priorities(c.threads);
}

namespace detail {
/// The generator's thresholds on a 32-bit draw: R% of the slots are queries
/// and P% of the update slots are in pairs (a pair fills two slots).
struct mix {
  std::uint32_t query, pair;
};
/// Fraction f of the 32-bit range, saturated.
inline std::uint32_t threshold(double f) {
  const double t = f * 4294967296.0;
  return t >= 4294967295.0 ? 0xFFFFFFFFu : static_cast<std::uint32_t>(t);
}
inline mix mix_of(const config& c) {
  // Unit probabilities of a query, a pair and a single transfer.
  const double R = c.read_only / 100.0, P = c.semantic / 100.0;
  const double wq = R, wp = (1 - R) * P / 2, ws = (1 - R) * (1 - P), sum = wq + wp + ws;
  mix m;
  m.query = R >= 1 ? 0xFFFFFFFFu : threshold(wq / sum);
  m.pair = R >= 1 ? 0xFFFFFFFFu : (P >= 1 && R <= 0) ? 0xFFFFFFFFu : threshold((wq + wp) / sum);
  return m;
}

/// Add one launch's spread of the threads' drain times: the median and the
/// largest of keys[0, n) (thread_times_kernel's), which this reorders. On the
/// GPU the keys are sorted there and only those two are read back.
template <class Exec>
void add_spread(outcome& out, stm::buffer<unsigned long long>& keys) {
  const std::size_t n = keys.size();
  stm::workloads::detail::median_max s;
  if constexpr (Exec::where == stm::backend::gpu) {
#if defined(__CUDACC__)
    thrust::sort(thrust::device, keys.data(), keys.data() + n);
    unsigned long long mid = 0, top = 0;
    keys.download(&mid, 1, n / 2);  // the element nth_element puts in the middle
    keys.download(&top, 1, n - 1);
    s.p50 = double(mid) * 1e-9;
    s.max = double(top) * 1e-9;
#endif
  } else {
    s = stm::workloads::detail::median_and_max_seconds(keys.data(), keys.data() + n);
  }
  out.thread_seconds_p50 += s.p50;
  out.thread_seconds_max += s.max;
}

/// After the last launch: where the threads' drain time went, from the
/// running sums of thread_times_kernel (time, attempts, pauses; ns), summed
/// on the backend.
template <class Exec>
void add_time_sums(outcome& out, stm::buffer<double>& sums, std::uint32_t threads) {
  const double total = Exec::template sum<double, double>(sums.data(), threads);
  out.thread_seconds_total = total * 1e-9;
  out.thread_seconds_mean = total / double(threads) * 1e-9;  // each launch's mean, summed over launches (as p50, max)
  out.attempt_seconds = Exec::template sum<double, double>(sums.data() + threads, threads) * 1e-9;
  out.pause_seconds = Exec::template sum<double, double>(sums.data() + 2ull * threads, threads) * 1e-9;
}

/// Add one launch's table audit.
inline void add_audit(outcome& out, const stm::txtable_audit& a) {
  out.table.committed += a.committed;
  out.table.unresolved += a.unresolved;
  out.table.pending += a.pending;
  out.table.committed_after_conflict += a.committed_after_conflict;
  out.table.conflicts += a.conflicts;
  out.table.value += a.value;
}

/// After the last launch: what the tables held, all launches together, from
/// the threads' running counts (prepare_kernel): the entries that could meet
/// a semantic conflict, and the queries and audits.
template <class Exec>
void add_table_counts(outcome& out, stm::buffer<long long>& counts, std::uint32_t threads) {
  out.semantic_capable = static_cast<std::uint64_t>(Exec::template sum<long long, long long>(counts.data(), threads));
  out.queries = static_cast<std::uint64_t>(Exec::template sum<long long, long long>(counts.data() + threads, threads));
}

/// The balances and lock words after the run, counted on the backend (no
/// download of the accounts or the locks): the total money, the negative
/// balances, and whether every lock word is free.
template <class Exec>
void read_balances(outcome& out, stm::buffer<int>& balance, const stm::lock_table& locks, std::uint32_t workers) {
  const auto accounts = static_cast<std::uint32_t>(balance.size());
  out.total = Exec::template sum<int, long long>(balance.data(), accounts);
  stm::buffer<long long> partial(Exec::where, workers);
  Exec::run(workers, negative_kernel{balance.data(), accounts, workers, partial.data()});
  out.negative = static_cast<std::uint64_t>(Exec::template sum<long long, long long>(partial.data(), workers));
  Exec::run(workers, busy_locks_kernel{locks.ref(), workers, partial.data()});
  out.locks_free = Exec::template sum<long long, long long>(partial.data(), workers) == 0;
}

/// The run's verdict from its final state: money conserved, no negative
/// balance, every table entry committed once or unresolved, every lock free,
/// the semantic conflicts counted alike by the transactions and the table,
/// no audit saw a wrong total. out.verified and out.message.
inline void judge(outcome& out, const config& c) {
  const std::uint64_t sem_aborts = out.stats.aborts[static_cast<std::uint32_t>(stm::abort_cause::semantic)];
  const bool money = out.total == out.expected;
  const bool once = out.table.pending == 0 && out.table.committed == out.stats.commits &&
                    out.table.committed + out.table.unresolved == out.transactions;
  const bool conflicts = sem_aborts == out.table.conflicts;
  out.verified = money && out.negative == 0 && once && out.locks_free && conflicts && out.wrong_totals == 0;
  out.message = "total " + std::to_string(out.total) + " (expected " + std::to_string(out.expected) +
                " = initial + committed deposits - withdrawals), " + std::to_string(out.negative) +
                " negative balances, " + std::to_string(out.table.committed) + " committed + " +
                std::to_string(out.table.unresolved) + " unresolved + " + std::to_string(out.table.pending) +
                " pending of " + std::to_string(out.transactions) + " (commit counter " +
                std::to_string(out.stats.commits) + "), semantic conflicts " + std::to_string(sem_aborts) +
                " (table saw " + std::to_string(out.table.conflicts) + "), lock table " +
                (out.locks_free ? "free" : "NOT free");
  if (c.read_all > 0)
    out.message += ", " + std::to_string(out.audits) + " audits committed, " + std::to_string(out.wrong_totals) +
                   " wrong totals";
}

/// One run with descriptor configuration Cfg (see run() below).
template <class Exec, class CM, class Cfg>
outcome run(const config& c, const CM& cm, void (*on_progress)(double)) {
  static constexpr bool with_audits = drain_kernel<CM, Cfg>::has_audits;
  const stm::backend where = Exec::where;
  outcome out;
  out.semantic_accounts = semantic_accounts(c);
  out.semantic_retries = stm::semantic_retries_v<CM>;

  stm::buffer<int> balance(where, c.accounts);
  const std::uint32_t workers = c.accounts < 65536u ? c.accounts : 65536u;
  Exec::run(workers, init_kernel{balance.data(), c.accounts, out.semantic_accounts, workers, c.initial});
  const long long initial_total = static_cast<long long>(c.initial) * (c.accounts - out.semantic_accounts);
  const std::uint64_t num_locks = (std::uint64_t(c.accounts) + c.hash - 1) / c.hash;
  out.lock_spread = c.lock_spread ? c.lock_spread : stm::lock_table::auto_spread(num_locks);
  stm::lock_table locks(where, num_locks, balance.data(), sizeof(int) * std::uint64_t(c.hash), out.lock_spread,
                        /*clock=*/c.table_clock(), /*escalation=*/c.read_all > 0);
  stm::buffer<unsigned long long> audit_out(where, 3);
  const std::uint32_t groups = c.read_all > 0 ? c.accounts / c.audit_size : 0;
  stm::stats_block stats(where);
  stm::txtable<bank_tx> table(where, c.threads, c.tpt);
  // Per logical thread, across launches: the table counts (prepare_kernel),
  // the drain time's sums (thread_times_kernel); per launch: the drain times
  // and their sort keys.
  stm::buffer<long long> counts(where, 2ull * c.threads);
  stm::buffer<double> time_sums(where, 3ull * c.threads);
  stm::buffer<thread_times> times(where, c.threads);
  stm::buffer<unsigned long long> time_keys(where, c.threads);

  const stm::txtable_policy policy = stm::policy_for<CM>(c.policy);
  const mix m = mix_of(c);
  // As many workers as stay resident, each draining block after block (see
  // stm::txtable_blocks): when more logical threads are launched than stay
  // resident they run in waves, and a thread block holds its place until its
  // slowest thread is done (docs/design-decisions.md#resident-drainers).
  stm::buffer<std::uint32_t> handed(where, 1);
  prepare_kernel prepare{
      generate_kernel{table.data(), c.threads, c.tpt, c.accounts, out.semantic_accounts, m.query, m.pair, c.seed, 0,
                      c.read_all > 0 ? std::max(1u, threshold(c.read_all / 100.0)) : 0u, groups, c.audit_size},
      table.ref().state, counts.data(), handed.data()};
  const std::uint32_t drainers =
      c.drive == driver::table ? Exec::template resident<drain_kernel<CM, Cfg>>(c.threads) : c.threads;
  drain_kernel<CM, Cfg> k{cm, locks.ref(), stats.ref(), table.ref(), policy, balance.data(),
                          stm::txtable_blocks{handed.data(), drainers}, times.data()};
  if (c.read_all > 0) {
    k.groups = groups;
    k.audit_size = c.audit_size;
    k.audit_total = static_cast<long long>(c.initial) * c.audit_size;
    k.audit_out = audit_out.data();
  }
  // The native baseline's account locks (native_kernel): only when it runs.
  std::uint32_t native_spread_log2 = 0;
  while ((1u << native_spread_log2) < stm::lock_table::auto_spread(c.accounts)) ++native_spread_log2;
  stm::buffer<std::uint32_t> account_locks(where, c.native ? std::size_t(c.accounts) << native_spread_log2 : 0);
  auto launch = [&]() -> double {
    if (c.native)
      return Exec::run(c.threads, native_kernel{account_locks_ref{account_locks.data(), native_spread_log2},
                                                stats.ref(), table.ref(), balance.data(), times.data()});
    if constexpr (!with_audits) {  // the kernel forms: one thread per logical thread, as a user's kernel
      const auto locks_ref = locks.ref();
      const auto stats_ref = stats.ref();
      const auto table_ref = table.ref();
      if (c.drive == driver::loop)
        return Exec::run(c.threads, thread_kernel<CM, Cfg::opaque, true>{cm, locks_ref, stats_ref, table_ref,
                                                                         balance.data(), times.data()});
      if (c.drive == driver::for_each)
        return Exec::run(c.threads, thread_kernel<CM, Cfg::opaque, false>{cm, locks_ref, stats_ref, table_ref,
                                                                          balance.data(), times.data()});
    }
    return Exec::run(drainers, k);
  };
  // Between two timed launches only launches on the backend and a few scalar
  // reads: the table is generated, reset and counted there (prepare_kernel),
  // the drain times are summed and sorted there, the audit's sums are
  // reductions there (nothing proportional to the table or the threads crosses
  // to the host).
  do {
    prepare.gen.launch = out.launches++;
    out.prepare_seconds += Exec::run(c.threads, prepare);  // not timed: the table is the application's input
    if (c.presort) table.template presort<Exec>();
    out.seconds += launch();
    Exec::run(c.threads, thread_times_kernel{times.data(), time_keys.data(), time_sums.data(), c.threads});  // not timed
    add_spread<Exec>(out, time_keys);
    add_audit(out, table.template audit<Exec>(money_of{}));
    out.transactions += table.size();
    if (on_progress && c.seconds > 0) on_progress(out.seconds / c.seconds);
  } while (out.seconds < c.seconds);

  add_table_counts<Exec>(out, counts, c.threads);
  add_time_sums<Exec>(out, time_sums, c.threads);
  out.stats = stats.read();
  {
    const auto a = audit_out.to_vector();
    out.audits = a[0];
    out.audit_attempts = a[1];
    out.wrong_totals = a[2];
  }
  read_balances<Exec>(out, balance, locks, workers);
  if (c.native)
    out.locks_free = out.locks_free && Exec::template sum<std::uint32_t, long long>(account_locks.data(),
                                                                                   account_locks.size()) == 0;
  out.expected = initial_total + out.table.value;

  judge(out, c);
  return out;
}

}  // namespace detail

/// check(), and usage_error when backend `where` cannot hold the audits'
/// read sets.
inline void check_on(const config& c, stm::backend where) {
  check(c);
  if (c.read_all > 0 && c.audit_size > audit_capacity_on(where))
    throw stm::usage_error("--audit-size is at most " + std::to_string(audit_capacity_on(where)) + " on the " +
                           (where == stm::backend::gpu ? "GPU" : "CPU") + ", got " + std::to_string(c.audit_size));
}
template <class Exec>
void check_on(const config& c) {
  check_on(c, Exec::where);
}

/// Checks c (usage_error), then runs it. A run with audits uses a descriptor
/// of audit_capacity<Exec> reads for every transaction (and, opaque, a lock
/// table with the commit clock); else the small tx_config_of<c.opaque>.
template <class Exec, class CM>
outcome run(const config& c, const CM& cm, void (*on_progress)(double) = nullptr) {
  check_on<Exec>(c);
  if constexpr (stm::cm::log_capacity<CM>::value != 0)
    if (c.read_all > 0 && c.audit_size > stm::cm::log_capacity<CM>::value)
      throw stm::usage_error(std::string("--audit-size is at most ") + std::to_string(stm::cm::log_capacity<CM>::value) +
                             " under --cm " + CM::name + " (its lock log)");
  if (c.read_all > 0 && c.opaque)
    return detail::run<Exec, CM, stm::tx_config<audit_capacity<Exec>, 4, true>>(c, cm, on_progress);
  if (c.read_all > 0) return detail::run<Exec, CM, stm::tx_config<audit_capacity<Exec>, 4, false>>(c, cm, on_progress);
  if (c.opaque) return detail::run<Exec, CM, tx_config_of<true>>(c, cm, on_progress);
  return detail::run<Exec, CM, tx_config_of<false>>(c, cm, on_progress);
}

}  // namespace stm::workloads::bank
