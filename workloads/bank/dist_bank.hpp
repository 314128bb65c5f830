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

#include "stm/detail/lane_pause.hpp"
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
/// With `workers` set, the launch has that many threads (as many as stay
/// resident) and worker w runs the logical threads w, w + workers, ... below
/// `logical` one after the other, each under its own priority, as the plain
/// bank's resident drainers do (docs/design-decisions.md#resident-drainers):
/// a block of a launch in waves holds its place until its slowest thread is
/// done. Without (0), one launched thread per logical thread.
///
/// One attempt at a time, as the core's transaction table
/// (stm/detail/txtable_drain.hpp; docs/design-decisions.md#one-attempt-at-a-time):
/// a lane whose attempt aborted pauses by a deadline (lane_pause) while the
/// other lanes of its warp go on with their own transfers, and the warp
/// sleeps only when every lane still running pauses. (A retry loop per lane,
/// dist::atomically, makes the whole warp wait for its unluckiest lane at
/// every transfer, and each lane sleep its own pause.) No lane holds a lock
/// between two turns, so no lane waits for one that does.
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
  std::uint32_t workers = 0;   // > 0: launched threads, each running logical threads w, w + workers, ...
  std::uint32_t logical = 0;   // with workers: logical threads of the launch (PEs x threads)

  /// Transfer r of thread `local` of PE `pe`: the same on every backend and driver.
  struct transfer {
    dist::gptr<int> from, to;
    int amount = 0;
    bool across = false;
  };
  STM_HD transfer transfer_of(std::uint32_t pe, std::uint32_t local, std::uint32_t r) const {
    const std::uint32_t per_pe = shape.words_per_pe;
    const std::uint64_t h = mix(seed ^ mix((std::uint64_t(pe) << 40) ^ (std::uint64_t(local) << 20) ^ r));
    const std::uint64_t h2 = mix(h);
    transfer t;
    t.across = shape.npes > 1 && (h & 0xFFFFFFFFull) < cross;
    t.from = dist::gptr<int>{pe, static_cast<std::uint32_t>((h >> 32) % per_pe)};
    t.to = dist::gptr<int>{pe, 0};
    if (t.across) {
      t.to.pe = (pe + 1 + static_cast<std::uint32_t>(h2 % (shape.npes - 1))) % shape.npes;
      t.to.index = static_cast<std::uint32_t>((h2 >> 32) % per_pe);
    } else {  // another account of this PE
      t.to.index = (t.from.index + 1 + static_cast<std::uint32_t>((h2 >> 32) % (per_pe - 1))) % per_pe;
    }
    t.amount = 1 + static_cast<int>(h2 % 10);
    return t;
  }

  STM_HD void operator()(std::uint32_t w) const {
    const std::uint32_t step = workers ? workers : 1u, end = workers ? logical : w + 1u;
    std::uint32_t tid = w;  // the logical thread this lane runs
    std::uint32_t pe = first_pe + tid / threads, local = tid % threads;
    dist::transaction<Transport, 4, 4> tx(net, shape, dist::priority(pe, local, shape.npes));
    unsigned long long crossed = 0;
    std::uint32_t r = tid < end ? 0u : tpt;  // the transfer this lane is at (none: a worker beyond the logical threads)
    bool again = false;      // its last attempt aborted on a conflict: retry it
    transfer t{};
    stm::detail::lane_pause waiting;  // no turn before its deadline
    std::uint32_t live = platform::active_mask();
    for (;;) {
      if (r == tpt && tid + step < end) {  // the next logical thread of this worker
        tid += step;
        pe = first_pe + tid / threads;
        local = tid % threads;
        tx.set_priority(dist::priority(pe, local, shape.npes));  // between transactions: no lock held
        r = 0;
      }
      const bool done = r == tpt;
      live = platform::ballot(live, !done);
      if (done) break;
      if (!stm::detail::lane_turn(live, waiting)) continue;  // pausing, or the warp slept
      if (again) {
        tx.retry();
      } else {
        t = transfer_of(pe, local, r);
        tx.begin();
      }
      dist::attempt(tx, [&](auto& x) {
        // Both reads before any test of what they read, as the plain bank's
        // transfer (workloads/bank/bank.hpp, apply()): their loads are in
        // flight together, one round trip instead of two.
        const int a = TX_READ_IN(x, t.from);
        const int b = TX_READ_IN(x, t.to);
        if (a < t.amount) return;  // too little money: commits read-only, moves nothing
        TX_WRITE_IN(x, t.from, a - t.amount);
        TX_WRITE_IN(x, t.to, b + t.amount);
      });
      again = dist::retryable(tx);
      if (again) {
        waiting.start(tx.pause_ns());
        continue;
      }
      if (t.across && tx.committed() && tx.writes() != 0) ++crossed;
      ++r;
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
  k.logical = c.npes * c.threads;
  k.workers = Exec::template resident<transfer_kernel<dist::sim_transport>>(k.logical);
  outcome out;
  out.seconds = Exec::run(k.workers, k);
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
