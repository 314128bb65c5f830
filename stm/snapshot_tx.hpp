// SPDX-License-Identifier: Apache-2.0
// stm/snapshot_tx.hpp - stm::snapshot_transaction: a read-only transaction
// that keeps no read set, for long read-only transactions (audits, scans of a
// whole table): its descriptor is a few words whatever it reads, where
// stm::transaction's read set costs 32 bytes per read of tx_config's MaxReads
// (on the GPU a stack frame per thread: README, "How many reads a descriptor
// holds").
//
//   stm::snapshot_transaction<> tx(locks, tid);  // the table keeps the commit clock (the default)
//   long total = 0;
//   TX_BEGIN(tx) {
//     total = 0;
//     for (int i = 0; i < n; ++i) total += TX_READ(tx, &balance[i]);
//   } TX_END(tx);                                 // committed: total is one snapshot's sum
//
// It runs in every form (TX_FOR, TX_BEGIN/TX_END, TX_ATTEMPT); TX_WRITE does
// not compile on it.
//
// How. The attempt takes the commit clock once, at its start (snap, an acquire
// load). Each read loads the lock word w (acquire), the value, fences (R) and
// loads the clock c, as an opaque read of stm::transaction does, and is
// accepted when w shows neither a final lock nor a pre-lock (a shared lock of
// an escalated reader is fine: its value cannot change) and either c == snap
// or the lock's stamp is not above snap (no writer counted after snap wrote
// under it). These are the two accepting cases of docs/stm-core.md#commit-clock
// and #lock-stamps with snap set once, before every read: each read returns the value of the
// last writer counted in snap (the writers whose clock increment (K) is
// among the first snap), so every value a body sees belongs to the state
// after those writers (opacity), and a read-only commit has nothing left to
// check: the transaction serializes at that state. A read that fails the test
// aborts the attempt (cause validation when its lock was written since snap or
// a pre-lock was seen, read_locked for a final lock), which is retried as any.
//
// Progress: an attempt commits when no update writes a location it is about
// to read while it reads (a pre-lock or final lock on a location it reads
// also fails it). Under a steady stream of updates to what it reads, a long scan may retry indefinitely: use it where
// updates are few or pause (an audit between phases, a reader beside rare
// writers). Under heavy writing use stm::transaction with a read set sized
// for the scan: it escalates after EscalateAfter aborts and then commits in a
// bounded number of attempts.
#pragma once

#include <cstdint>
#include <type_traits>

#include "stm/backoff.hpp"
#include "stm/detail/check.hpp"
#include "stm/detail/tx_core.hpp"  // is_tx_word, to_bits/from_bits
#include "stm/error.hpp"
#include "stm/lock_table.hpp"
#include "stm/lock_word.hpp"
#include "stm/platform.hpp"
#include "stm/stats.hpp"
#include "stm/tx_config.hpp"
#include "stm/tx_sets.hpp"  // load_word

namespace stm {

namespace detail {
struct form_access;
}  // namespace detail

/// A read-only transaction without a read set (see the header comment). The
/// members the forms use are those of stm::transaction.
class snapshot_transaction {
 public:
  /// tid: the logical thread id (distinct among concurrent transactions, below
  /// lock_word::max_threads, as stm::transaction's). The table must keep the
  /// commit clock (lock_table's clock = true, the default): on the host a
  /// table without one throws usage_error; on the GPU the kernel traps.
  STM_HD snapshot_transaction(lock_table_ref locks, std::uint32_t tid) : table_(locks), tid_(tid) {
    require_thread_id(tid);
    if (!locks.has_clock()) {
#if STM_ON_DEVICE
      STM_CHECK(false, "snapshot-clock", "a snapshot_transaction needs a lock table with the commit clock");
      __trap();
#else
      throw usage_error("a snapshot_transaction needs a lock table with the commit clock (lock_table's clock = true)");
#endif
    }
  }

  /// Start a new transaction (resets the attempt count).
  STM_HD void begin() {
    attempt_ = 0;
    open_attempt();
  }

