// SPDX-License-Identifier: Apache-2.0
// stm/tx.hpp - stm::transaction: the explicit transaction descriptor.
//
//   stm::transaction<> tx(locks, tid);        // one per logical thread
//   TX_BEGIN(tx) {
//     int a = TX_READ(tx, &acct[i]);
//     TX_WRITE(tx, &acct[i], a - 1);
//   } TX_END(tx);
//
// Guarantees
//  - Committed transactions are serializable (each behaves as if it ran alone
//    at one instant between its first read and its commit).
//  - Reads are invisible and, with tx_config's Opaque = true (the default),
//    every value a body sees belongs to one consistent snapshot (opacity). The
//    macros leave the body at the first conflict a read or write detects, so a
//    body never computes with a value that validation would reject. With
//    Opaque = false a read that meets a final lock only notes it, and the
//    commit (or a semantic conflict, or an overflow) then fails as read_locked.
//  - An aborted attempt leaves shared memory untouched (writes are buffered).
//  - Set overflow aborts with abort_cause::capacity and is never silent; the
//    macros do not retry it (a retry would overflow again): status() tells.
//  - Values: trivially copyable 4- or 8-byte types at naturally aligned
//    addresses; a location is always accessed with one width.
//  - Priorities: the logical thread id; lower wins every conflict. Ids must be
//    distinct among concurrent transactions and below lock_word::max_threads.
//  - Long transactions: with the lock table's commit clock (the default), an
//    opaque attempt of R reads costs O(R) checks while no update commits. A
//    transaction that aborted tx_config's EscalateAfter times (default 8) on
//    conflicts, and read at least EscalateMinReads (16) locations in one of
//    its attempts, runs its next attempt escalated if it has not written yet
//    or if at least half of its aborts lost a lock of its write set, and the
//    escalation token is free then (else it retries plain); any transaction does
//    after 4 x EscalateAfter aborts, waiting for the token (read-only ones side by side under shared
//    locks, an update alone per table): it locks what it touches and cannot
//    abort on a conflict, so it commits by that attempt (one later if it
//    escalated as read-only and then wrote; docs/stm-core.md#escalation). A descriptor with fewer than
//    EscalateMinReads reads never escalates. The lock table's throttle
//    (stm::throttle_config::escalate_after) may stand in for EscalateAfter.
//
// Local variables changed inside a body keep their values across retries:
// (re)initialise them inside the body.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "stm/backoff.hpp"
#include "stm/detail/check.hpp"
#include "stm/detail/manager_traits.hpp"
#include "stm/detail/tx_core.hpp"
#include "stm/lock_table.hpp"
#include "stm/prstm.hpp"
#include "stm/stats.hpp"
#include "stm/tx_config.hpp"

namespace stm {

namespace detail {
struct form_access;  // stm/detail/tx_loop.hpp: the forms' bookkeeping (STM_CHECKS)

/// Above this many reads (tx_config's MaxReads) a descriptor compiled for the
/// GPU gets a compile-time warning: its read set is a stack frame of 32 bytes
/// per read for every thread, which the driver reserves for every thread the
/// GPU can hold resident (README, "How many reads a descriptor holds").
inline constexpr std::uint32_t gpu_large_read_set = 1024;
/// read_set_size<true>::note() is deprecated: naming it is the warning. (A
/// class per answer, not `if constexpr`: nvcc warns of a deprecated call in a
/// discarded branch too.)
template <bool Large>
struct read_set_size {
  STM_HD static void note() {}
};
template <>
struct read_set_size<true> {
  [[deprecated("prstm: a descriptor of more than 1024 reads (tx_config's MaxReads) costs 32 bytes of stack frame "
               "per read for every GPU thread (README: How many reads a descriptor holds); for a long read-only "
               "transaction use stm::snapshot_transaction (stm/snapshot_tx.hpp); -DSTM_ALLOW_LARGE_DESCRIPTOR "
               "silences this")]]
  STM_HD static void note() {}
};
/// Bytes of local memory sets of r reads, w writes and l locks take in a
/// descriptor of Config: 0 when its sets live in registers (both capacities
/// at most 8). The footprint gate's measure (stm/detail/admission.hpp).
template <class Config>
STM_HD constexpr std::uint32_t sets_bytes(std::uint32_t r, std::uint32_t w, std::uint32_t l) {
  return tx_core<Config>::unrolled ? 0u
                                   : r * std::uint32_t(sizeof(read_entry)) + w * std::uint32_t(sizeof(write_entry)) +
                                         l * std::uint32_t(sizeof(lock_entry));
}
}  // namespace detail

template <class CM = prstm, class Config = tx_config<>>
class transaction {
 public:
  using config = Config;
  using contention_manager = CM;

