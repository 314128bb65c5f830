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
// waits on a pre-lock, so lock-step warps cannot deadlock.
//
// Differences from the paper, both runtime knobs (cm::tuning) that are off by
// default so that `prstm` is the paper's rule: an access that finds a final
// lock may poll it a few times (its owner only writes back and releases), and
// an aborted attempt may back off before retrying.
//
// Mechanics: for small sets the CASes of each step and the loads of the
// validation are issued as one batch (independent, so in flight together);
// only the entries whose first try failed go through the careful loop. When
// every read is of a location we write, steps 2 and 3 are one batch.
#pragma once

#include <cstdint>

#include "cmp/contention_manager.hpp"
#include "stm/detail/tx_core.hpp"
#include "stm/lock_word.hpp"
#include "stm/platform.hpp"

namespace stm::cm {

struct prstm : manager_base {
  static constexpr const char* name = "prstm";

  STM_HD void on_abort(std::uint32_t tid, std::uint32_t attempt, abort_cause) const { tune.backoff(tid, attempt); }

  template <class Core>
  STM_HD bool acquire(Core& tx) const {
    if (!prelock_all(tx)) return false;
    // A read whose lock we now hold as a pre-lock needs no look at the lock
    // word: our pre-lock CAS saw it free at the version of the write entry, and
    // nobody can commit it without stealing, which step 3 detects.
    bool all_covered = true;
    if (!mark_covered(tx, all_covered)) return tx.abort_releasing(abort_cause::validation);
    if constexpr (Core::unrolled) {
      if (all_covered) return lock_and_check_values(tx);
    }
    // (C) pre-locks before read validation; pairs with (C) of every other
    // committer. Needed only for reads of locations we do not write (Dekker).
    if (!all_covered) platform::fence_seq_cst();
    if (!validate_reads(tx)) return false;
    return lock_all(tx);
  }

 private:

  // Step 1 for entry k, starting from the observed word `cur`.
  template <class Core>
  STM_HD static bool prelock_one(Core& tx, std::uint32_t k, std::uint32_t cur) {
    namespace lw = lock_word;
    auto& e = tx.locks[k];
    const auto word = tx.table.word(e.lock);
    for (;;) {
      if (lw::version(cur) != e.version || lw::is_locked(cur) || (lw::is_prelocked(cur) && lw::owner(cur) < tx.tid))
        return false;
      if (lw::is_prelocked(cur) && lw::owner(cur) == tx.tid) break;  // already ours
      if (word.compare_exchange_weak(cur, lw::make_prelocked(e.version, tx.tid), memory_order_relaxed)) {
        if (lw::is_prelocked(cur)) ++tx.counters.steals;
        break;
      }
    }
    e.state = detail::lock_pre;
    return true;
  }

  template <class Core>
  STM_HD static bool prelock_all(Core& tx) {
    namespace lw = lock_word;
    if constexpr (Core::unrolled) {
      constexpr std::uint32_t W = Core::config::max_writes;
      std::uint32_t seen[W] = {};
      bool ok[W] = {};
      STM_UNROLL
      for (std::uint32_t k = 0; k < W; ++k)  // the common case: every lock free at its version
        if (k < tx.n_locks) {
          auto& e = tx.locks[k];
          seen[k] = lw::make_unlocked(e.version);
          ok[k] = tx.table.word(e.lock).compare_exchange_strong(seen[k], lw::make_prelocked(e.version, tx.tid),
                                                                memory_order_relaxed);
          if (ok[k]) e.state = detail::lock_pre;
        }
      STM_UNROLL
      for (std::uint32_t k = 0; k < W; ++k)
        if (k < tx.n_locks && !ok[k] && !prelock_one(tx, k, seen[k])) return tx.abort_releasing(abort_cause::prelock);
    } else {
      for (std::uint32_t k = 0; k < tx.n_locks; ++k)
        if (!prelock_one(tx, k, tx.table.word(tx.locks[k].lock).load(memory_order_relaxed)))
          return tx.abort_releasing(abort_cause::prelock);
    }
    return true;
  }

  // Flags the reads whose lock is in our (pre-locked) write set; such a read
  // must have seen the version we pre-locked at, else it is already stale.
  template <class Core>
  STM_HD static bool mark_covered(Core& tx, bool& all_covered) {
    for (std::uint32_t i = 0; i < tx.n_reads; ++i) {
      auto& r = tx.reads[i];
      r.covered = 0;
      for (std::uint32_t k = 0; k < tx.n_locks; ++k)
        if (tx.locks[k].lock == r.lock) {
          if (tx.locks[k].version != r.version) return false;
          r.covered = 1;
          break;
        }
      all_covered &= r.covered != 0;
    }
    return true;
  }

