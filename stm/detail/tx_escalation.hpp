// SPDX-License-Identifier: Apache-2.0
// stm/detail/tx_escalation.hpp - escalation, a base of the descriptor
// (stm/detail/tx_core.hpp) the way recording is (tx_record.hpp): its state and
// its mechanics, each taking the descriptor.
//
// A transaction that has aborted EscalateAfter times on concurrent conflicts,
// and one of whose attempts read at least EscalateMinReads locations, runs its
// next attempt escalated if it has not written yet or if at least half of its
// aborts lost a lock of its own write set (its commit's pre-lock refused, or
// stolen: it keeps losing races for the same locations, a hot spot that
// retrying does not cure); an update whose aborts were mostly failed
// validations or reads that met a lock (a long read set meeting unrelated
// commits, which a retry usually survives) waits until 4 x EscalateAfter, as
// does any transaction. Once escalated, every later attempt of it is too.
// Why the cause matters, with the measurements: docs/design-decisions.md#escalation-cause.
// Before its forced attempt (4 x EscalateAfter, or any attempt of a
// transaction that ran escalated before) an attempt due to escalate does so
// only if the token is free when it starts, and otherwise runs as a plain
// attempt (the throttle's escalate_when_free, on by default): exclusive
// escalations run one at a time per table, and under contention many
// transactions become due together; queueing them on the token idles each
// waiter's warp (its lanes run the body together) while a plain retry would
// often commit. docs/design-decisions.md#escalation-when-free.
// Escalated, an attempt runs:
//  - exclusive (an earlier attempt wrote): the table's escalation token alone,
//    then every location it reads or writes taken as a final lock of its own
//    when first touched (hold());
//  - shared (no attempt wrote): the token shared beside other shared holders,
//    every location it reads taken as a shared lock (hold_shared()); a write
//    aborts the attempt and the next one escalates exclusively.
// Nobody can then change what it read, so the attempt never validates, never
// aborts on a conflict and commits (two-phase locking: opaque). The token, the
// lock states, the hard bound on attempts and why every wait ends are in
// docs/stm-core.md#escalation.
#pragma once

#include <cstdint>

#include "stm/backoff.hpp"
#include "stm/detail/tx_scan.hpp"
#include "stm/lock_table.hpp"
#include "stm/lock_word.hpp"
#include "stm/platform.hpp"
#include "stm/tx_config.hpp"
#include "stm/tx_sets.hpp"

namespace stm::detail {

template <class Config>
struct tx_escalation {
  /// Values of `escalated`.
  static constexpr std::uint8_t escalated_exclusive = 1, escalated_shared = 2;

  std::uint8_t escalated = 0;  // this attempt runs escalated: escalated_exclusive or escalated_shared
  std::uint8_t long_tx = 0;    // an attempt of this transaction read escalate_min_reads locations
  std::uint8_t wrote = 0;      // an attempt of this transaction wrote: it escalates exclusively
  std::uint8_t lock_aborts = 0;  // aborts of this transaction that lost a lock of its write set, at most 255
  std::uint8_t was_escalated = 0;  // an attempt of this transaction ran escalated: so do the later ones

  /// Whether the next attempt escalates.
  enum class due : std::uint8_t {
    no,       // it runs plain
    if_free,  // it escalates if the token is free, else runs plain (before the forced attempt)
    forced    // it escalates, waiting for the token if need be
  };
  /// The next attempt (0-based `attempt`): the rule above. The table's
  /// throttle may move EscalateAfter (throttle_config::escalate_after; 0
  /// leaves it) and make a due attempt always wait (escalate_when_free = 0).
  STM_HD due escalation_due(const lock_table_ref& t, std::uint32_t attempt) const {
    const std::uint32_t after = t.throttle.escalate_after != 0 ? t.throttle.escalate_after : Config::escalate_after;
    if (attempt < after || t.escalation == nullptr) return due::no;
    if (was_escalated || attempt >= 4 * after) return due::forced;
    if (!long_tx || (wrote && 2u * lock_aborts < attempt)) return due::no;
    return t.throttle.escalate_when_free != 0 ? due::if_free : due::forced;
  }

  /// After a failed attempt, before the next one: remember whether it was
  /// long, whether it wrote, and whether it lost a lock of its own write set:
  /// its commit's pre-lock refused (prelock, unless `notes`, the attempt's
  /// read notes, carry a pre-lock: then an update's commit failed on a read
  /// before taking any lock) or its pre-lock stolen (lock). A read that met a
  /// lock (read_locked, also a boosted set's busy key) does not count: the
  /// holder is publishing, and an escalated holder's locks would otherwise make
  /// every reader behind it escalate in turn.
  STM_HD void note_attempt(std::uint32_t n_reads, std::uint32_t n_writes, abort_cause cause, std::uint32_t notes) {
    if (n_reads >= Config::escalate_min_reads) long_tx = 1;
    if (n_writes != 0) wrote = 1;
    const bool lost_own_lock =
        cause == abort_cause::lock || (cause == abort_cause::prelock && (notes & lock_word::prelock_bit) == 0);
    if (lost_own_lock && lock_aborts < 255) ++lock_aborts;
  }