  /// Read *addr in the attempt's snapshot. When the snapshot cannot hold the
  /// attempt aborts and T{} is returned (TX_READ leaves the body instead).
  template <class T>
  STM_HD T read(const T* addr) {
    static_assert(detail::is_tx_word<T>, "transactional values are trivially copyable 4- or 8-byte types");
    if (status_ != tx_status::active) return T{};
    const std::uint32_t li = table_.index_of(addr);
    const std::uint32_t w = table_.word(li).load(memory_order_acquire);  // pairs with (B): a bumped version comes with its values
    const std::uint64_t bits = load_word(addr, sizeof(T));
    platform::fence_acquire();  // (R) pairs with (A): a written-back value implies c sees its increment, the stamp its stamp
    const std::uint64_t c = table_.clock_word().load(memory_order_relaxed);
    // A moved clock fails the read only when its lock was written since snap
    // (docs/stm-core.md#lock-stamps).
    if (!lock_word::is_settled(w) || (c != snap_ && table_.stamp(li).load(memory_order_relaxed) > snap_)) {
      fail(c == snap_ && lock_word::is_final(w) ? abort_cause::read_locked : abort_cause::validation);
      return T{};
    }
    ++reads_;
    return detail::from_bits<T>(bits);
  }

  /// A snapshot transaction only reads.
  template <class T, class U>
  STM_HD void write(T*, const U&) {
    static_assert(sizeof(T) == 0, "a snapshot_transaction only reads (use stm::transaction to write)");
  }

  /// The body cannot proceed for a reason of the application: the transaction
  /// ends with status semantic and is not retried.
  STM_HD void semantic_conflict() { fail(abort_cause::semantic); }

  /// Every read was checked when it was made: the commit only records it.
  STM_HD bool commit() {
    if (status_ != tx_status::active) return false;
    status_ = tx_status::committed;
    ++counters_.commits;
    return true;
  }

  /// After a failed attempt: true to run the body again (after a pause).
  STM_HD bool retry() {
    if (!retryable()) return false;
    platform::backoff_ns(pause_ns());
    next_attempt();
    return true;
  }
  STM_HD bool retryable() const { return status_ == tx_status::aborted; }
  /// TX_ATTEMPT's start: the next attempt when the last one was retryable(),
  /// else a new transaction.
  STM_HD void start_attempt() {
    if (retryable()) next_attempt();
    else begin();
  }
  /// The pause before the next attempt: randomized, doubling from 32 ns per
  /// consecutive abort up to about 1 ms (the clock moves when updates commit;
  /// waiting lets a burst of them pass).
  STM_HD std::uint32_t pause_ns() const { return backoff_span_ns(tid_, attempt_, 32u << 15); }

  STM_HD bool active() const { return status_ == tx_status::active; }
  STM_HD bool committed() const { return status_ == tx_status::committed; }
  STM_HD tx_status status() const { return status_; }
  STM_HD abort_cause cause() const { return cause_; }
  STM_HD std::uint32_t attempts() const { return attempt_; }
  STM_HD std::uint32_t thread_id() const { return tid_; }
  /// Reads accepted in the current attempt.
  STM_HD std::uint32_t reads() const { return reads_; }
  STM_HD const tx_counters& counters() const { return counters_; }
  STM_HD lock_table_ref locks() const { return table_; }

 private:
  friend struct detail::form_access;

  STM_HD void next_attempt() {
    ++attempt_;
    open_attempt();
  }
  STM_HD void open_attempt() {
    status_ = tx_status::active;
    reads_ = 0;
    snap_ = table_.clock_word().load(memory_order_acquire);  // pairs with (K) of every counted writer
  }
  STM_HD void fail(abort_cause c) {
    if (status_ != tx_status::active) return;
    status_ = c == abort_cause::semantic ? tx_status::semantic : tx_status::aborted;
    cause_ = c;
    STM_UNROLL
    for (std::uint32_t k = 0; k < num_abort_causes; ++k)  // constant indices: the counters stay in registers
      if (k == static_cast<std::uint32_t>(c)) ++counters_.aborts[k];
  }

  lock_table_ref table_;
  std::uint64_t snap_ = 0;
  std::uint32_t tid_;
  std::uint32_t attempt_ = 0;
  std::uint32_t reads_ = 0;
  tx_status status_ = tx_status::active;
  abort_cause cause_ = abort_cause::validation;
  tx_counters counters_;
#if STM_CHECKS
  [[maybe_unused]] bool in_form_ = false;  // rule nested-form (stm/detail/tx_loop.hpp, a friend uses it)
#endif
};

}  // namespace stm

#include "stm/tx_macros.hpp"  // the forms its usage comment shows
