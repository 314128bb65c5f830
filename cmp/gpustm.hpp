// SPDX-License-Identifier: Apache-2.0
// cmp/gpustm.hpp - a GPU-STM-style comparator (Xu et al., CGO 2014), built
// from its description in the PR-STM paper (sections 2.6 and 4) and the
// GPU-STM design it cites. No public code of GPU-STM exists.
//
// What we followed
//  - Encounter-time lock sorting: every transactional read and write searches
//    the transaction's lock log (binary search) and inserts its lock in order
//    when new, so the log is sorted at all times. This per-access search and
//    insert is GPU-STM's cost the PR-STM paper points at.
//  - Commit acquires every lock of the log (reads and writes) in ascending
//    lock-index order. A committer waits (with back-off) for a lock another
//    committer holds: all committers take locks in one global order, so no
//    cycle of waits, hence no deadlock, and no livelock of mutual aborts.
//  - Hierarchical validation: timestamp level first, value level only when a
//    version moved. While the body runs, reads are checked by version (the
//    core's read and, with opacity, incremental validation). At commit a read
//    whose version moved is re-validated by value instead of aborting, so a
//    neighbour under the same lock written, or a location rewritten with the
//    same bits, does not abort the reader.
//
// What we decided
//  - Lock kinds in the PR-STM lock word: a write lock is the lock bit (final
//    lock) from acquisition to release; a lock on a location only read is the
//    pre-lock bit. Both exclude other committers; readers (stm/detail/
//    tx_core.hpp) only stop at the lock bit, so read-only commit locks do not
//    block readers, and write locks do (GPU-STM locks at commit, and a reader
//    of a write-locked location aborts: cause read_locked, or polls with
//    --cm-wait).
//  - Value-based validation is sound here because it happens while we hold
//    the lock of every location we read: no writer can change one of them
//    until we release, so all reads hold at the moment the last lock is taken.
//    A read is validated as soon as its lock is taken (early abort).
//  - The value is compared even when the version matched: the 11-bit version
//    wraps (stm/lock_word.hpp), and every manager of this library validates by
//    version and value. The hierarchy changes the outcome when the version
//    moved (the value decides instead of aborting), not the cost.
//  - Release: write locks are released by the core's publish() with the
//    version bumped; read-only locks with the version unchanged (GPU-STM as
//    the PR-STM paper describes it bumps versions on reads too; that only
//    causes needless version-moved checks in others).
//  - A retry pauses a randomized time that doubles from 32 ns per consecutive
//    abort, capped at 1 ms (default_backoff_ns), as under prstm. Ordered lock
//    acquisition rules out mutual aborts among committers, but not a reader
//    whose value check keeps failing because others commit between its reads
//    and its locks: with immediate retries the lanes of a warp (and, at full
//    occupancy over a few locations, whole warps) run their attempts in
//    lockstep, and the same lanes lose every time. The random pause breaks the
//    lockstep; the description of GPU-STM we follow says nothing of a pause.
//  - Waiting is bounded (commit_wait_polls, then abort with cause `lock`), so
//    a holder that is slow to run (an oversubscribed CPU) delays, never hangs,
//    the waiters. A thread never waits on a lock it holds (each lock is taken
//    once) and never waits while validating or writing back, so a holder
//    always finishes without waiting on anyone below it in the order.
//  - The lock log has a fixed capacity (template parameter, 128 distinct
//    locks for `gpustm`); overflow aborts with cause capacity, never silently.
//  - GPU-STM keeps its logs in global memory; ours live in the descriptor
//    (thread-local memory), like PR-STM's sets.
//  - Semantic conflicts: the paper's comparator retries one at once up to 100
//    times and never postpones it (semantic_retries below, read by the
//    transaction table, stm/txtable.hpp); after the last retry the transaction
//    is unresolved. Outside a table a semantic conflict ends the transaction,
//    as under every manager.
//
// Abort causes: read_locked (a read or write found a write-locked location),
// validation (a read's value moved, at a read or at commit, or an escalated
// transaction took a read-only lock of the commit over), lock (a commit
// lock stayed held past the wait bound), capacity (set or log full).
//
// Progress: deadlock-free (ordered acquisition); a committer can starve only
// while others keep committing.
#pragma once

