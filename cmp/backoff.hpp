// SPDX-License-Identifier: Apache-2.0
// cmp/backoff.hpp - TinySTM's CM_BACKOFF: the transaction that sees a
// conflict aborts, then waits a randomized, exponentially growing delay before
// it runs again (__nanosleep on the GPU, a yield on the CPU).
//
// Commit protocol (the PR-STM lock word, without priorities or stealing):
//   1. pre-lock every lock of the write set: CAS from free at the version the
//      write saw; anything else (a moved version, a pre-lock or lock held by
//      another) aborts (cause prelock).
//   (C) seq_cst fence, pairs with (C) of every other committer: of two
//      transactions that each pre-lock what the other reads, at least one
//      sees the other's pre-lock in step 2 (no write skew). When every read
//      is of a location we write, the acquire fence (P) of
//      stm/detail/tx_core.hpp instead.
//   2. validate the read set: same version, same value, and no pre-lock or
//      lock held by another on it; else abort (cause validation).
//   3. turn each pre-lock into the final lock (cannot fail: nobody steals).
// Then the core writes back, fences and releases with the version bumped.
//
// Back-off: attempt a waits a pseudo-random time in [0, min(cap, 32 ns * 2^a)),
// cap = --cm-backoff (manager_tuning::backoff_max_ns), or default_backoff_ns when that
// knob is 0 (the knob's "off" would make this manager plain no-wait aborting).
//
// Progress: no thread ever waits on another, so warps cannot deadlock; two
// transactions may abort each other (both see the other's pre-lock), and the
// randomized, growing delays make repeated collisions ever less likely. There
// is no priority, so a long transaction can starve behind short ones (the
// trade-off against prstm, whose lowest id always wins).
#pragma once

#include <cstdint>

#include "cmp/contention_manager.hpp"
#include "stm/lock_word.hpp"
#include "stm/manager.hpp"
#include "stm/platform.hpp"

namespace stm::cm {

struct backoff : manager_base {
  static constexpr const char* name = "backoff";
  /// Cap of the delay when the tuning's cap is 0. The delay doubles from 32 ns
  /// per consecutive abort, so a lightly contended transaction never gets near
  /// the cap; a heavily contended one needs it: with an 8 us cap, full
  /// occupancy over 64 accounts (thousands of contenders per account) left
  /// most threads uncommitted after 30 s, every contender retrying within
  /// microseconds.
  static constexpr std::uint32_t default_backoff_ns = 4000000;

  STM_HD std::uint32_t pause_ns(std::uint32_t tid, std::uint32_t attempt, abort_cause) const {
    return tune.backoff_span_ns(tid, attempt, default_backoff_ns);
  }

  template <class Core>
  STM_HD bool acquire(Core& tx) const {
    return acquire_nosteal(tx, [](std::uint32_t, std::uint32_t) {});
  }

  /// The commit protocol above; `held(lock, word)` is told which lock held by
  /// another transaction made it abort (cmp/delay.hpp waits on it).
  /// Each step goes entry by entry and stops at the first failure. Issuing a
  /// step's CASes as one batch (as prstm does) measured slower
  /// (docs/design-decisions.md#backoff-lock-by-lock): without priorities, a batch that
  /// loses one lock has taken the others, which then stop other transactions
  /// until released.
  template <class Core, class Held>
  STM_HD static bool acquire_nosteal(Core& tx, Held&& held) {
    namespace lw = lock_word;
    constexpr std::uint32_t R = Core::config::max_reads, W = Core::config::max_writes;
    // 1. pre-lock the write set.
    if (!Core::template each<W>(tx.n_locks, [&](std::uint32_t k) {
          auto& e = tx.locks[k];
          std::uint32_t expect = lw::make_unlocked(e.version);
          if (!tx.table.word(e.lock).compare_exchange_strong(expect, lw::make_prelocked(e.version, tx.tid),
                                                             memory_order_relaxed)) {
            if (!lw::is_free(expect)) held(e.lock, expect);
            return false;
          }
          e.state = lock_pre;
          return true;
        }))
      return tx.abort_releasing(abort_cause::prelock);
    tx.write_set_claimed();  // (K) of a commit clock: before the validation (stm/detail/tx_core.hpp)
    // A read under one of our pre-locks must have seen the version we
    // pre-locked at; its value is checked below (version wrap).
    bool all_covered = true;
    if (!tx.mark_covered(all_covered)) return tx.abort_releasing(abort_cause::validation);
    // (C) pre-locks before read validation; pairs with (C) of every other
    // committer. Needed only for reads of locations we do not write (Dekker).
    // Otherwise (P) of docs/stm-core.md#synchronization-table: the value checks below come
    // after our pre-lock CASes.
    if (!all_covered) platform::fence_seq_cst();
    else platform::fence_acquire();
    // 2. validate the read set.
    if (!Core::template each_loaded<R>(
            tx.n_reads, [&](std::uint32_t i) { return tx.read_word_and_value(i); },
            [&](std::uint32_t i, const typename Core::read_look& l) {
              const auto& r = tx.reads[i];
              if (!r.covered) {
                if (!lw::is_free(l.word) || lw::version(l.word) != r.version()) {
                  if (!lw::is_free(l.word)) held(r.lock, l.word);
                  return false;
                }
              }
              return l.value == r.value;
            }))
      return tx.abort_releasing(abort_cause::validation);
    // 3. final locks. Under this manager only the pre-lock holder changes a
    // pre-locked word, except an escalated transaction (stm/detail/tx_core.hpp),
    // which takes pre-locks over; the CAS fails then (or if transactions of
    // another manager share the lock table, unsupported): an abort, never ignored.
    if (!final_lock_in_turn(tx)) return tx.abort_releasing(abort_cause::lock);
    return true;
  }

};

}  // namespace stm::cm