  // Step 2 for read entry i, starting from the observed word `cur` and value.
  template <class Core>
  STM_HD static bool validate_one(Core& tx, std::uint32_t i, std::uint32_t cur, std::uint64_t value) {
    namespace lw = lock_word;
    auto& r = tx.reads[i];
    const auto word = tx.table.word(r.lock);
    for (;;) {
      if (lw::version(cur) != r.version || lw::is_locked(cur) || value != r.value) return false;
      if (!lw::is_prelocked(cur) || lw::owner(cur) == tx.tid) return true;
      if (lw::owner(cur) < tx.tid) return false;  // a higher priority will write it
      if (word.compare_exchange_weak(cur, lw::make_prelocked(r.version, tx.tid), memory_order_relaxed)) {
        r.stolen = 1;  // its lower-priority writer now fails its final lock
        ++tx.counters.steals;
        return true;
      }
      value = detail::load_word(r.addr, r.size);  // the word moved: look at both again
    }
  }

  // A covered read only checks its value (version wrap); others the full step 2.
  template <class Core>
  STM_HD static bool check_one(Core& tx, std::uint32_t i, std::uint32_t w, std::uint64_t value) {
    return tx.reads[i].covered ? value == tx.reads[i].value : validate_one(tx, i, w, value);
  }

  template <class Core>
  STM_HD static bool validate_reads(Core& tx) {
    if constexpr (Core::unrolled) {
      constexpr std::uint32_t R = Core::config::max_reads;
      std::uint32_t w[R] = {};
      std::uint64_t v[R] = {};
      STM_UNROLL
      for (std::uint32_t i = 0; i < R; ++i)  // all loads in flight together
        if (i < tx.n_reads) {
          if (!tx.reads[i].covered) w[i] = tx.table.word(tx.reads[i].lock).load(memory_order_relaxed);
          v[i] = detail::load_word(tx.reads[i].addr, tx.reads[i].size);
        }
      STM_UNROLL
      for (std::uint32_t i = 0; i < R; ++i)
        if (i < tx.n_reads && !check_one(tx, i, w[i], v[i])) return tx.abort_releasing(abort_cause::validation);
    } else {
      for (std::uint32_t i = 0; i < tx.n_reads; ++i) {
        const auto& r = tx.reads[i];
        const std::uint32_t w = r.covered ? 0u : tx.table.word(r.lock).load(memory_order_relaxed);
        if (!check_one(tx, i, w, detail::load_word(r.addr, r.size))) return tx.abort_releasing(abort_cause::validation);
      }
    }
    return true;
  }

  // Steps 2 and 3 together when every read is covered (a read-modify-write
  // set, e.g. a transfer): step 2 is then only the value check against a
  // version wrap, and since we hold every pre-lock (nobody can commit these
  // locations without stealing, which makes our final-lock CAS fail) the value
  // loads and the final-lock CASes can be in flight together: one round trip
  // less. Either failure releases everything, final locks included.
  template <class Core>
  STM_HD static bool lock_and_check_values(Core& tx) {
    namespace lw = lock_word;
    constexpr std::uint32_t R = Core::config::max_reads, W = Core::config::max_writes;
    std::uint64_t v[R] = {};
    bool locked[W] = {};
    STM_UNROLL
    for (std::uint32_t i = 0; i < R; ++i)
      if (i < tx.n_reads) v[i] = detail::load_word(tx.reads[i].addr, tx.reads[i].size);
    STM_UNROLL
    for (std::uint32_t k = 0; k < W; ++k)
      if (k < tx.n_locks) {
        auto& e = tx.locks[k];
        std::uint32_t expect = lw::make_prelocked(e.version, tx.tid);
        locked[k] = tx.table.word(e.lock).compare_exchange_strong(expect, lw::make_locked(e.version, tx.tid),
                                                                  memory_order_relaxed);
      }
    bool all = true;
    STM_UNROLL
    for (std::uint32_t k = 0; k < W; ++k)
      if (k < tx.n_locks) {
        if (locked[k]) tx.locks[k].state = detail::lock_final;
        all &= locked[k];
      }
    if (!all) return tx.abort_releasing(abort_cause::lock);  // a pre-lock was stolen by a higher priority
    STM_UNROLL
    for (std::uint32_t i = 0; i < R; ++i)
      if (i < tx.n_reads && v[i] != tx.reads[i].value) return tx.abort_releasing(abort_cause::validation);
    return true;
  }

  template <class Core>
  STM_HD static bool lock_all(Core& tx) {
    namespace lw = lock_word;
    bool all = true;
    auto lock_one = [&tx](std::uint32_t k) {
      auto& e = tx.locks[k];
      std::uint32_t expect = lw::make_prelocked(e.version, tx.tid);
      const bool ok = tx.table.word(e.lock).compare_exchange_strong(expect, lw::make_locked(e.version, tx.tid),
                                                                    memory_order_relaxed);
      if (ok) e.state = detail::lock_final;
      return ok;
    };
    if constexpr (Core::unrolled) {
      STM_UNROLL
      for (std::uint32_t k = 0; k < Core::config::max_writes; ++k)
        if (k < tx.n_locks) all &= lock_one(k);
    } else {
      for (std::uint32_t k = 0; k < tx.n_locks && all; ++k) all = lock_one(k);
    }
    return all ? true : tx.abort_releasing(abort_cause::lock);  // a pre-lock was stolen by a higher priority
  }
};

}  // namespace stm::cm
