// SPDX-License-Identifier: Apache-2.0
// stm/detail/tx_core.hpp - the transaction descriptor's state and the
// mechanics every contention manager shares: buffered writes, invisible
// reads with (optional) incremental validation, write-back and release.
// Escalation is a base (stm/detail/tx_escalation.hpp), as recording is
// (tx_record.hpp); the set scans and word casts are in tx_scan.hpp.
//
// Fences (the only ones; each is named by its letter in the code, and the
// arguments are in docs/stm-core.md#synchronization-table):
//
//   reader (read)                         committer (commit)
//   w1 = lock.load(acquire)   <-- pairs -- (B) fence_release; unlock stores
//   v  = data.load(relaxed)                   ...
//   (R) fence_acquire         <-- pairs -- (A) fence_release after the final
//   w2 = lock.load(relaxed)                   locks, before the write-back
//
//  (P), in the manager: acquire after its pre-lock CASes, pairs with (B) of
//  the previous holder. (C), in the manager (cmp/prstm.hpp): seq_cst, its
//  pre-locks before its read validation. (O): seq_cst, an opaque attempt's
//  re-check of its reads on a table without a commit clock
//  (docs/stm-core.md#opaque-recheck-fence). (S): seq_cst, before a read-only
//  commit's validation (docs/stm-core.md#read-only-validation).
//
// Commit clock (a table with one; opaque reads; docs/stm-core.md#commit-clock):
// an attempt takes snap = clock (acquire) at its start; each read loads the
// clock and its lock's stamp after (R) in place of w2: unchanged, only the new read's own w1 is
// checked; moved, the new read passes alone when its lock's stamp (the clock
// value of its last writer) is not above snap, else every read is re-checked
// behind an acquire fence and snap moves (docs/stm-core.md#lock-stamps). An
// update commit increments the clock (K) once its write set is claimed and
// before it validates (write_set_claimed(), as TL2), or after its final locks
// when it validates under locks it holds (publish()), and stamps its locks
// with the value before its write-back.
#pragma once

#include <cstdint>
#include <utility>

#include "stm/backoff.hpp"
#include "stm/detail/admission.hpp"
#include "stm/detail/manager_traits.hpp"
#include "stm/detail/tx_escalation.hpp"
#include "stm/detail/tx_record.hpp"
#include "stm/detail/tx_scan.hpp"
#include "stm/detail/tx_writeback.hpp"
#include "stm/lock_table.hpp"
#include "stm/lock_word.hpp"
#include "stm/platform.hpp"
#include "stm/stats.hpp"
#include "stm/tx_config.hpp"
#include "stm/tx_sets.hpp"

namespace stm {
namespace detail {

/// The descriptor's state. Contention managers see this type as
/// stm::tx_descriptor (stm/manager.hpp: their commit protocol reads the sets
/// and takes the locks); users see stm::transaction.
template <class Config>
struct tx_core : tx_recorder<Config>, tx_escalation<Config>, tx_writeback<tx_core<Config>, Config> {
  using config = Config;
  using esc = tx_escalation<Config>;
  using wb = tx_writeback<tx_core<Config>, Config>;
  using esc::escalated, esc::escalated_exclusive, esc::escalated_shared, esc::long_tx, esc::wrote;
  lock_table_ref table;
  std::uint32_t tid = 0;       // logical thread id = priority (lower wins)
  tx_status status = tx_status::active;
  abort_cause cause = abort_cause::read_locked;
  std::uint32_t attempt = 0;   // attempts of the current transaction so far
  std::uint32_t n_reads = 0, n_writes = 0, n_locks = 0;
  // Opaque = false: bit 31 (lock_word::lock_bit), a read met a final lock;
  // bit 30 (prelock_bit), a read met a pre-lock the manager says we lose to.
  std::uint32_t read_notes = 0;
  std::uint64_t snap = 0;      // Opaque with a clock: the commit clock at the last validation
  std::uint64_t commit_stamp = 0;  // the clock value this attempt's commit took at (K) (>= 1); 0: not yet
  admission_state admission;  // stm/detail/admission.hpp
  tx_counters counters;
  // Value-initialized: the unrolled scans touch entries past n (guarded), which
  // compilers cannot always prove unused.
  read_entry reads[Config::max_reads] = {};
  write_entry writes[Config::max_writes] = {};
  lock_entry locks[Config::max_writes] = {};