#include <cstdint>

#include "cmp/contention_manager.hpp"
#include "stm/lock_word.hpp"
#include "stm/manager.hpp"
#include "stm/platform.hpp"

namespace stm::cm {

template <std::uint32_t LogCapacity>
struct basic_gpustm : manager_base {
  static_assert(LogCapacity >= 1, "the lock log needs a capacity of at least one");
  static constexpr const char* name = "gpustm";
  /// The paper's treatment of a semantic conflict: up to 100 immediate retries,
  /// no postponement (the PR-STM paper, Shen et al., JPDC 2020, section 4.3).
  static constexpr std::uint32_t semantic_retries = 100;
  /// Polls of a lock held by another committer before the commit aborts.
  static constexpr std::uint32_t commit_wait_polls = 4096;
  /// Distinct locks one transaction may touch (more: capacity abort).
  static constexpr std::uint32_t log_capacity = LogCapacity;

  // The sorted lock log of the current attempt: distinct lock indices in
  // ascending order, and whether the transaction writes under each.
  std::uint32_t n_log = 0;
  std::uint32_t log_lock[LogCapacity] = {};
  std::uint8_t log_write[LogCapacity] = {};

  /// Cap of the retry pause when the tuning sets none (--cm-backoff 0): the
  /// same randomized back-off as prstm's (stm/prstm.hpp says why 1 ms).
  static constexpr std::uint32_t default_backoff_ns = 1000000;
  STM_HD std::uint32_t pause_ns(std::uint32_t tid, std::uint32_t attempt, abort_cause) const {
    return tune.backoff_span_ns(tid, attempt, default_backoff_ns);
  }
  STM_HD void on_start() { n_log = 0; }

  template <class Core>
  STM_HD void on_read(Core& tx, std::uint32_t i) {
    if (!insert(tx.reads[i].lock, false)) tx.fail(abort_cause::capacity);
  }
  template <class Core>
  STM_HD void on_write(Core& tx, std::uint32_t k) {
    if (!insert(tx.locks[k].lock, true)) tx.fail(abort_cause::capacity);
  }

  template <class Core>
  STM_HD bool acquire(Core& tx) {
    for (std::uint32_t j = 0; j < n_log; ++j)
      if (!lock_and_validate(tx, log_lock[j], log_write[j] != 0)) return false;
    if (tx.table.escalation != nullptr) return read_locks_still_ours(tx);
    return true;
  }

 private:
  // Binary search for `lock`; insert it in order when absent. False when full.
  STM_HD bool insert(std::uint32_t lock, bool write) {
    std::uint32_t lo = 0, hi = n_log;
    while (lo < hi) {
      const std::uint32_t mid = (lo + hi) / 2;
      if (log_lock[mid] < lock) lo = mid + 1;
      else hi = mid;
    }
    if (lo < n_log && log_lock[lo] == lock) {
      log_write[lo] |= write ? 1 : 0;
      return true;
    }
    if (n_log == LogCapacity) return false;
    for (std::uint32_t j = n_log; j > lo; --j) {
      log_lock[j] = log_lock[j - 1];
      log_write[j] = log_write[j - 1];
    }
    log_lock[lo] = lock;
    log_write[lo] = write ? 1 : 0;
    ++n_log;
    return true;
  }

