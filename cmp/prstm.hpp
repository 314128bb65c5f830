// cmp/prstm.hpp - the priority rule of PR-STM (seed paper, Algorithm 2).
//
// Commit protocol of a transaction with priority p (its logical thread id;
// lower wins):
//   1. tryPreLock: for each lock of the write set, CAS it to pre-locked(p)
//      unless its version moved, it is final-locked, or a higher priority
//      holds the pre-lock; a lower-priority pre-lock is stolen (CAS over it).
//   (C) seq_cst fence.
//   2. validate the read set: same version, not final-locked, same value. A
//      read location pre-locked by a higher priority aborts us; one pre-locked
//      by a lower priority is stolen, so that its writer fails step 3 (without
//      this, two transactions that each read what the other writes could both
//      commit: write skew).
//   3. tryLock: CAS each pre-lock to the final lock; a failed CAS means a
//      higher priority stole it: release everything and abort.
// Then the core writes back, fences and releases with the version bumped.
//
// Why (C): steps 1 and 2 are a store-then-load pattern across two locations
// (Dekker). The fence pairs with the same fence of every other committer: of
// two transactions that each pre-lock what the other reads, at least one sees
// the other's pre-lock in step 2.
//
// Progress: the highest-priority running transaction is only aborted by a
// transaction that has committed or holds final locks (and finishes without
// waiting), so the system as a whole always makes progress; no thread ever
// waits on another, so lock-step warps cannot deadlock.
#pragma once

#include <cstdint>

#include "stm/detail/tx_core.hpp"
#include "stm/lock_word.hpp"
#include "stm/platform.hpp"

namespace stm::cm {

struct prstm {
  static constexpr const char* name = "prstm";

  template <class Core>
  STM_HD bool acquire(Core& tx) const {
    namespace lw = lock_word;
    const std::uint32_t me = tx.tid;
    // 1. tryPreLock
    for (std::uint32_t k = 0; k < tx.n_locks; ++k) {
      auto& e = tx.locks[k];
      const auto word = tx.table.word(e.lock);
      std::uint32_t cur = word.load(memory_order_relaxed);
      for (;;) {
        if (lw::version(cur) != e.version || lw::is_locked(cur) || (lw::is_prelocked(cur) && lw::owner(cur) < me)) {
          tx.release_unpublished();
          tx.fail(abort_cause::prelock);
          return false;
        }
        if (word.compare_exchange_weak(cur, lw::make_prelocked(e.version, me), memory_order_relaxed)) {
          if (lw::is_prelocked(cur)) ++tx.counters.steals;
          e.state = detail::lock_pre;
          break;
        }
      }
    }
    platform::fence_seq_cst();  // (C) pre-locks before read validation; pairs with (C) of every other committer
    // 2. validate the read set
    for (std::uint32_t i = 0; i < tx.n_reads; ++i) {
      auto& r = tx.reads[i];
      const auto word = tx.table.word(r.lock);
      std::uint32_t cur = word.load(memory_order_relaxed);
      for (;;) {
        bool ok = lw::version(cur) == r.version && !lw::is_locked(cur);
        if (ok && lw::is_prelocked(cur) && lw::owner(cur) != me) {
          if (lw::owner(cur) < me) {
            ok = false;
          } else if (word.compare_exchange_weak(cur, lw::make_prelocked(r.version, me), memory_order_relaxed)) {
            r.stolen = 1;
            ++tx.counters.steals;
          } else {
            continue;  // the word changed under us: look again
          }
        }
        if (ok) ok = detail::load_word(r.addr, r.size) == r.value;
        if (!ok) {
          tx.release_unpublished();
          tx.fail(abort_cause::validation);
          return false;
        }
        break;
      }
    }
    // 3. tryLock
    for (std::uint32_t k = 0; k < tx.n_locks; ++k) {
      auto& e = tx.locks[k];
      std::uint32_t expect = lw::make_prelocked(e.version, me);
      if (!tx.table.word(e.lock).compare_exchange_strong(expect, lw::make_locked(e.version, me),
                                                         memory_order_relaxed)) {
        tx.release_unpublished();
        tx.fail(abort_cause::lock);
        return false;
      }
      e.state = detail::lock_final;
    }
    return true;
  }

  /// The paper retries at once; the priority rule alone prevents livelock.
  STM_HD void on_abort(std::uint32_t /*tid*/, std::uint32_t /*attempt*/, abort_cause /*cause*/) const {}
};

}  // namespace stm::cm