  STM_HD void reset_sets() {
    n_reads = n_writes = n_locks = read_notes = 0;
    commit_stamp = 0;
    if constexpr (Config::record) this->n_seen = 0;
  }

  /// Small sets are scanned unrolled, with constant indices, so that they
  /// live in registers (tx_scan.hpp; docs/design-decisions.md#descriptor-in-registers).
  static constexpr bool unrolled = Config::max_reads <= 8 && Config::max_writes <= 8;
  /// Accesses and aborts out of line (stm::outlined_accesses; never for small sets).
  static constexpr bool outlined = Config::outlined && !unrolled;
  using scan = set_scan<unrolled>;
  using read_look = typename scan::read_look;
  template <std::uint32_t N, class F>
  STM_HD static bool each(std::uint32_t n, F&& f) { return scan::template each<N>(n, f); }
  template <std::uint32_t N, class L, class F>
  STM_HD static bool each_loaded(std::uint32_t n, L&& look, F&& f) { return scan::template each_loaded<N>(n, look, f); }
  template <std::uint32_t N, class E>
  STM_HD static void put(E (&set)[N], std::uint32_t at, const E& v) { scan::put(set, at, v); }
  template <std::uint32_t N, class E>
  STM_HD static E get(const E (&set)[N], std::uint32_t at) { return scan::get(set, at); }

  /// A final lock: its owner is writing back (readers poll or abort). A
  /// descriptor that can escalate may meet shared locks (lock and pre-lock
  /// bits), which are not: their holders write nothing. Without escalation no
  /// shared lock exists, and the test stays the one-bit test.
  STM_HD static bool final_locked(std::uint32_t w) {
    if constexpr (Config::escalates) return lock_word::is_final(w);
    else return lock_word::is_locked(w);
  }
  /// A pre-lock (not a shared lock), for a word that final_locked() refused.
  STM_HD static bool prelock_held(std::uint32_t w) {
    if constexpr (Config::escalates) return (w & (lock_word::lock_bit | lock_word::prelock_bit)) == lock_word::prelock_bit;
    else return lock_word::is_prelocked(w);
  }

  /// The lock word of read entry i (relaxed), for each_loaded().
  STM_HD std::uint32_t read_word(std::uint32_t i) const { return table.word(reads[i].lock).load(memory_order_relaxed); }

  /// The attempt committed: its outcome, its gate slot, its count.
  STM_HD void mark_committed() {
    status = tx_status::committed;
    admission.leave(table, false);
    ++counters.commits;
  }

  /// End the attempt with cause c (one out-of-line copy when outlined).
  STM_HD void fail(abort_cause c) {
    if constexpr (outlined) fail_outlined(c);
    else fail_here(c);
  }
  STM_NOINLINE STM_HD void fail_outlined(abort_cause c) { fail_here(c); }
  STM_HD void fail_here(abort_cause c) {
    if (status != tx_status::active) return;
    // Opaque = false: a body that read through a final lock may have decided
    // on a torn snapshot (no funds, a longer path that overflows a set); that
    // verdict is not final, the conflict is: the transaction is retried.
    if (read_notes & lock_word::lock_bit) c = abort_cause::read_locked;
    status = c == abort_cause::semantic ? tx_status::semantic : tx_status::aborted;
    cause = c;
    admission.leave(table, c != abort_cause::semantic && c != abort_cause::capacity);
    if (Config::escalates && escalated) this->end_escalation(*this, false);  // semantic, capacity: its locks, the token
    STM_UNROLL
    for (std::uint32_t k = 0; k < num_abort_causes; ++k)  // constant indices: counters stay in registers
      if (k == static_cast<std::uint32_t>(c)) ++counters.aborts[k];
    if constexpr (Config::record) this->log_attempt(*this, false);
  }

