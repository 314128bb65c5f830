// SPDX-License-Identifier: Apache-2.0
// workloads/array/array.hpp - the random-array benchmark of the GPU-STM
// literature: N words, each transaction reads R of them and moves one unit
// between W of those it read, so the sum of the array never changes.
//
// The transactional kernel is written as a user writes one (TX_FOR over the
// thread's transactions, TX_READ / TX_WRITE in the body); the native kernel
// runs the same transactions under hand-written fine-grained locks, the way a
// CUDA programmer would without an STM: one lock word per array word, every
// word of the transaction locked in address order by try-lock, all released
// and retried after a randomized pause when one is taken.
//
// Which words. Transaction j of thread t draws its words from a counter-based
// stream (seed, t, j): the array is cut into R strata of N / R words and the
// transaction takes one word at random in each stratum. The words are then
// distinct and already in address order (the native kernel's lock order) and
// every word is equally likely to be taken; R random words of the whole array
// would need a sort per transaction in the native kernel and a duplicate check
// in both. The W written words are W consecutive strata (mod R) from a random
// one: even positions lose a unit, odd ones gain it, so the sum is conserved
// whatever the interleaving, and only an atomicity or isolation failure (a
// lost or torn update) can change it. A read-only transaction (--read-only P
// percent of them) reads its R words and writes nothing.
//
// Verification: the array's sum equals N x initial value, every transaction
// committed exactly once (commits == transactions), and the lock table (or the
// native locks) is free at the end.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stm/buffer.hpp"
#include "stm/error.hpp"
#include "stm/lock_table.hpp"
#include "stm/lock_word.hpp"
#include "stm/platform.hpp"
#include "stm/stats.hpp"
#include "stm/stm.hpp"
#include "workloads/detail/random.hpp"