  /// tid: the logical thread id, below lock_word::max_threads (else
  /// require_thread_id's error, stm/lock_table.hpp).
  STM_HD transaction(lock_table_ref locks, std::uint32_t tid, CM cm = CM{}) : cm_(cm) {
#if STM_ON_DEVICE && !defined(STM_ALLOW_LARGE_DESCRIPTOR)
    detail::read_set_size<(Config::max_reads > detail::gpu_large_read_set)>::note();
#endif
    require_thread_id(tid);
    core_.table = locks;
    core_.tid = tid;
  }

  /// Start a new transaction (resets the attempt count).
  STM_HD void begin() {
    core_.attempt = 0;
    if constexpr (Config::escalates) core_.reset_escalation_history();
    open_attempt();
  }

  /// Read *addr. On a conflict the attempt is aborted and T{} returned
  /// (TX_READ leaves the body instead).
  template <class T>
  STM_HD T read(const T* addr) {
    if constexpr (detail::tx_core<Config>::outlined) return read_outlined(addr);
    else return core_.read(addr, cm_);
  }

  /// Buffer *addr = value until commit.
  template <class T>
  STM_HD void write(T* addr, const T& value) {
    if constexpr (detail::tx_core<Config>::outlined) write_outlined(addr, value);
    else core_.write(addr, value, cm_);
  }

  /// The body cannot proceed for a reason of the application (e.g. no funds).
  /// The transaction ends with status semantic and is not retried; except with
  /// Opaque = false after a read that met a final lock: the body may have seen
  /// a torn snapshot, so that is a conflict (read_locked) and is retried.
  STM_HD void semantic_conflict() { core_.fail(abort_cause::semantic); }

  /// The body met a lock the STM does not see, held by a transaction that
  /// has committed and is finishing its effect (a transactional container's
  /// abstract key lock, containers/detail/boost.hpp). The attempt aborts as
  /// read_locked, as on a final lock, and is retried.
  STM_HD void lock_conflict() { core_.fail(abort_cause::read_locked); }

  /// Validate and publish. True when the transaction committed.
  STM_HD bool commit() {
    if (core_.status != tx_status::active) return false;
    // Opaque = false: a read met a final lock, or (an update only) a pre-lock
    // we lose to. A read-only commit decides at its validation instead, which
    // fails on any pre-lock still held then (validate_read_only says why).
    const bool read_locked = (core_.read_notes & lock_word::lock_bit) != 0;
    if (read_locked || (core_.read_notes != 0 && core_.n_writes != 0)) {
      core_.fail(read_locked ? abort_cause::read_locked : abort_cause::prelock);
      return false;
    }
    if (Config::escalates && core_.escalated) {
      core_.commit_escalated();  // holds every lock it needs: cannot fail
    } else if (core_.n_writes == 0) {
      if (!core_.validate_read_only()) return false;
    } else {
      if (!cm_.acquire(core_)) return false;
      core_.template publish<detail::fences_final_locks<CM>::value>();
    }
    core_.mark_committed();
    if constexpr (Config::record) core_.log_attempt(core_, true);
    return true;
  }

  /// After a failed attempt: true to run the body again (after the contention
  /// manager's back-off), false when the failure is final (semantic conflict,
  /// capacity overflow).
  STM_HD bool retry() {
    if (!retryable()) return false;
    if constexpr (detail::has_pause_ns<CM>::value) platform::backoff_ns(pause_ns());
    else cm_.on_abort(core_.tid, core_.attempt, core_.cause);
    next_attempt();
    return true;
  }

  /// The last attempt aborted on a concurrent conflict: running the body
  /// again may commit (a semantic conflict or a set overflow would recur).
  STM_HD bool retryable() const {
    return core_.status == tx_status::aborted && core_.cause != abort_cause::capacity;
  }

  /// TX_ATTEMPT's start: the next attempt of this transaction when the last
  /// one was retryable(), else a new transaction (as begin()).
  STM_HD void start_attempt() {
    if (retryable()) next_attempt();
    else begin();
  }

  /// After a retryable() attempt: how long the contention manager wants to
  /// pause before the next one, in ns, for a caller that schedules the pause
  /// itself (stm/txtable.hpp keeps the other lanes of the warp going
  /// meanwhile). A manager that does not say (no pause_ns) waits here, in
  /// on_abort, and then a randomized stagger is returned, doubling from 32 ns
  /// per consecutive abort up to 1 ms: the lanes of a warp that waited in
  /// on_abort together leave it together, and two transactions that each
  /// pre-locked what the other needs would collide again on every retry, in
  /// lockstep, whatever their waits (one warp of no-steal transfers over a
  /// few accounts can then run forever). The stagger must
  /// outgrow one pass of the driver's loop, which is slow under
  /// compute-sanitizer: a fixed 1 us cap still livelocked there.
  STM_HD std::uint32_t pause_ns() const {
    if constexpr (detail::has_pause_ns<CM>::value) {
      return cm_.pause_ns(core_.tid, core_.attempt, core_.cause);
    } else {
      cm_.on_abort(core_.tid, core_.attempt, core_.cause);
      return backoff_span_ns(core_.tid, core_.attempt, 32u << 15);  // cap 2^20 ns, ~1 ms
    }
  }

