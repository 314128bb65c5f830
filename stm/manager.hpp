// SPDX-License-Identifier: Apache-2.0
// stm/manager.hpp - the contention-manager extension point: the interface a
// manager meets, the knobs and defaults the built-in ones share.
//
// A contention manager decides what a transaction does when it meets another
// one: how it takes its locks at commit, whether it waits on a held lock, and
// how long it pauses before a retry. The core (stm/tx.hpp) keeps no policy of
// its own. PR-STM's priority rule (stm/prstm.hpp, the default of
// stm::transaction) is one; the comparators of cmp/ (namespace stm::cm:
// GPU-STM's, TinySTM's backoff and delay) are others, and a user may write
// one against this interface alone (tests/support/user_manager.hpp does).
//
// A contention manager is a trivially copyable policy type CM. Device code
// takes it as a template parameter of stm::transaction; the host builds one
// value (with its tuning) per run. It must provide:
//
//   static constexpr const char* name;          // how a registry names it (cmp/registry.hpp)
//
//   STM_HD bool wait_on_locked(std::uint32_t polls) const;
//       A read or write found its location final-locked (the owner is writing
//       back and will release without waiting for anyone). Return true to poll
//       again (the core backs off between polls), false to abort the attempt
//       (a read of tx_config Opaque = false polls only if this is true for
//       polls = 0; otherwise it notes the lock, and the commit fails).
//
//   template <class Core> STM_HD void on_read(Core& tx, std::uint32_t i);
//   template <class Core> STM_HD void on_write(Core& tx, std::uint32_t k);
//       Called after read entry tx.reads[i] / a new lock entry tx.locks[k] was
//       added (for managers that keep their own logs; may call tx.fail()).
//       The manager is a member of the descriptor, so it may keep per-
//       transaction state.
//
//   STM_HD void on_start();
//       Before every attempt (the first and each retry): reset such state.
//
//   template <class Core> STM_HD bool acquire(Core& tx);
//       Commit time, for an update transaction: take every lock of
//       tx.locks[0, tx.n_locks) and validate tx.reads[0, tx.n_reads) (Core is
//       a tx_descriptor, below). On success every lock entry is in state
//       lock_final, owned by tx.tid. On failure: tx.release_unpublished(),
//       tx.fail(cause), return false (or tx.abort_releasing(cause), which
//       does all three). A manager that validates reads it does not hold a
//       lock on calls tx.write_set_claimed() once the write set is claimed and
//       before that validation (the commit clock's increment; opaque reads
//       rely on it: stm/detail/tx_core.hpp).
//       A lock word may be shared-locked (lock_word::is_shared: both flag
//       bits, held by escalated read-only transactions of a table with an
//       escalation token): nobody may write under it, so a commit must treat
//       it as held, as it treats any word that is not lock_word::is_free (a
//       CAS from the unlocked word fails on it). A manager may also find its
//       own pre-lock taken over by an escalated transaction: its final-lock
//       CAS from that pre-lock then fails, and it must abort.
//
// and one of these two, which say how to wait after a failed attempt, before
// the body runs again:
//
//   STM_HD std::uint32_t pause_ns(std::uint32_t tid, std::uint32_t attempt, abort_cause cause) const;
//       How long to pause, in ns, without sleeping it (it may wait for an
//       event first: cmp/delay.hpp polls a lock word, bounded). Every driver
//       schedules it as a deadline (TX_BEGIN/TX_END and TX_FOR through
//       stm/detail/tx_loop.hpp, the transaction table through
//       stm/txtable.hpp; with STM_TX_END_SCHEDULE=0, TX_END sleeps it), so
//       that the other lanes of the warp go on meanwhile and each lane
//       retries at its own time. A const member
//       function: a non-const one is not found. Every built-in manager has it.
//
//   STM_HD void on_abort(std::uint32_t tid, std::uint32_t attempt, abort_cause cause) const;
//       Wait here (used only when there is no pause_ns). Under the one-attempt
//       driver the lanes of a warp leave it together, so the driver adds a
//       randomized stagger that doubles per consecutive abort up to ~1 ms (see
//       transaction::pause_ns in stm/tx.hpp).
//
// Optional:
//
//   static constexpr bool fences_final_locks = true;
//       acquire() ends with fence (A) of stm/detail/tx_core.hpp (a release
//       fence after its last final-lock CAS), so the core's publish() skips
//       it. Without it the core fences. Inherited like any member: a manager
//       derived from one that sets it, with an acquire() that does not end
//       with (A), must set it to false.
//
//   STM_HD bool dooms_read(std::uint32_t word, std::uint32_t tid) const;
//       A read of tx_config Opaque = false loaded lock word `word`: true when
//       the commit of transaction `tid` would fail on it anyway (PR-STM: a
//       pre-lock of a higher priority). The read notes it and the commit of
//       an update fails (cause prelock) before it takes any lock. A read-only
//       commit ignores the note: its validation looks at the lock words again
//       and fails on any pre-lock still held then. Without it, never.
//
//   STM_HD void on_attempt(std::uint32_t tid, std::uint32_t attempt) const;
//       Before every attempt, after on_start(), with the attempt's number (0
//       the first of a transaction): for a manager whose priorities change
//       between attempts (cmp/prstm_aging.hpp publishes its rank here).
//
//   static constexpr std::uint32_t semantic_retries = N;
//       The transaction table (stm/txtable.hpp) retries a semantic conflict
//       at once up to N times instead of postponing it.
#pragma once

