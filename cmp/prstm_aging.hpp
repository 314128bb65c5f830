// SPDX-License-Identifier: Apache-2.0
// cmp/prstm_aging.hpp - PR-STM's commit protocol (stm/prstm.hpp) with an
// aging priority: a transaction that has aborted more times in a row wins.
//
// Why. Under the paper's rule the priority is the logical thread id for the
// whole run, so over a hot spot (PR-STM's vacation: a thousand room types
// that every thread books and cancels) the high ids lose every conflict; each
// loss doubles their pause before the retry (up to prstm's cap), and a table
// that deals its transactions to threads statically ends with them, sleeping.
// Aging is the classic cure (the Karma and Polka managers of Scherer and
// Scott, "Advanced contention management for dynamic software transactional
// memory", PODC 2005, rank by work done; Greedy, Guerraoui et al., PODC 2005,
// by start time): here the rank is the transaction's consecutive aborts.
//
// Rank. rank(tid, a) = ((max_age - min(a, max_age)) << 19) | tid for attempt a
// (0 the first) of thread tid's transaction; lower wins. The low 19 bits are
// the thread id, so ranks are distinct among the running threads and order
// them strictly at any moment (PR-STM's argument for deadlock and livelock
// freedom); ties of age fall back to the paper's rule. The lock word is
// unchanged: its owner field holds the thread id, so a thread still knows its
// own pre-locks, and a conflict looks the owner's rank up in a table of one
// word per logical thread (`ranks`), which each thread writes before each of
// its attempts (on_attempt). Only conflicts read it: the conflict-free path
// is prstm's, plus that one store per attempt.
//
// A rank changes only between its owner's attempts, while the owner holds no
// lock. A conflict may still read a rank of the owner's previous attempt (the
// store is relaxed and not ordered before the pre-lock CASes of the attempt):
// then both sides may decide to abort, or both to steal, for that one
// attempt. That costs an attempt, never safety: every steal or abort decision
// of PR-STM's protocol is safe whatever the ranks (a stolen pre-lock makes its
// owner's final-lock CAS fail; the Dekker pairing of fence (C) does not read
// priorities), and the stale view lasts only until the store is visible.
// Starvation: a transaction's age grows with every abort until it is the
// oldest among those it meets; with the cap, the oldest ones tie and the
// thread id decides among them.
//
// Use: stm::cm::prstm_aging m = with_tuning<prstm_aging>(t); m.ranks =
// <one std::uint32_t per logical thread, on the backend that runs the
// transactions>; every transaction of a launch shares that table (rank_table
// below allocates one). The table needs no initial contents: a thread writes
// its entry before its first attempt, and nobody reads the entry of a thread
// that holds no pre-lock.
#pragma once

#include <cstdint>

#include "cmp/contention_manager.hpp"
#include "stm/buffer.hpp"
#include "stm/lock_word.hpp"
#include "stm/platform.hpp"
#include "stm/prstm.hpp"

namespace stm::cm {

/// The aging rule of prstm_aging (file comment).
struct aging_rank {
  std::uint32_t* ranks = nullptr;  ///< one word per logical thread: its current rank

  static constexpr std::uint32_t tid_bits = lock_word::owner_bits;
  static constexpr std::uint32_t max_age = (1u << (32 - tid_bits)) - 1u;

  STM_HD static constexpr std::uint32_t rank(std::uint32_t tid, std::uint32_t attempt) {
    return ((max_age - (attempt < max_age ? attempt : max_age)) << tid_bits) | tid;
  }
  /// Thread `owner`'s transaction wins against thread `tid`'s (tid's own
  /// entry is its own latest store: program order).
  STM_HD bool outranks(std::uint32_t owner, std::uint32_t tid) const {
    return atomic_ref<std::uint32_t>(ranks[owner]).load(memory_order_relaxed) <
           atomic_ref<std::uint32_t>(ranks[tid]).load(memory_order_relaxed);
  }
  STM_HD void on_attempt(std::uint32_t tid, std::uint32_t attempt) const {
    atomic_ref<std::uint32_t>(ranks[tid]).store(rank(tid, attempt), memory_order_relaxed);
  }
};

/// PR-STM with the aging priority: set `ranks` before use.
struct prstm_aging : prstm_ranked<aging_rank> {
  static constexpr const char* name = "prstm_aging";
};

/// The rank table of a launch of `threads` logical threads (owner).
class rank_table {
 public:
  rank_table(backend where, std::uint32_t threads) : ranks_(where, threads) {}
  /// `m` with this table.
  prstm_aging bind(prstm_aging m) const {
    m.ranks = ranks_.data();
    return m;
  }

 private:
  buffer<std::uint32_t> ranks_;
};

}  // namespace stm::cm
