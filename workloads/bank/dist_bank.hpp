// SPDX-License-Identifier: Apache-2.0
// workloads/bank/dist_bank.hpp - the bank over several PEs (stm::dist): the
// accounts are partitioned by block over the PEs, and --cross P% of the
// transfers move money between accounts of different PEs.
//
// Every PE runs `threads` logical threads; thread t of PE p makes `tpt`
// transfers, each of 1-10 from an account of its own PE to another account:
// with probability P% one of a different PE (chosen at random among the
// others), else one of its own PE. A transfer that finds too little money
// moves nothing (it commits read-only; accounts start with 1,000,000, so in
// these runs it does not happen). With one PE every transfer is local.
//
// Written once over a transport: run_sim runs every PE in this process (the
// sim transport, CPU backend or one GPU); the GPU program of one process per
// GPU (stm/dist/nvshmem.hpp) launches the same transfer_kernel for its own PE.
//
// Checked after every run: the money of all PEs together is unchanged, no
// balance is negative, every lock word of every PE is free, and every
// transfer committed exactly once (commits == PEs x threads x tpt).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stm/dist/dist.hpp"
#include "stm/error.hpp"
#include "stm/stats.hpp"

namespace stm::workloads::dist_bank {

struct config {
  std::uint32_t npes = 2;            // PEs (GPUs, or simulated PEs)
  std::uint32_t accounts = 2621440;  // 4-byte accounts over all PEs (a multiple of npes)
  std::uint32_t threads = 6720;      // logical threads per PE
  std::uint32_t tpt = 64;            // transfers per thread
  double cross = 0;                  // % of transfers to an account of another PE
  std::uint32_t hash = 1;            // accounts per lock (a power of two)
  std::uint32_t lock_spread = 1;     // lock words per lock slot (a power of two up to 32)
  std::uint64_t seed = 1;
  int initial = 1000000;             // every account's starting balance
};

struct outcome {
  tx_stats stats;
  double seconds = 0;                // kernel time (the slowest PE's)
  long long total = 0, expected = 0; // money of all PEs after the run, and before
  std::uint64_t negative = 0;        // balances below zero
  std::uint64_t held_locks = 0;      // lock words not free after the run
  std::uint64_t transfers = 0;       // PEs x threads x tpt
  std::uint64_t cross_commits = 0;   // committed transfers that crossed PEs
  bool verified = false;
  std::string message;
};

/// usage_error on a configuration no run can take (before any work).
inline void check(const config& c) {
  dist::require_pe_threads(c.npes, c.threads);
  if (c.cross < 0 || c.cross > 100) throw usage_error("--cross must be a percentage in [0, 100]");
  if (c.accounts % c.npes != 0)
    throw usage_error("--accounts (" + std::to_string(c.accounts) + ") must be a multiple of --pes (" +
                      std::to_string(c.npes) + ")");
  if (c.accounts / c.npes < 2) throw usage_error("--pes: every PE needs at least two accounts");
  if (c.hash == 0 || (c.hash & (c.hash - 1)) != 0) throw usage_error("--hash must be a power of two");
  if (c.lock_spread == 0 || c.lock_spread > 32 || (c.lock_spread & (c.lock_spread - 1)) != 0)
    throw usage_error("--lock-spread must be a power of two from 1 to 32");
  if (std::uint64_t(c.threads) * c.tpt > 0xFFFFFFFFull)
    throw usage_error("threads x tpt must stay below 2^32 per PE");
}

inline dist::layout layout_of(const config& c) {
  dist::layout l;
  l.npes = c.npes;
  l.words_per_pe = c.accounts / c.npes;
  while ((1u << l.shift) < c.hash) ++l.shift;
  while ((1u << l.spread) < c.lock_spread) ++l.spread;
  return l;
}

/// The threshold of a percentage against a 32-bit random draw (100 -> always).
inline std::uint64_t threshold(double percent) {
  return static_cast<std::uint64_t>(percent / 100.0 * 4294967296.0 + 0.5);
}

/// splitmix64: the transfers of (seed, pe, thread, r), the same on every backend.
STM_HD inline std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// One logical thread per (PE, thread) of the PEs [first_pe, first_pe + pes):
/// tid / threads is the PE (relative to first_pe), tid % threads the thread.
template <class Transport>
struct transfer_kernel {
  Transport net;
  dist::layout shape;
  std::uint32_t first_pe = 0;
  std::uint32_t threads = 1;  // per PE
  std::uint32_t tpt = 1;
  std::uint64_t cross = 0;    // threshold(): a draw below it crosses PEs
  std::uint64_t seed = 1;
  stats_ref stats;
  unsigned long long* cross_commits = nullptr;  // summed over the threads