namespace stm::workloads::array {

/// How the transactions run: under the STM, opaque (every read validated as it
/// is made) or with commit-time validation, or under per-word locks.
enum class impl { tx_opaque, tx_commit, native };

inline const char* name_of(impl v) {
  switch (v) {
    case impl::tx_opaque: return "tx";
    case impl::tx_commit: return "tx";
    case impl::native: return "native";
  }
  return "?";
}
inline const char* validation_of(impl v) {
  return v == impl::tx_opaque ? "opaque" : v == impl::tx_commit ? "commit" : "none";
}

inline constexpr std::uint32_t max_reads = 256;
inline constexpr std::uint32_t max_writes = 8;
inline constexpr std::int32_t initial_value = 1000;  // words may go negative: int32, summed in int64

struct config {
  std::uint64_t words = 1u << 21;  ///< N
  std::uint32_t reads = 16;        ///< R, 1..max_reads
  std::uint32_t writes = 2;        ///< W, even, 0..min(R, max_writes)
  std::uint32_t read_only = 0;     ///< percent of transactions that only read
  std::uint32_t threads = 6720;
  std::uint64_t transactions = 0;  ///< in all (0: 4 per thread, at least 65,536)
  std::uint32_t hash = 1;          ///< words per lock of the STM's lock table
  std::uint64_t seed = 1;
  impl variant = impl::tx_opaque;
};

/// usage_error for a configuration the workload cannot run.
inline void check(const config& c) {
  if (c.reads < 1 || c.reads > max_reads)
    throw usage_error("--reads must be in [1, " + std::to_string(max_reads) + "]");
  if (c.writes % 2 != 0 || c.writes > c.reads || c.writes > max_writes)
    throw usage_error("--writes must be even and at most min(--reads, " + std::to_string(max_writes) + ")");
  if (c.words < c.reads) throw usage_error("--words must be at least --reads (one word per stratum)");
  if (c.words > (std::uint64_t(1) << 31)) throw usage_error("--words must be at most 2^31");
  if (c.threads == 0) throw usage_error("--threads must be at least 1");
  if (c.read_only > 100) throw usage_error("--read-only is a percentage in [0, 100]");
}

inline std::uint64_t transactions_of(const config& c) {
  if (c.transactions != 0) return c.transactions;
  const std::uint64_t t = 4ull * c.threads;
  return t < 65536 ? 65536 : t;
}

/// The words of one transaction: word k of R lies in stratum k. `first` is the
/// first written stratum; `ro` whether the transaction only reads.
struct draw {
  std::uint64_t s;
  std::uint32_t first;
  bool ro;
  STM_HD draw(const config& c, std::uint32_t tid, std::uint64_t j) {
    detail::counter_rng g(c.seed, 7, (std::uint64_t(tid) << 32) ^ j);
    s = g.next();
    first = g.below(c.reads);
    ro = c.writes == 0 || g.below(100) < c.read_only;
  }
  /// Word k: a random word of stratum k (strata of words / reads words; the
  /// last stratum takes the remainder).
  STM_HD std::uint32_t word(const config& c, std::uint32_t k) const {
    const std::uint64_t width = c.words / c.reads;
    const std::uint64_t lo = width * k;
    const std::uint64_t span = k + 1 == c.reads ? c.words - lo : width;
    const std::uint64_t h = detail::splitmix64(s + k);
    return static_cast<std::uint32_t>(lo + (((h >> 32) * span) >> 32));
  }
  /// Position m (0..W-1) of the written words: its stratum.
  STM_HD std::uint32_t written(const config& c, std::uint32_t m) const {
    const std::uint32_t k = first + m;
    return k >= c.reads ? k - c.reads : k;
  }
};

/// The transactional kernel, as a user writes it.
template <class CM, class Config>
struct tx_kernel {
  CM cm;
  stm::lock_table_ref locks;
  stm::stats_ref stats;
  std::int32_t* a;
  config c;
  std::uint64_t total;
  STM_HD void operator()(std::uint32_t tid) const {
    const std::uint64_t mine = total / c.threads + (tid < total % c.threads ? 1 : 0);
    stm::transaction<CM, Config> tx(locks, tid, cm);
    TX_FOR(tx, j, static_cast<std::uint32_t>(mine)) {
      const draw d(c, tid, j);
      std::int32_t sum = 0;
      std::int32_t kept[max_writes];  // the values of the words it will write
      for (std::uint32_t k = 0; k < c.reads; ++k) {
        const std::int32_t v = TX_READ(tx, &a[d.word(c, k)]);
        sum += v;
        const std::uint32_t m = k >= d.first ? k - d.first : k + c.reads - d.first;  // position among the written
        if (!d.ro && m < c.writes) kept[m] = v;
      }
      (void)sum;
      if (!d.ro) {
        for (std::uint32_t m = 0; m < c.writes; ++m)
          TX_WRITE(tx, &a[d.word(c, d.written(c, m))], (m & 1) ? kept[m] + 1 : kept[m] - 1);
      }
    } TX_FOR_END(tx);
    stats.add(tx.counters());
  }
};

/// The native kernel: per-word try-locks in address order.
struct native_kernel {
  std::int32_t* a;
  std::uint32_t* word_locks;  // one per word: 0 free, 1 held
  std::uint64_t* done;        // committed transactions (warp-aggregated count)
  config c;
  std::uint64_t total;
  STM_HD bool try_lock(std::uint32_t w) const {
    std::uint32_t expect = 0;
    // acquire: pairs with the release store of the last holder's unlock.
    return atomic_ref<std::uint32_t>(word_locks[w]).compare_exchange_strong(expect, 1u, memory_order_acquire,
                                                                            memory_order_relaxed);
  }
  STM_HD void unlock(std::uint32_t w) const {
    atomic_ref<std::uint32_t>(word_locks[w]).store(0u, memory_order_release);  // pairs with try_lock's acquire
  }
  STM_HD void operator()(std::uint32_t tid) const {
    const std::uint64_t mine = total / c.threads + (tid < total % c.threads ? 1 : 0);
    std::uint64_t committed = 0;
    for (std::uint64_t j = 0; j < mine; ++j) {
      const draw d(c, tid, j);
      for (std::uint32_t attempt = 0;; ++attempt) {
        std::uint32_t held = 0;
        while (held < c.reads && try_lock(d.word(c, held))) ++held;
        if (held == c.reads) break;
        for (std::uint32_t k = 0; k < held; ++k) unlock(d.word(c, k));
        platform::backoff_ns(backoff_span_ns(tid, attempt, 1u << 16));
      }
      std::int32_t sum = 0;
      for (std::uint32_t k = 0; k < c.reads; ++k)
        sum += atomic_ref<std::int32_t>(a[d.word(c, k)]).load(memory_order_relaxed);
      (void)sum;
      if (!d.ro) {
        for (std::uint32_t m = 0; m < c.writes; ++m) {
          atomic_ref<std::int32_t> w(a[d.word(c, d.written(c, m))]);
          const std::int32_t v = w.load(memory_order_relaxed);
          w.store((m & 1) ? v + 1 : v - 1, memory_order_relaxed);
        }
      }
      for (std::uint32_t k = 0; k < c.reads; ++k) unlock(d.word(c, k));
      ++committed;
    }
    atomic_ref<std::uint64_t>(*done).fetch_add(committed, memory_order_relaxed);
  }
};

/// Fill every word with initial_value.
struct fill_kernel {
  std::int32_t* a;
  std::uint64_t n;
  std::uint32_t workers;
  STM_HD void operator()(std::uint32_t t) const {
    for (std::uint64_t i = t; i < n; i += workers) a[i] = initial_value;
  }
};

struct outcome {
  stm::tx_stats stats;
  double seconds = 0;           // the timed launch
  std::uint64_t transactions = 0;
  std::uint32_t lock_spread = 1;
  bool verified = false;
  std::string message;
};

/// The verdict of a run: the sum conserved, every transaction committed once,
/// every lock free.
inline void verify(outcome& out, std::int64_t sum, std::uint64_t words, bool locks_free) {
  const std::int64_t expect = std::int64_t(initial_value) * static_cast<std::int64_t>(words);
  const bool commits_ok = out.stats.commits == out.transactions;
  out.verified = sum == expect && commits_ok && locks_free;
  out.message = "sum " + std::to_string(sum) +
                (sum == expect ? " (conserved)" : " (EXPECTED " + std::to_string(expect) + ")") + "; " +
                std::to_string(out.stats.commits) + " commits of " + std::to_string(out.transactions) +
                " transactions; locks " + (locks_free ? "free" : "NOT free");
}

/// The array of a run, filled with initial_value.
template <class Exec>
stm::buffer<std::int32_t> make_array(const config& c) {
  stm::buffer<std::int32_t> a(Exec::where, c.words);
  const std::uint32_t fill_workers = c.words < 65536 ? static_cast<std::uint32_t>(c.words) : 65536u;
  Exec::run(fill_workers, fill_kernel{a.data(), c.words, fill_workers});
  return a;
}

/// The native variant (c.variant == impl::native), verified.
template <class Exec>
outcome run_native(const config& c) {
  check(c);
  outcome out;
  out.transactions = transactions_of(c);
  stm::buffer<std::int32_t> a = make_array<Exec>(c);
  stm::buffer<std::uint32_t> word_locks(Exec::where, c.words);
  word_locks.fill(0);
  stm::buffer<std::uint64_t> done(Exec::where, 1);
  done.fill(0);
  out.seconds = Exec::run(c.threads, native_kernel{a.data(), word_locks.data(), done.data(), c, out.transactions});
  out.stats.commits = done.to_vector()[0];
  bool locks_free = true;
  for (std::uint32_t w : word_locks.to_vector()) locks_free &= w == 0;
  verify(out, Exec::template sum<std::int32_t, std::int64_t>(a.data(), c.words), c.words, locks_free);
  return out;
}

/// A transactional variant under manager cm with read capacity Cap (>= c.reads), verified.
template <class Exec, class CM, std::uint32_t Cap>
outcome run_with(const config& c, const CM& cm) {
  constexpr std::uint32_t WCap = Cap < max_writes ? Cap : max_writes;
  check(c);
  outcome out;
  out.transactions = transactions_of(c);
  stm::buffer<std::int32_t> a = make_array<Exec>(c);
  const std::uint64_t num_locks = (c.words + c.hash - 1) / c.hash;
  out.lock_spread = stm::lock_table::auto_spread(num_locks);
  stm::lock_table locks(Exec::where, num_locks, a.data(), 4ull * c.hash, out.lock_spread);
  stm::stats_block stats(Exec::where);
  if (c.variant == impl::tx_opaque)
    out.seconds = Exec::run(c.threads, tx_kernel<CM, stm::tx_config<Cap, WCap, true>>{
                                           cm, locks.ref(), stats.ref(), a.data(), c, out.transactions});
  else
    out.seconds = Exec::run(c.threads, tx_kernel<CM, stm::tx_config<Cap, WCap, false>>{
                                           cm, locks.ref(), stats.ref(), a.data(), c, out.transactions});
  out.stats = stats.read();
  bool locks_free = true;
  for (std::uint32_t w : locks.snapshot()) locks_free &= stm::lock_word::is_free(w);
  verify(out, Exec::template sum<std::int32_t, std::int64_t>(a.data(), c.words), c.words, locks_free);
  return out;
}

/// run_with() at the smallest read capacity of 4, 8, 16, 64 and 256 that
/// holds c.reads (a user sizes tx_config the same way), with a write
/// capacity of min(capacity, max_writes) (docs/design-decisions.md#array-descriptor-size).
template <class Exec, class CM>
outcome run(const config& c, const CM& cm) {
  check(c);
  if (c.variant == impl::native) return run_native<Exec>(c);
  if (c.reads <= 4) return run_with<Exec, CM, 4>(c, cm);
  if (c.reads <= 8) return run_with<Exec, CM, 8>(c, cm);
  if (c.reads <= 16) return run_with<Exec, CM, 16>(c, cm);
  if (c.reads <= 64) return run_with<Exec, CM, 64>(c, cm);
  return run_with<Exec, CM, 256>(c, cm);
}

}  // namespace stm::workloads::array