  /// A new transaction (begin()): nothing of the last one's attempts counts.
  STM_HD void reset_escalation_history() { long_tx = wrote = lock_aborts = was_escalated = 0; }

  /// Take the escalation token exclusively: once no other transaction holds
  /// it, exclusively or shared. While waiting, the token's intent bit keeps
  /// new shared holders out, so the shared ones drain. (Each holder's attempt
  /// runs to its end without waiting for anyone unboundedly.) wait = false:
  /// one look, and false (the attempt runs plain, the intent bit untouched)
  /// unless the token was free, with no waiter's intent (a waiter is forced:
  /// it goes first), and is now ours.
  template <class Core>
  STM_HD bool begin_escalation(Core& tx, bool wait) {
    using T = lock_table_ref;
    const auto token = tx.table.escalation_word();
    for (exp_backoff b(64, 16384);; b.wait()) {
      std::uint64_t t = token.load(memory_order_relaxed);
      if ((t & T::gate_holder_mask) == 0 && (t >> T::gate_reader_shift) == 0 && (wait || (t & T::gate_intent) == 0)) {
        // acquire: pairs with the release by which the last holder (shared or
        // exclusive) gave it back, after its locks.
        if (token.compare_exchange_strong(t, (t & ~T::gate_intent) | (std::uint64_t(tx.tid) + 1),
                                          memory_order_acquire, memory_order_relaxed))
          break;
      } else if (wait && (t & T::gate_intent) == 0) {
        token.fetch_or(T::gate_intent, memory_order_relaxed);
      }
      if (!wait) return false;
    }
    escalated = escalated_exclusive;
    was_escalated = 1;
    ++tx.counters.escalations;
    return true;
  }

  /// Take the escalation token shared (a transaction none of whose attempts
  /// wrote): while no transaction holds it exclusively or waits to. wait =
  /// false: false as soon as the token is not open to readers (a CAS lost to
  /// another reader's hold is tried again at once).
  template <class Core>
  STM_HD bool begin_shared_escalation(Core& tx, bool wait) {
    using T = lock_table_ref;
    const auto token = tx.table.escalation_word();
    for (exp_backoff b(64, 16384);; b.wait()) {
      std::uint64_t t = token.load(memory_order_relaxed);
      // acquire: as above (an exclusive holder's final locks are given back).
      bool taken = false;
      while ((t & (T::gate_holder_mask | T::gate_intent)) == 0 &&
             !(taken = token.compare_exchange_strong(t, t + T::gate_reader, memory_order_acquire,
                                                     memory_order_relaxed))) {
      }
      if (taken) break;
      if (!wait) return false;
    }
    escalated = escalated_shared;
    was_escalated = 1;
    ++tx.counters.escalations;
    return true;
  }

  /// The end of an escalated attempt: give back the locks it only read (at
  /// their version; nothing was written under them), and with published =
  /// false its write locks too; then the token (release: after the locks).
  /// One out-of-line copy when outlined (stm::outlined_accesses).
  template <class Core>
  STM_HD void end_escalation(Core& tx, bool published) {
    if constexpr (Core::outlined) end_escalation_outlined(tx, published);
    else end_escalation_here(tx, published);
  }
  template <class Core>
  STM_NOINLINE STM_HD void end_escalation_outlined(Core& tx, bool published) { end_escalation_here(tx, published); }
  template <class Core>
  STM_HD void end_escalation_here(Core& tx, bool published) {
    if (!published) tx.release_unpublished();
    const bool shared = escalated == escalated_shared;
    Core::template each<Config::max_reads>(tx.n_reads, [&](std::uint32_t i) {
      read_entry& r = tx.reads[i];
      if (r.held) {
        if (shared) release_shared(tx.table, r.lock);
        else tx.table.word(r.lock).store(lock_word::make_unlocked(r.version()), memory_order_relaxed);
        r.held = 0;
      }
      return true;
    });
    escalated = 0;
    tx.table.escalation_word().fetch_sub(shared ? lock_table_ref::gate_reader : std::uint64_t(tx.tid) + 1,
                                         memory_order_release);
  }

  /// Give back one hold of shared lock `li`. The last one clears the flags:
  /// the decrement leaves a shared lock of no holds, which a new holder may
  /// still take (then the clearing CAS fails, and the lock stays shared).
  STM_HD static void release_shared(const lock_table_ref& table, std::uint32_t li) {
    const auto lw = table.word(li);
    const std::uint32_t old = lw.fetch_sub(lock_word::shared_one, memory_order_relaxed);
    if (lock_word::holds(old) == 1) {
      std::uint32_t expect = old - lock_word::shared_one;
      lw.compare_exchange_strong(expect, lock_word::make_unlocked(lock_word::version(old)), memory_order_relaxed);
    }
  }