  template <class T, class CM>
  STM_HD T read(const T* addr, CM& cm) {
    static_assert(is_tx_word<T>, "transactional values are trivially copyable 4- or 8-byte types");
    if (status != tx_status::active) return T{};
    {  // read own write (a location has at most one write entry)
      bool own = false;
      std::uint64_t v = 0;
      each<Config::max_writes>(n_writes, [&](std::uint32_t i) {
        if (writes[i].addr == addr) {
          own = true;
          v = writes[i].value;
        }
        return !own;
      });
      if (own) return from_bits<T>(v);
    }
    if (Config::escalates && escalated) return this->read_escalated(*this, addr, cm);
    const std::uint32_t li = table.index_of(addr);
    const auto lw = table.word(li);
    std::uint32_t w1;
    std::uint64_t bits;
    [[maybe_unused]] std::uint64_t seq = 0;  // Record: the lock's commit sequence seen (stm/history.hpp)
    [[maybe_unused]] bool exact = true;
    [[maybe_unused]] std::uint64_t c = 0, st = 0;  // Opaque with a clock: the clock and li's stamp after (R)
    if constexpr (Config::opaque) {
      const bool clocked = table.has_clock();
      for (std::uint32_t polls = 0;; ++polls) {
        w1 = lw.load(memory_order_acquire);  // pairs with (B): a bumped version comes with its values
        if constexpr (Config::record) seq = this->observe_seq(li);
        bits = load_word(addr, sizeof(T));
        platform::fence_acquire();  // (R) pairs with (A): a written-back value implies w2 sees the lock (c the increment)
        if (clocked) {
          // The clock's load is the second look (reads_consistent(); the
          // table's "c == snap"): no w2.
          c = table.clock_word().load(memory_order_relaxed);  // (1) needs only (R) before it
          st = table.stamp(li).load(memory_order_relaxed);    // beside c: one round trip, not two
          if (!final_locked(w1)) break;
        } else {
          const std::uint32_t w2 = lw.load(memory_order_relaxed);
          if (!final_locked(w1) && !final_locked(w2) && lock_word::version(w1) == lock_word::version(w2)) break;
        }
        if (!cm.wait_on_locked(polls)) {
          fail(abort_cause::read_locked);
          return T{};
        }
        platform::backoff_ns(64);
      }
    } else if constexpr (Config::record) {
      bits = this->read_recorded(*this, li, addr, sizeof(T), cm, w1, seq, exact);
    } else {
      // Validated at commit by version AND value, so the two loads need no
      // order and go out together; a final lock seen is only noted (commit()
      // fails it) unless the manager polls. Two paths on the manager's answer
      // alone, loads written in different orders, so that nothing waits for
      // them here (docs/design-decisions.md#reads-in-flight).
      if (!cm.wait_on_locked(0)) {
        w1 = lw.load(memory_order_relaxed);
        bits = load_word(addr, sizeof(T));
      } else {
        bits = load_word(addr, sizeof(T));
        w1 = lw.load(memory_order_relaxed);
        for (std::uint32_t polls = 0; cm.wait_on_locked(polls) && final_locked(w1); ++polls) {
          platform::backoff_ns(64);
          w1 = lw.load(memory_order_relaxed);
          bits = load_word(addr, sizeof(T));
        }
      }
      // No branch on w1 either: a select, so nothing waits for the loads yet.
      // (A descriptor that can escalate notes final locks only: a shared
      // lock's value does not change while it is held.)
      std::uint32_t noted = w1;
      if constexpr (Config::escalates) noted &= ~(w1 << 1);
      read_notes |= (noted & lock_word::lock_bit) | (dooms_read(cm, w1, tid) ? lock_word::prelock_bit : 0u);
    }
    if (n_reads == Config::max_reads) {
      fail(abort_cause::capacity);
      return T{};
    }
    put(reads, n_reads++,
        read_entry{addr, bits, li, w1, static_cast<std::uint8_t>(sizeof(T)), 0, 0, 0});
    if constexpr (Config::record) this->note_read(n_reads - 1, seq, exact);
    cm.on_read(*this, n_reads - 1);
    if constexpr (Config::opaque) {
      if (!reads_consistent(cm, c, st, li, w1)) {
        fail(abort_cause::validation);
        return T{};
      }
    }
    if constexpr (Config::record) this->n_seen = n_reads;
    return from_bits<T>(bits);
  }