  STM_HD void operator()(std::uint32_t tid) const {
    const std::uint32_t pe = first_pe + tid / threads, local = tid % threads;
    dist::transaction<Transport, 4, 4> tx(net, shape, dist::priority(pe, local, shape.npes));
    const std::uint32_t per_pe = shape.words_per_pe;
    unsigned long long crossed = 0;
    for (std::uint32_t r = 0; r < tpt; ++r) {
      const std::uint64_t h = mix(seed ^ mix((std::uint64_t(pe) << 40) ^ (std::uint64_t(local) << 20) ^ r));
      const std::uint64_t h2 = mix(h);
      const bool across = shape.npes > 1 && (h & 0xFFFFFFFFull) < cross;
      const dist::gptr<int> from{pe, static_cast<std::uint32_t>((h >> 32) % per_pe)};
      dist::gptr<int> to{pe, 0};
      if (across) {
        to.pe = (pe + 1 + static_cast<std::uint32_t>(h2 % (shape.npes - 1))) % shape.npes;
        to.index = static_cast<std::uint32_t>((h2 >> 32) % per_pe);
      } else {  // another account of this PE
        to.index = (from.index + 1 + static_cast<std::uint32_t>((h2 >> 32) % (per_pe - 1))) % per_pe;
      }
      const int amount = 1 + static_cast<int>(h2 % 10);
      dist::atomically(tx, [&](auto& t) {
        const int a = TX_READ_IN(t, from);
        if (a < amount) return;  // too little money: commits read-only, moves nothing
        TX_WRITE_IN(t, from, a - amount);
        const int b = TX_READ_IN(t, to);
        TX_WRITE_IN(t, to, b + amount);
      });
      if (across && tx.committed() && tx.writes() != 0) ++crossed;
    }
    stats.add(tx.counters());
    if (crossed) atomic_ref<unsigned long long>(*cross_commits).fetch_add(crossed, memory_order_relaxed);
  }
};

/// Every PE in this process (the sim transport on Exec's backend): set up,
/// run, verify.
template <class Exec>
outcome run_sim(const config& c) {
  check(c);
  const dist::layout shape = layout_of(c);
  dist::sim_space space(Exec::where, shape);
  for (std::uint32_t p = 0; p < c.npes; ++p)
    space.set_words(p, std::vector<std::uint32_t>(shape.words_per_pe, static_cast<std::uint32_t>(c.initial)));
  stats_block stats(Exec::where);
  buffer<unsigned long long> crossed(Exec::where, 1);
  transfer_kernel<dist::sim_transport> k{space.transport(), shape, 0, c.threads, c.tpt, threshold(c.cross), c.seed,
                                         stats.ref(), crossed.data()};
  outcome out;
  out.seconds = Exec::run(c.npes * c.threads, k);
  out.stats = stats.read();
  out.cross_commits = crossed.to_vector()[0];
  out.transfers = std::uint64_t(c.npes) * c.threads * c.tpt;
  out.expected = static_cast<long long>(c.initial) * c.accounts;
  for (std::uint32_t p = 0; p < c.npes; ++p)
    for (std::uint32_t w : space.words(p)) {
      const int v = static_cast<int>(w);
      out.total += v;
      out.negative += v < 0 ? 1 : 0;
    }
  out.held_locks = space.held_locks();
  out.verified = out.total == out.expected && out.negative == 0 && out.held_locks == 0 &&
                 out.stats.commits == out.transfers;
  out.message = "money " + std::to_string(out.total) + " of " + std::to_string(out.expected) + " over " +
                std::to_string(c.npes) + " PEs, " + std::to_string(out.negative) + " negative, " +
                std::to_string(out.held_locks) + " locks held, " + std::to_string(out.stats.commits) + " commits of " +
                std::to_string(out.transfers) + " transfers";
  return out;
}

}  // namespace stm::workloads::dist_bank
