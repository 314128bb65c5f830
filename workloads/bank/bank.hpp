// workloads/bank/bank.hpp - the bank benchmark of the PR-STM paper (section 4.1):
// accounts of 4-byte balances, each thread runs transfers between two random
// accounts as transactions. Written once over an execution policy (cpu_exec /
// gpu_exec) and a contention manager.
//
// Invariant checked after every run: the total of all balances is unchanged,
// every lock word is free again, and commits == threads x transactions.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "stm/buffer.hpp"
#include "stm/lock_table.hpp"
#include "stm/stats.hpp"
#include "stm/tx_macros.hpp"

namespace workloads::bank {

struct config {
  std::uint32_t accounts = 2621440;  // 10 MB of 4-byte balances, as the paper
  std::uint32_t threads = 6720;      // the paper's default launch
  std::uint32_t hash = 1;            // accounts per lock (lock coverage)
  std::uint32_t tpt = 64;            // transactions per thread per launch
  double seconds = 0;                // > 0: launch again until this much kernel time passed
  std::uint64_t seed = 1;
  int initial = 1000;                // starting balance of every account
};

struct outcome {
  stm::tx_stats stats;
  double seconds = 0;       // kernel time (CUDA events on the GPU)
  std::uint64_t launches = 0;
  long long total = 0, expected = 0;
  bool locks_free = false;
  bool verified = false;
  std::string message;
};

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

template <class CM>
struct transfer_kernel {
  CM cm;
  stm::lock_table_ref locks;
  stm::stats_ref stats;
  int* balance;
  std::uint32_t accounts;
  std::uint32_t tpt;
  std::uint64_t seed;
  std::uint64_t launch;

  STM_HD void operator()(std::uint32_t tid) const {
    // Commit-time validation (Opaque = false): the body only adds and
    // subtracts, so a value it reads can never make it crash or loop.
    stm::transaction<CM, stm::tx_config<4, 4, false>> tx(locks, tid, cm);
    rng r(seed, tid, launch);
    for (std::uint32_t k = 0; k < tpt; ++k) {
      const std::uint32_t from = r.below(accounts);
      std::uint32_t to = r.below(accounts - 1);
      if (to >= from) ++to;  // a distinct account, uniformly
      const int amount = 1 + static_cast<int>(r.below(10));
      TX_BEGIN(tx) {
        const int a = TX_READ(tx, &balance[from]);
        const int b = TX_READ(tx, &balance[to]);
        TX_WRITE(tx, &balance[from], a - amount);
        TX_WRITE(tx, &balance[to], b + amount);
      }
      TX_END(tx);
    }
    stats.add(tx.counters());
  }
};

/// Throws stm::usage_error for a configuration that cannot run.
inline void check(const config& c) {
  if (c.accounts < 2) throw stm::usage_error("--accounts must be at least 2, got " + std::to_string(c.accounts));
  if (c.threads == 0) throw stm::usage_error("--threads must be at least 1");
  if (c.tpt == 0) throw stm::usage_error("--tpt must be at least 1");
  if (c.hash == 0 || (c.hash & (c.hash - 1)) != 0)
    throw stm::usage_error("--hash must be a power of two, got " + std::to_string(c.hash));
  stm::require_priorities(c.threads);
}

template <class Exec, class CM>
outcome run(const config& c, const CM& cm, void (*on_progress)(double) = nullptr) {
  check(c);
  const stm::backend where = Exec::where;
  stm::buffer<int> balance(where, c.accounts);
  balance.fill(c.initial);
  const std::uint64_t num_locks = (std::uint64_t(c.accounts) + c.hash - 1) / c.hash;
  stm::lock_table locks(where, num_locks, balance.data(), sizeof(int) * std::uint64_t(c.hash));
  stm::stats_block stats(where);

  outcome out;
  transfer_kernel<CM> k{cm, locks.ref(), stats.ref(), balance.data(), c.accounts, c.tpt, c.seed, 0};
  do {
    k.launch = out.launches++;
    out.seconds += Exec::run(c.threads, k);
    if (on_progress && c.seconds > 0) on_progress(out.seconds / c.seconds);
  } while (out.seconds < c.seconds);

  out.stats = stats.read();
  out.total = Exec::template sum<int, long long>(balance.data(), c.accounts);
  out.expected = static_cast<long long>(c.initial) * c.accounts;
  out.locks_free = true;
  for (std::uint32_t w : locks.snapshot()) out.locks_free &= stm::lock_word::is_free(w);
  const std::uint64_t want = std::uint64_t(c.threads) * c.tpt * out.launches;
  out.verified = out.total == out.expected && out.locks_free && out.stats.commits == want;
  out.message = "total " + std::to_string(out.total) + " (expected " + std::to_string(out.expected) + "), " +
                std::to_string(out.stats.commits) + " commits (expected " + std::to_string(want) + "), lock table " +
                (out.locks_free ? "free" : "NOT free");
  return out;
}

}  // namespace workloads::bank