  /// Shared escalation: add a hold of lock `li` (a free word, or a pre-lock,
  /// stolen: its owner then fails its final-lock CAS, as under hold()).
  /// Waits while a committer holds its final lock. Returns its version; took
  /// = a hold was added (not when the count is full and this attempt holds
  /// the lock already: a hold per read entry otherwise).
  template <class Core>
  STM_HD static std::uint32_t hold_shared(Core& tx, std::uint32_t li, bool& took) {
    namespace lwd = lock_word;
    const auto lw = tx.table.word(li);
    std::uint32_t w = lw.load(memory_order_relaxed);
    for (;;) {
      const bool full = lwd::is_shared(w) && lwd::holds(w) == lwd::owner_mask >> lwd::owner_shift;
      if (full) {
        took = false;
        if (!Core::template each<Config::max_reads>(
                tx.n_reads, [&](std::uint32_t i) { return !(tx.reads[i].held && tx.reads[i].lock == li); }))
          return lwd::version(w);
      }
      if (lwd::is_final(w) || full) {
        platform::backoff_ns(64);
        w = lw.load(memory_order_relaxed);
        continue;
      }
      const std::uint32_t next = lwd::is_shared(w) ? w + lwd::shared_one : lwd::make_shared(lwd::version(w), 1);
      // acquire: pairs with (B) of the word's last writer (its unlock store,
      // or an RMW of that store's release sequence: other holds), as hold()'s.
      if (lw.compare_exchange_weak(w, next, memory_order_acquire, memory_order_relaxed)) {
        if (lwd::is_prelocked(w) && !lwd::is_shared(w)) ++tx.counters.steals;
        took = true;
        return lwd::version(w);
      }
    }
  }

  /// Exclusive escalation: lock `li` as our final lock, or find it ours
  /// already (an earlier read or write under it). Returns its version; took =
  /// we locked it now. Waits while another holds its final lock (bounded:
  /// docs/stm-core.md#escalation); steals a pre-lock (its owner's final-lock
  /// CAS then fails).
  template <class Core>
  STM_HD static std::uint32_t hold(Core& tx, std::uint32_t li, bool& took) {
    const auto lw = tx.table.word(li);
    std::uint32_t w = lw.load(memory_order_relaxed);
    for (;;) {
      if (lock_word::is_locked(w)) {  // a final lock (a shared one cannot be held beside us: see the token)
        if (lock_word::is_final(w) && lock_word::owner(w) == tx.tid) {
          took = false;
          return lock_word::version(w);
        }
        platform::backoff_ns(64);
        w = lw.load(memory_order_relaxed);
        continue;
      }
      // acquire: pairs with (B) of the word's last writer (docs/stm-core.md#synchronization-table).
      if (lw.compare_exchange_weak(w, lock_word::make_locked(lock_word::version(w), tx.tid), memory_order_acquire,
                                   memory_order_relaxed)) {
        if (lock_word::is_prelocked(w)) ++tx.counters.steals;
        took = true;
        return lock_word::version(w);
      }
    }
  }

  /// read() of an escalated attempt: under our final or shared lock the value
  /// cannot change until we release, so it needs no validation.
  template <class T, class Core, class CM>
  STM_HD T read_escalated(Core& tx, const T* addr, CM& cm) {
    if (tx.n_reads == Config::max_reads) {
      tx.fail(abort_cause::capacity);
      return T{};
    }
    const std::uint32_t li = tx.table.index_of(addr);
    bool took = false;
    const std::uint32_t v = escalated == escalated_shared ? hold_shared(tx, li, took) : hold(tx, li, took);
    // Record: under our final or shared lock nobody bumps the lock's sequence, and
    // hold()'s acquire made the last holder's bump (before its unlock)
    // visible, so the sequence names the write the value came from: exact.
    [[maybe_unused]] std::uint64_t seq = 0;
    if constexpr (Config::record) seq = tx.observe_seq(li);
    const std::uint64_t bits = load_word(addr, sizeof(T));
    Core::put(tx.reads, tx.n_reads++,
              read_entry{addr, bits, li, lock_word::make_unlocked(v), static_cast<std::uint8_t>(sizeof(T)), 0, 0,
                         static_cast<std::uint8_t>(took ? 1 : 0)});
    if constexpr (Config::record) {
      tx.note_read(tx.n_reads - 1, seq, true);
      tx.n_seen = tx.n_reads;
    }
    cm.on_read(tx, tx.n_reads - 1);
    return from_bits<T>(bits);
  }
};

}  // namespace stm::detail