  /// Opacity after a new read (the last entry): every read holds at one moment, and no
  /// read's location is claimed by a committer (pre-lock or final lock). With a commit
  /// clock, the earlier reads are checked only when the clock moved since the last validation
  /// (docs/stm-core.md#commit-clock) and the new read's stamp `st` is above snap or w1 unsettled, the new one
  /// always (by its w1 while the clock stands still); without one, every read again behind (O).
  /// (O), a seq_cst fence, without a clock, once there are two reads: why
  /// a pre-lock fails the re-check and why the fence is seq_cst, in
  /// docs/stm-core.md#opaque-recheck-fence. A single read needs neither fence
  /// nor check, unless it moves snap: one location is one snapshot.
  template <class CM>
  STM_HD bool reads_consistent(CM& cm, std::uint64_t c, std::uint64_t st, std::uint32_t li, std::uint32_t w1) {
    if (table.has_clock()) {
      // c: loaded after (R) of the new read, so after its data load. c ==
      // snap: the new read's own first look at its lock word, w1, loaded
      // after snap was set, shows every counted writer's claim (the table's
      // (2)); free or shared, nothing more to check; a pre-lock is polled.
      if (c == snap) return lock_word::is_settled(w1) || read_unclaimed(li, lock_word::version(w1), cm);
      // The clock moved, but the new read's lock was last written by a
      // counted writer (its stamp, loaded after (R), is not above snap) and
      // w1 shows no claim: the value is the one at snap, which every earlier
      // read holds too; snap stays (docs/stm-core.md#lock-stamps).
      if (lock_word::is_settled(w1) && st <= snap) return true;
      // A new snap must hold for every read, a single one included: a writer
      // counted now may have locked it after its loads. The acquire that
      // c's relaxed load lacked: the re-checks must see every counted
      // writer's claim (pairs with (K)).
      platform::fence_acquire();
      snap = c;
    } else if (n_reads < 2) {
      return true;
    } else {
      platform::fence_seq_cst();  // (O)
    }
    // The batch's words were loaded together; an entry whose word is not
    // plainly current (a pre-lock to poll, or a failure) is looked at again
    // by read_unclaimed, whose own load is at least as recent.
    return each_loaded<Config::max_reads>(
        n_reads, [&](std::uint32_t i) { return read_word(i); },
        [&](std::uint32_t i, std::uint32_t w) {
          const read_entry& r = reads[i];
          if (!final_locked(w) && !prelock_held(w) && lock_word::version(w) == r.version()) return true;
          return read_unclaimed(r.lock, r.version(), cm);
        });
  }

  /// Opaque re-check of a read (behind (O) or the clock's load): lock `lock` at the version read,
  /// with no final lock and no pre-lock. A pre-lock at that version is polled
  /// while the manager waits on locks (its holder only validates, then takes
  /// its final locks or gives it back); a new version or a final lock fails.
  /// It takes the entry's fields, not its index: an index that is not a
  /// compile-time constant (the newest read's, n_reads - 1) would move the
  /// whole read set from registers to local memory.
  template <class CM>
  STM_HD bool read_unclaimed(std::uint32_t lock, std::uint32_t version, CM& cm) const {
    const auto lw = table.word(lock);
    for (std::uint32_t polls = 0;; ++polls) {
      const std::uint32_t w = lw.load(memory_order_relaxed);
      if (final_locked(w) || lock_word::version(w) != version) return false;
      if (!prelock_held(w)) return true;
      if (!cm.wait_on_locked(polls)) return false;
      platform::backoff_ns(64);
    }
  }

  /// Before an attempt's sets are reset: an escalated attempt abandoned
  /// without commit or abort gives back its locks and the token.
  STM_HD void leave_escalation() {
    if constexpr (Config::escalates)
      if (escalated) this->end_escalation(*this, false);
    admission.abandon(table);
  }

  /// Before every attempt (after its sets are reset): escalate when due (the
  /// token free, or waited for when forced), and take the opaque reads' clock snapshot.
  STM_HD void start_attempt_sync() {
    admission.enter(table, tid, attempt);  // before the escalation token: stm/detail/admission.hpp
    if constexpr (Config::escalates) {
      if (const auto d = this->escalation_due(table, attempt); d != esc::due::no) {
        const bool forced = d == esc::due::forced;  // else only if the token is free
        (void)(wrote ? this->begin_escalation(*this, forced) : this->begin_shared_escalation(*this, forced));
      }
    }
    if constexpr (Config::opaque)
      if (table.has_clock()) snap = table.clock_word().load(memory_order_acquire);
  }

  /// After a failed attempt, before the next one: what escalation's rule reads.
  STM_HD void note_attempt() {
    if constexpr (Config::escalates) esc::note_attempt(n_reads, n_writes, cause, read_notes);
  }

  /// Commit of an escalated attempt: it holds every lock it needs, so it
  /// cannot fail. Writes are published as any update's (clock, (A), (B)).
  STM_HD void commit_escalated() {
    if (n_writes != 0) this->template publish<false>();  // exclusive only: a shared attempt never writes
    this->end_escalation(*this, true);
  }