  /// For the drivers that schedule their lanes' attempts (TX_FOR and
  /// TX_BEGIN/TX_END's loop, the transaction table): admission control
  /// (stm/detail/admission.hpp) is decided at the lane's turn by admit()
  /// instead of by a bounded wait when an attempt opens.
  STM_HD void drive_admission(bool on) { core_.admission.by_driver = on; }
  /// The driver's turn: true when the next attempt (a retry if retryable(),
  /// else a new transaction) may open now; false when its gate is full: the
  /// driver pauses the lane pause_ns and asks again.
  STM_HD bool admit(std::uint32_t& pause_ns) {
    if (core_.admission.try_enter(core_.table, retryable())) return true;
    pause_ns = core_.admission.refusal_pause_ns(core_.table);
    return false;
  }

  /// What this lane enters the loop forms' footprint gate with
  /// (stm/detail/admission.hpp, footprint_gate): the bytes of local memory
  /// the sets of its last attempt took (0 when they live in registers: both
  /// capacities at most 8), weighted by its heat (footprint_charge).
  STM_HD std::uint32_t footprint_bytes() const {
    return detail::footprint_charge(core_.table, set_bytes(), core_.admission.heat);
  }
  /// The same bytes unweighted (the footprint gate's measure of whether a
  /// warp's sets can fit its budget at all: footprint_opens).
  STM_HD std::uint32_t set_bytes() const {
    return detail::sets_bytes<Config>(core_.n_reads, core_.n_writes, core_.n_locks);
  }
  /// The bytes of full sets: the estimate before any attempt ran.
  static constexpr std::uint32_t set_capacity_bytes =
      detail::sets_bytes<Config>(Config::max_reads, Config::max_writes, Config::max_writes);

  STM_HD bool active() const { return core_.status == tx_status::active; }
  STM_HD bool committed() const { return core_.status == tx_status::committed; }
  STM_HD tx_status status() const { return core_.status; }
  /// Cause of the last abort (meaningful when status() is aborted or semantic).
  STM_HD abort_cause cause() const { return core_.cause; }
  /// Attempts the last transaction needed before its outcome (0 = first try).
  STM_HD std::uint32_t attempts() const { return core_.attempt; }
  STM_HD std::uint32_t thread_id() const { return core_.tid; }
  /// Run the next transactions as logical thread `tid` (their priority).
  /// Only between transactions: this one holds no lock then.
  STM_HD void set_thread_id(std::uint32_t tid) {
    require_thread_id(tid);
    core_.tid = tid;
  }
  STM_HD const tx_counters& counters() const { return core_.counters; }
  /// The lock table this descriptor runs on. A container operation on this
  /// transaction compares it with the container's (rule composed-table).
  STM_HD lock_table_ref locks() const { return core_.table; }
  /// tx_config's Record = true: log this descriptor's attempts into `h`
  /// (stm/history.hpp). Only between transactions.
  STM_HD void record_into(const history_ref& h) {
    static_assert(Config::record, "record_into needs a tx_config with Record = true");
    core_.hist = h;
  }

 private:
  STM_HD void next_attempt() {
    ++core_.attempt;
    core_.note_attempt();
    open_attempt();
  }
  /// Attempt core_.attempt begins: empty sets, the manager told.
  STM_HD void open_attempt() {
    core_.leave_escalation();
    core_.reset_sets();
    core_.status = tx_status::active;
    core_.start_attempt_sync();
    cm_.on_start();
    detail::on_attempt(cm_, core_.tid, core_.attempt);
  }

  // stm::outlined_accesses: one out-of-line copy of the read and write paths
  // per type, called from every access of the body (stm/tx_config.hpp).
  template <class T>
  STM_NOINLINE STM_HD T read_outlined(const T* addr) { return core_.read(addr, cm_); }
  template <class T>
  STM_NOINLINE STM_HD void write_outlined(T* addr, const T& value) { core_.write(addr, value, cm_); }

  friend struct detail::form_access;

  CM cm_;
  detail::tx_core<Config> core_;
#if STM_CHECKS
  bool in_form_ = false;  // a form (TX_FOR, TX_BEGIN, TX_ATTEMPT) runs on this descriptor (rule nested-form)
#endif
};

}  // namespace stm

// The forms its usage comment shows (stm/tx_macros.hpp includes this header
// first, so the class is complete when the macros' helpers are declared).
#include "stm/tx_macros.hpp"