#include <cstdint>

#include "stm/backoff.hpp"
#include "stm/detail/tx_core.hpp"
#include "stm/lock_word.hpp"
#include "stm/platform.hpp"
#include "stm/tx_config.hpp"
#include "stm/tx_sets.hpp"

namespace stm {

/// What a contention manager sees of a transaction: the descriptor behind
/// stm::transaction<CM, Config>, passed as `Core& tx` to the hooks above.
/// What a manager may use of it:
///
///   tx.table                    the lock table (lock_table_ref: word(i), word_ptr(i))
///   tx.tid                      the logical thread id: the priority, lower wins
///   tx.reads[i], i < tx.n_reads   read_entry (stm/tx_sets.hpp)
///   tx.locks[k], k < tx.n_locks   lock_entry: set state to lock_pre / lock_final
///                                 as the manager takes the lock
///   tx.counters                 tx_counters (stm/stats.hpp): e.g. ++steals
///   Core::config                the tx_config (max_reads, max_writes, opaque, ...)
///   Core::unrolled              true when the sets are small enough to be
///                               scanned by unrolled loops (they then live in
///                               registers: index them through each/get/put)
///   Core::each<N>(n, f)         f(i) for i < n of a set of capacity N, in
///                               order, until f returns false (returns false then)
///   Core::get(set, i), Core::put(set, i, e)   set[i] by constant indices when unrolled
///   tx.mark_covered(all)        flag the reads whose lock is in the write set
///                               (after the write set is pre-locked)
///   tx.write_set_claimed()      the write set is claimed, the validation of
///                               reads not under our locks comes next (the
///                               commit clock's increment, if the table keeps one)
///   tx.fail(cause)              end the attempt (status aborted or semantic)
///   tx.release_unpublished()    give back every lock taken, nothing published
///   tx.abort_releasing(cause)   both, and return false
///
/// After acquire() returns true, the core publishes: it writes back, fences
/// and releases every lock entry with its version bumped (the fences and what
/// they pair with: stm/detail/tx_core.hpp).
template <class Config>
using tx_descriptor = detail::tx_core<Config>;

/// Runtime knobs every built-in manager takes. Zero turns a knob off.
struct manager_tuning {
  std::uint32_t wait_polls = 0;       ///< polls of a final-locked word before aborting
  std::uint32_t backoff_max_ns = 0;   ///< cap of the randomized exponential back-off after an abort

  /// The back-off after `attempt` consecutive aborts (backoff_span_ns of
  /// stm/backoff.hpp, capped at backoff_max_ns).
  STM_HD std::uint32_t backoff_span_ns(std::uint32_t tid, std::uint32_t attempt) const {
    return stm::backoff_span_ns(tid, attempt, backoff_max_ns);
  }
  /// The same with `default_max_ns` as the cap when the knob is off (0).
  STM_HD std::uint32_t backoff_span_ns(std::uint32_t tid, std::uint32_t attempt, std::uint32_t default_max_ns) const {
    return stm::backoff_span_ns(tid, attempt, backoff_max_ns != 0 ? backoff_max_ns : default_max_ns);
  }
  /// Sleep backoff_span_ns(tid, attempt) (for a manager's on_abort).
  STM_HD void backoff(std::uint32_t tid, std::uint32_t attempt) const {
    platform::backoff_ns(backoff_span_ns(tid, attempt));
  }
  /// The random part of a manager's waits (backoff_hash of stm/backoff.hpp).
  STM_HD static std::uint32_t jitter(std::uint32_t tid, std::uint32_t attempt) { return backoff_hash(tid, attempt); }
};

/// What most managers share: the tuning, the wait rule for final locks, and
/// no per-access bookkeeping. A manager derives from it and hides what it
/// does differently.
struct manager_base {
  manager_tuning tune{};

  STM_HD bool wait_on_locked(std::uint32_t polls) const { return polls < tune.wait_polls; }
  STM_HD void on_start() {}
  template <class Core>
  STM_HD void on_read(Core&, std::uint32_t) {}
  template <class Core>
  STM_HD void on_write(Core&, std::uint32_t) {}

  /// The last step of an acquire() that pre-locks its write set first (every
  /// lock entry lock_pre, ours): CAS each pre-lock to the final lock, entry by
  /// entry, setting lock_final. False at the first CAS that fails: that
  /// pre-lock is no longer ours (stolen by a higher priority, or taken over
  /// by an escalated transaction); the caller releases what it holds and
  /// aborts (tx.abort_releasing(abort_cause::lock)). Relaxed: the release
  /// fence (A) before the write-back is the caller's.
  template <class Core>
  STM_HD static bool final_lock_in_turn(Core& tx) {
    return Core::template each<Core::config::max_writes>(tx.n_locks, [&](std::uint32_t k) {
      auto& e = tx.locks[k];
      std::uint32_t expect = lock_word::make_prelocked(e.version, tx.tid);
      if (!tx.table.word(e.lock).compare_exchange_strong(expect, lock_word::make_locked(e.version, tx.tid),
                                                         memory_order_relaxed))
        return false;
      e.state = lock_final;
      return true;
    });
  }
};

/// A manager of type CM (derived from manager_base) with the given tuning.
template <class CM>
STM_HD CM with_tuning(const manager_tuning& t) {
  CM m{};
  m.tune = t;
  return m;
}

}  // namespace stm