  template <class T, class CM>
  STM_HD void write(T* addr, const T& value, CM& cm) {
    static_assert(is_tx_word<T>, "transactional values are trivially copyable 4- or 8-byte types");
    if (status != tx_status::active) return;
    if (Config::escalates && escalated == escalated_shared) {
      // Escalated shared on the guess that it reads only: wrong. The next
      // attempt escalates exclusively (one attempt more than the bound of a
      // read-only transaction; docs/stm-core.md#escalation).
      wrote = 1;
      fail(abort_cause::validation);
      return;
    }
    const std::uint64_t bits = to_bits(value);
    bool rewritten = false;
    each<Config::max_writes>(n_writes, [&](std::uint32_t i) {
      if (writes[i].addr == addr) {
        writes[i].value = bits;
        rewritten = true;
      }
      return !rewritten;
    });
    if (rewritten) return;
    if (n_writes == Config::max_writes) {
      fail(abort_cause::capacity);
      return;
    }
    // A location read before keeps the lock and version of that read (the
    // common read-modify-write costs no second look at the lock word).
    std::uint32_t li = 0, version = 0;
    bool known = false;
    if (Config::escalates && escalated) {  // escalated: the lock is taken now
      li = table.index_of(addr);
      version = esc::hold(*this, li, known);
      known = true;
    }
    if (!known) each<Config::max_reads>(n_reads, [&](std::uint32_t i) {  // the newest read of addr wins
      if (reads[i].addr == addr) {
        li = reads[i].lock;
        version = reads[i].version();
        known = true;
      }
      return true;
    });
    if (!known) {
      li = table.index_of(addr);
      for (std::uint32_t polls = 0;; ++polls) {
        const std::uint32_t w = table.word(li).load(memory_order_relaxed);
        if (!final_locked(w)) {
          version = lock_word::version(w);
          break;
        }
        if (!cm.wait_on_locked(polls)) {
          fail(abort_cause::read_locked);
          return;
        }
        platform::backoff_ns(64);
      }
    }
    put(writes, n_writes++, write_entry{addr, bits, static_cast<std::uint8_t>(sizeof(T))});
    if (!each<Config::max_writes>(n_locks, [&](std::uint32_t k) { return locks[k].lock != li; })) return;
    std::uint8_t state = lock_none;
    if (Config::escalates && escalated) {
      state = lock_final;  // the lock entry releases it now, with the version bumped
      each<Config::max_reads>(n_reads, [&](std::uint32_t i) {
        if (reads[i].lock == li) reads[i].held = 0;
        return true;
      });
    }
    put(locks, n_locks++, lock_entry{li, static_cast<std::uint16_t>(version), state});
    cm.on_write(*this, n_locks - 1);
  }

  /// Read-only commit: every read still current (with opacity, the last read
  /// already proved it; checking again costs little and covers Opaque=false).
  STM_HD bool validate_read_only() {
    // (S) seq_cst fence, then every read must still be current and its lock
    // word free: no final lock and no pre-lock of another transaction.
    //
    // Why a pre-lock fails the commit and why the fence is seq_cst (a cycle
    // U2 -> U1 -> R -> U2 otherwise, found by a recorded GPU history):
    // docs/stm-core.md#read-only-validation. The same fence orders the body's
    // loads before the validation's (it replaces (R') for Opaque = false).
    //
    // The commit clock never shortens this check (an unchanged clock says no
    // update committed, not that no pre-lock is held), and an escalated
    // attempt never comes here (commit_escalated: its own final locks on its
    // reads would fail it, and nobody could have changed them).
    platform::fence_seq_cst();
    if (each_loaded<Config::max_reads>(
            n_reads, [&](std::uint32_t i) { return this->read_word_and_value(i); },
            [&](std::uint32_t i, const read_look& l) { return this->read_current_and_unclaimed(i, l); }))
      return true;
    fail(abort_cause::validation);
    return false;
  }

  /// A commit protocol's failure exit: release what this attempt holds, record
  /// the cause, and return false (for `return tx.abort_releasing(cause);`).
  STM_HD bool abort_releasing(abort_cause c) {
    this->release_unpublished();
    fail(c);
    return false;
  }
};

}  // namespace detail
}  // namespace stm