  // An escalated transaction (docs/stm-core.md#escalation) takes a
  // pre-lock over, so also our read-only locks, as its final lock (and may
  // write under it: a read validated under such a lock then no longer holds)
  // or as a shared lock (it writes nothing, but gives the lock back to any
  // writer: our hold on it is gone all the same). Checked once every
  // lock is ours. If the escalated transaction E must be serialized before us
  // (we lock a location after E released it, or read E's write-back), E's
  // takeover precedes its release (at its end), which precedes the acquire
  // CAS by which we took that lock, which precedes the loads below: they see
  // it, and we abort. A takeover the loads miss comes from an E that touched
  // none of our locations before we locked them: E is serialized after us.
  template <class Core>
  STM_HD static bool read_locks_still_ours(Core& tx) {
    for (std::uint32_t i = 0; i < tx.n_reads; ++i) {
      const auto& r = tx.reads[i];
      if (r.stolen && tx.table.word(r.lock).load(memory_order_relaxed) != lock_word::make_prelocked(r.version(), tx.tid))
        return tx.abort_releasing(abort_cause::validation);
    }
    return true;
  }

  // Whether lock word w is held by an escalated transaction: a shared lock
  // (read-only ones), or a final lock of the one that holds the table's
  // escalation token exclusively (the token's low bits hold its tid + 1).
  template <class Core>
  STM_HD static bool held_by_escalated(const Core& tx, std::uint32_t w) {
    return lock_word::is_locked(w) && tx.table.escalation != nullptr &&
           (lock_word::is_shared(w) ||
            (tx.table.escalation_word().load(memory_order_relaxed) & lock_table_ref::gate_holder_mask) ==
                std::uint64_t(lock_word::owner(w)) + 1);
  }

  // Take lock `li` (the lock bit when we write under it, else the pre-lock
  // bit), then validate the reads under it.
  template <class Core>
  STM_HD static bool lock_and_validate(Core& tx, std::uint32_t li, bool write) {
    namespace lw = lock_word;
    const auto word = tx.table.word(li);
    std::uint32_t cur = word.load(memory_order_relaxed);
    exp_backoff gap(64, 1024);
    for (std::uint32_t polls = 0;;) {
      if (lw::is_free(cur)) {
        const std::uint32_t mine = write ? lw::make_locked(lw::version(cur), tx.tid)
                                         : lw::make_prelocked(lw::version(cur), tx.tid);
        // acquire: pairs with (B) of the previous holder's release (tx_core
        // publish), so the values we validate below are the ones it wrote.
        if (word.compare_exchange_weak(cur, mine, memory_order_acquire, memory_order_relaxed)) break;
        continue;  // cur holds the word seen: look again
      }
      // The escalated transaction's lock: it may be waiting (hold()) for one
      // of ours, and it never gives up; waiting out commit_wait_polls here
      // would stall it that long (a convoy when many escalate): give up now.
      if (++polls > commit_wait_polls || held_by_escalated(tx, cur)) return tx.abort_releasing(abort_cause::lock);
      gap.wait();
      cur = word.load(memory_order_relaxed);
    }
    const std::uint32_t v = lw::version(cur);
    if (write) {
      for (std::uint32_t k = 0; k < tx.n_locks; ++k)
        if (tx.locks[k].lock == li) {
          // publish() bumps this version; release_unpublished() restores it.
          tx.locks[k].version = static_cast<std::uint16_t>(v);
          tx.locks[k].state = lock_final;
          break;
        }
    }
    bool ok = true, owned = write;
    for (std::uint32_t i = 0; i < tx.n_reads; ++i) {
      auto& r = tx.reads[i];
      if (r.lock != li) continue;
      // Version unchanged: the value only guards the 11-bit wrap. Version
      // moved: value-based re-validation decides (GPU-STM's second level).
      // Either way the read stands iff its value is unchanged, under our lock.
      ok &= load_word(r.addr, r.size) == r.value;
      if (!owned) {
        // The core releases this pre-lock with the version we took it at
        // (release_stolen_reads), on commit and on abort alike.
        r.word = lock_word::make_unlocked(v);
        r.stolen = 1;
        owned = true;
      }
    }
    return ok ? true : tx.abort_releasing(abort_cause::validation);
  }
};

/// The registered comparator: a lock log of up to 128 distinct locks per
/// transaction (the largest sets in this library: 64 reads + 2 writes).
using gpustm = basic_gpustm<128>;

}  // namespace stm::cm
