// SPDX-License-Identifier: Apache-2.0
// stm/detail/tx_core.hpp - the transaction descriptor's state and the
// mechanics every contention manager shares: buffered writes, invisible
// reads with (optional) incremental validation, write-back and release.
//
// Synchronization table (the fences named here are the only ones):
//
//   reader (read)                         committer (commit)
//   -------------                         -------------------
//   w1 = lock.load(acquire)   <-- pairs -- (B) fence_release; unlock stores
//   v  = data.load(relaxed)                   ...
//   (R) fence_acquire         <-- pairs -- (A) fence_release after the final
//   w2 = lock.load(relaxed)                   locks, before the write-back
//
//  (R)/(A): if the reader's data load saw a value of the write-back, its
//  re-load of the lock word sees the final lock (or a later state), so a value
//  is only ever accepted together with the version it belongs to. With
//  Opaque = false the loads of a read go out unordered and (R') fences once,
//  before a read-only commit re-loads the lock words (an update commit's
//  validation comes after the manager's fence C or its (P), below).
//  (B)/acquire: a reader that sees the bumped version sees the written values.
//  (P), in the contention manager: an acquire fence after the pre-lock CASes,
//  before the values under those locks are checked again; pairs with (B) of
//  the previous holder, whose unlock store the pre-lock CAS read (or an RMW
//  of its release sequence), so the check sees what that holder wrote. The
//  CAS may also read the plain store by which an aborted committer gave back
//  a final lock (release_unpublished): that one wrote nothing back, and under
//  prstm its own (P) or (C) and its (A) come before that store.
//  The commit protocol's own fence (C, pre-locks before read validation) is in
//  the contention manager (cmp/prstm.hpp). A manager may execute (A) itself,
//  right after its final-lock CASes (prstm does, so that the fence's round
//  trip overlaps theirs); it then says so with fences_final_locks = true.
//
// Commit clock (a lock table with one, stm/lock_table.hpp; opaque reads):
//
//   reader (Opaque = true)                committer (update commit)
//   ----------------------                -------------------
//   attempt start:                            pre-lock (or lock) the write set
//     snap = clock.load(acquire)              clock.fetch_add(1, acq_rel) (K)
//   each read: w1, v, (R) as above, then      validate the reads, final locks
//     c = clock.load(relaxed)   (R) pairs -- (A) fence_release
//     c == snap: w1 must show no pre-lock     write-back, (B), unlocks
//       (one that does: re-check the new read)
//     else: fence_acquire (pairs with (K)); re-check every read; snap = c
//   (c takes the place of the second look w2 at the lock word. A re-check:
//   same version, no final lock, no pre-lock; a pre-lock is polled while the
//   manager waits on locks; a shared lock, below, passes)
//
//  (K) is the manager's call of write_set_claimed() (prstm, backoff, delay),
//  or, for a commit that does not call it (an escalated one; gpustm, which
//  validates under read locks it holds to the end), publish()'s increment
//  after the final locks, followed by (A').
//  Why a read that finds c == snap re-checks only itself. The increments form
//  one modification order; call the writers whose increment is among the
//  first c "counted". (1) Every value a read returns comes from a counted
//  writer (or the initial state): a value of writer W's write-back comes
//  after W's (K) and (A), and (R) orders our data load before our clock load,
//  so (A)/(R) make that clock load see W's increment. (2) Every read returns
//  the value of the last counted writer of its location: when snap was last
//  set (at the start or by a re-check of every read), the acquire load of the
//  clock synchronizes with (K) of every counted writer (the increments after
//  it are RMWs: its release sequence; a read's relaxed load of the clock
//  gets that acquire from the fence behind it, taken only when c moved: c ==
//  snap learns nothing new), so the loads of lock words that follow
//  see that writer's claim (pre-lock, final lock) or a later state: a read
//  before that point whose location a counted writer claimed fails the
//  re-check, and a read after it is checked by its own w1, which is such a
//  load: w1 free (or shared) means every counted writer of the location has
//  released it, and w1's acquire makes the data load see the value of the
//  writer of w1's version or of a later writer, which is not counted and by
//  (1) would have moved c; so value and version are the last counted
//  writer's. (A table without a clock keeps w2: the loop demands w1 and w2
//  at one version, no final lock, and the re-checks come behind (O).) (3) No writer that is
//  not counted must be serialized before a counted one that we read: take U2
//  that read y, U1 that wrote y and is counted, U2 -> U1 (U2's validation
//  missed U1's claim of y). Had U1's (K) come before U2's (K) in the clock's
//  order, U2's acq_rel increment would read from U1's (or a later one) and
//  its validation, after it, would see U1's claim of y: U2 fails. So U2's (K)
//  comes first, and U2 is counted as well; its own claim of the location we
//  read from before it is then visible to the re-checks after snap moved
//  (the pre-lock test). Hence (K) before validation, as TL2 does. So every
//  value belongs to the state after the counted writers, one snapshot.
//  Tables without a clock use the fence (O) instead (reads_consistent()).
//  The clock is 64 bits: no wrap.
//  Alternatives weighed: a clock sharded over lines (one per SM or per lock
//  range) spreads the increments, but a reader must then load every shard
//  (or every shard covering its reads) per read, and two loads of different
//  shards are not one snapshot without a second pass; per-lock-range counters
//  make the check O(ranges read). One word, bumped only by update commits and
//  kept off tables that do not need it (the bank's anchor runs), is simplest.
//  Its limit: where updates commit faster than a scan reads (a GPU at full
//  occupancy), the clock moves between most reads of a long attempt, which
//  then revalidates as often as without a clock (O(R^2)); escalation bounds
//  how many such attempts a transaction makes.
//
// Escalation (tx_config's EscalateAfter, EscalateMinReads). A transaction that
// has aborted EscalateAfter times on concurrent conflicts, and one of whose
// attempts read at least EscalateMinReads locations (or that has aborted
// 4 x EscalateAfter times: an opaque scan may keep aborting before it reaches
// EscalateMinReads reads), runs its next attempt escalated, in one of two
// modes, chosen by whether any earlier attempt of the transaction wrote:
//  - exclusive (it wrote): it takes the table's escalation token alone, then
//    takes every location it reads or writes, when it first touches it, as a
//    final lock of its own (hold(): a free word by CAS, a pre-lock by stealing
//    it, whose owner then fails its own final-lock CAS, or, for gpustm's
//    read-only commit locks, its check of them after its last lock; a final
//    lock of another by waiting, as its owner only writes back or gives up);
//  - shared (no attempt wrote: a read-only transaction, as far as it knows):
//    it takes the token shared, beside any number of other shared holders,
//    then takes every location it reads as a shared lock (hold_shared(): both
//    flag bits of the lock word, the owner field counting the holds; a free
//    word or a pre-lock, stolen as above, by CAS; a shared one by adding a
//    hold; a final lock by waiting). A write in this mode aborts the attempt
//    (validation) and the next one escalates exclusively.
// Nobody can then change what it read: a write needs the location free (a
// pre-lock CAS from the unlocked word; gpustm's lock; hold()), and a shared
// lock is neither; the last hold gives it back at its version. So an escalated
// attempt never validates, never aborts on a conflict and commits: publish()
// as usual (exclusive), and the locks it only read are released at their
// unchanged version. Opacity: each value is the location's latest when its
// lock was taken and stays so until the end, so at any point of the body every
// value read so far holds at once (two-phase locking). Plain readers read
// through a shared lock (its value cannot move) and treat only a final lock as
// taken (final_locked()); committers, writers and the managers' validations
// treat a shared lock as held (prstm, backoff, delay refuse or fail on it;
// gpustm gives up at once, as on the exclusive holder's locks).
// The token (lock_table_ref::gate_*): the exclusive holder's tid + 1, an
// intent bit and a count of shared holders. Exclusive: waits until no holder
// of either kind, and meanwhile sets the intent bit, which keeps new shared
// holders out (so a stream of read-only escalations cannot starve it: the
// present ones finish, bounded below). Shared: waits while an exclusive holder
// or the intent bit is there. The two modes never hold locks at once, so an
// exclusive holder never meets a shared lock, and a shared one never waits for
// an exclusive one's final lock; nor do two escalated transactions ever wait
// for each other's locks (shared holds stack). Waiting for the token is not an
// attempt; a waiter holds no lock.
// The hard bound: a transaction commits (or ends for its own reason, semantic
// or capacity) by attempt (0-based) min(max(EscalateAfter, j + 1),
// 4 x EscalateAfter), where j is its first attempt that read EscalateMinReads
// locations; one attempt later if it escalated shared and then wrote.
// Why waits end: a final lock is held by a committer in write-back (no wait),
// by a gpustm committer that waits for its next lock at most commit_wait_polls
// and then releases everything, or by the exclusive escalated transaction,
// which waits only on those. No manager waits unboundedly on an escalated
// one's locks: a read or write polls a final lock at most wait_on_locked's
// bound and aborts (a shared one it reads through, or records the version of);
// prstm, backoff and delay abort a commit on a lock they do not own; gpustm
// gives up at once on a shared lock or a final lock of the token's exclusive
// holder (else the escalated one, waiting for a lock that gpustm committer
// holds, would wait out its commit_wait_polls; with many escalating, such
// waits queue up); delay's pause polls at most delay_polls. The lanes of a
// warp: a lane that waits (token, final lock) waits for another thread's
// bounded step, never for a lane that waits for it.
// The acquire of hold()'s and hold_shared()'s CAS pairs with (B) of the last
// writer of the word (its unlock store, or an RMW of that store's release
// sequence: pre-locks, holds), so the value loaded under the lock is the
// latest. The token's acquire (taking it) pairs with its release (giving it
// back, after the locks). Only long transactions escalate: many short ones
// that abort often (a small table at full occupancy) would queue on the token,
// and their manager's own rule gives them progress.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "stm/backoff.hpp"
#include "stm/detail/admission.hpp"
#include "stm/detail/manager_traits.hpp"
#include "stm/detail/tx_record.hpp"
#include "stm/lock_table.hpp"
#include "stm/lock_word.hpp"
#include "stm/platform.hpp"
#include "stm/stats.hpp"
#include "stm/tx_config.hpp"
#include "stm/tx_sets.hpp"

namespace stm {
namespace detail {

template <class T>
inline constexpr bool is_tx_word = std::is_trivially_copyable_v<T> && (sizeof(T) == 4 || sizeof(T) == 8);

template <class T>
STM_HD inline std::uint64_t to_bits(const T& v) {
  if constexpr (sizeof(T) == 4) {
    std::uint32_t u;
    std::memcpy(&u, &v, 4);
    return u;
  } else {
    std::uint64_t u;
    std::memcpy(&u, &v, 8);
    return u;
  }
}
template <class T>
STM_HD inline T from_bits(std::uint64_t u) {
  T v;
  if constexpr (sizeof(T) == 4) {
    const std::uint32_t w = static_cast<std::uint32_t>(u);
    std::memcpy(&v, &w, 4);
  } else {
    std::memcpy(&v, &u, 8);
  }
  return v;
}

/// Relaxed atomic store of a 4- or 8-byte word at addr (size in bytes).
STM_HD inline void store_word(void* addr, std::uint32_t size, std::uint64_t v) {
  if (size == 4)
    atomic_ref<std::uint32_t>(*static_cast<std::uint32_t*>(addr)).store(static_cast<std::uint32_t>(v), memory_order_relaxed);
  else
    atomic_ref<std::uint64_t>(*static_cast<std::uint64_t*>(addr)).store(v, memory_order_relaxed);
}

/// The descriptor's state. Contention managers see this type as
/// stm::tx_descriptor (stm/manager.hpp: their commit protocol reads the sets
/// and takes the locks); users see stm::transaction.
template <class Config>
struct tx_core : tx_recorder<Config> {
  using config = Config;
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
  std::uint8_t escalated = 0;  // this attempt runs escalated: escalated_exclusive or escalated_shared
  std::uint8_t ticked = 0;     // this attempt's commit incremented the clock (write_set_claimed)
  std::uint8_t long_tx = 0;    // an attempt of this transaction read escalate_min_reads locations
  std::uint8_t wrote = 0;      // an attempt of this transaction wrote: it escalates exclusively
  admission_state admission;  // stm/detail/admission.hpp
  tx_counters counters;
  // Value-initialized: the unrolled scans touch entries past n (guarded), which
  // compilers cannot always prove unused.
  read_entry reads[Config::max_reads] = {};
  write_entry writes[Config::max_writes] = {};
  lock_entry locks[Config::max_writes] = {};

  STM_HD void reset_sets() {
    n_reads = n_writes = n_locks = read_notes = 0;
    ticked = 0;
    if constexpr (Config::record) this->n_seen = 0;
  }

  /// Small sets are scanned with fully unrolled loops, so that the loads of
  /// independent entries are in flight together, and every index into the
  /// sets is a compile-time constant: the sets (and the counters) then live in
  /// registers instead of local memory, which at full occupancy does not fit
  /// in L1 (docs/design-decisions.md#descriptor-in-registers).
  static constexpr bool unrolled = Config::max_reads <= 8 && Config::max_writes <= 8;

  /// Values of `escalated`.
  static constexpr std::uint8_t escalated_exclusive = 1, escalated_shared = 2;

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

  /// f(i) for every i < n of a set of capacity N, in order; stops when f returns
  /// false and returns false then.
  template <std::uint32_t N, class F>
  STM_HD static bool each(std::uint32_t n, F&& f) {
    if constexpr (unrolled) {
      bool go = true;
      STM_UNROLL
      for (std::uint32_t i = 0; i < N; ++i)
        if (go && i < n) go = f(i);
      return go;
    } else {
      for (std::uint32_t i = 0; i < n; ++i)
        if (!f(i)) return false;
      return true;
    }
  }
  /// The lock word and the value of read entry i, loaded together.
  struct read_look {
    std::uint32_t word;
    std::uint64_t value;
  };
  /// f(i, look(i)) for every i < n of a set of capacity N, in order; stops
  /// when f returns false and returns false then. The loads of a batch of
  /// entries are issued before any of them is tested: a loop whose every
  /// iteration ends in a branch on its own load waits a memory round trip per
  /// entry (the compiler cannot move a load above an earlier exit), and a
  /// long read set's re-checks at full occupancy were mostly that wait
  /// (docs/design-decisions.md#batched-validation). The loads are relaxed and
  /// independent, each ordered after the caller's fence as before: issuing
  /// them together changes no pairing. Small sets are unrolled whole by each().
  template <std::uint32_t N, class L, class F>
  STM_HD static bool each_loaded(std::uint32_t n, L&& look, F&& f) {
    if constexpr (unrolled) {
      return each<N>(n, [&](std::uint32_t i) { return f(i, look(i)); });
    } else {
      constexpr std::uint32_t batch = 8;
      using V = decltype(look(0u));
      for (std::uint32_t base = 0; base < n; base += batch) {
        V v[batch]{};  // entries past n stay unread (initialized for -Wmaybe-uninitialized)
        STM_UNROLL
        for (std::uint32_t j = 0; j < batch; ++j)
          if (base + j < n) v[j] = look(base + j);
        bool go = true;
        STM_UNROLL
        for (std::uint32_t j = 0; j < batch; ++j)
          if (go && base + j < n) go = f(base + j, v[j]);
        if (!go) return false;
      }
      return true;
    }
  }
  /// The lock word of read entry i (relaxed), for each_loaded().
  STM_HD std::uint32_t read_word(std::uint32_t i) const { return table.word(reads[i].lock).load(memory_order_relaxed); }
  /// Lock word and value of read entry i (relaxed), for each_loaded().
  STM_HD read_look read_word_and_value(std::uint32_t i) const {
    return read_look{read_word(i), load_word(reads[i].addr, reads[i].size)};
  }

  /// set[at] = v, by constant indices when the sets are small.
  template <std::uint32_t N, class E>
  STM_HD static void put(E (&set)[N], std::uint32_t at, const E& v) {
    if constexpr (unrolled) {
      STM_UNROLL
      for (std::uint32_t i = 0; i < N; ++i)
        if (i == at) set[i] = v;
    } else {
      set[at] = v;
    }
  }

  /// set[at], by constant indices when the sets are small.
  template <std::uint32_t N, class E>
  STM_HD static E get(const E (&set)[N], std::uint32_t at) {
    if constexpr (unrolled) {
      E v = set[0];
      STM_UNROLL
      for (std::uint32_t i = 1; i < N; ++i)
        if (i == at) v = set[i];
      return v;
    } else {
      return set[at];
    }
  }

  /// The attempt committed: its outcome, its gate slot, its count.
  STM_HD void mark_committed() {
    status = tx_status::committed;
    admission.leave(table, false);
    ++counters.commits;
  }

  STM_HD void fail(abort_cause c) {
    if (status != tx_status::active) return;
    // Opaque = false: a body that read through a final lock may have decided
    // on a torn snapshot (no funds, a longer path that overflows a set); that
    // verdict is not final, the conflict is: the transaction is retried.
    if (read_notes & lock_word::lock_bit) c = abort_cause::read_locked;
    status = c == abort_cause::semantic ? tx_status::semantic : tx_status::aborted;
    cause = c;
    admission.leave(table, c != abort_cause::semantic && c != abort_cause::capacity);
    if (Config::escalates && escalated) end_escalation(false);  // semantic, capacity: its locks, the token
    STM_UNROLL
    for (std::uint32_t k = 0; k < num_abort_causes; ++k)  // constant indices: counters stay in registers
      if (k == static_cast<std::uint32_t>(c)) ++counters.aborts[k];
    if constexpr (Config::record) this->log_attempt(*this, false);
  }

  /// True when read entry i is current and unclaimed: its lock word, loaded
  /// once, is at the version read with neither a final lock nor a pre-lock,
  /// and the location still holds the value read (a wrapped version). One
  /// load for every test: with a second load for the pre-lock, the first can
  /// show a committer's pre-lock at our version and the second, once that
  /// committer has written and released, no pre-lock (at a new version, which
  /// nothing checks then), and a read the committer overwrote passes.
  STM_HD bool read_current_and_unclaimed(std::uint32_t i, const read_look& l) const {
    const read_entry& r = reads[i];
    if (final_locked(l.word) || prelock_held(l.word) || lock_word::version(l.word) != r.version()) return false;
    return l.value == r.value;
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
    if (Config::escalates && escalated) return read_escalated(addr, cm);
    const std::uint32_t li = table.index_of(addr);
    const auto lw = table.word(li);
    std::uint32_t w1;
    std::uint64_t bits;
    [[maybe_unused]] std::uint64_t seq = 0;  // Record: the lock's commit sequence seen (stm/history.hpp)
    [[maybe_unused]] bool exact = true;
    [[maybe_unused]] std::uint64_t c = 0;  // Opaque with a clock: the clock after (R)
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
      // Recording: the opaque read's loads in its order, so that the sequence
      // names the write the value came from; the outcome as below, except that
      // a read the opaque read would not accept is noted as a final lock (its
      // claim is not exact: the commit fails, read_locked, and is retried).
      for (std::uint32_t polls = 0;; ++polls) {
        w1 = lw.load(memory_order_acquire);
        seq = this->observe_seq(li);
        bits = load_word(addr, sizeof(T));
        platform::fence_acquire();
        const std::uint32_t w2 = lw.load(memory_order_relaxed);
        exact = !final_locked(w1) && !final_locked(w2) &&
                lock_word::version(w1) == lock_word::version(w2);  // the opaque read's test
        if (!final_locked(w1) || !cm.wait_on_locked(polls)) break;
        platform::backoff_ns(64);
      }
      read_notes |= (exact ? 0u : lock_word::lock_bit) | (dooms_read(cm, w1, tid) ? lock_word::prelock_bit : 0u);
    } else {
      // Validated at commit by version AND value, so a torn (value, version)
      // pair is caught there: the two loads need no order and go out together.
      // Nothing here waits for them unless the manager polls final locks
      // (--cm-wait): a final lock seen is only noted, and commit() fails it
      // (as it fails an update on a lock word that the manager says dooms it).
      // Two paths on the manager's answer alone (a uniform value). With one
      // condition `polling && is_locked(w1)` the device compiler may fold the
      // two tests into one branch that waits for the lock word, and the next
      // read's loads then go out only after it (the two reads of a transfer
      // take two round trips; docs/design-decisions.md#reads-in-flight). The loads are written in
      // a different order in each path so that they are not hoisted above
      // the branch (two relaxed loads: their order means nothing).
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
      if (!reads_consistent(cm, c, li, w1)) {
        fail(abort_cause::validation);
        return T{};
      }
    }
    if constexpr (Config::record) this->n_seen = n_reads;
    return from_bits<T>(bits);
  }

  /// Opacity after a new read (the last entry): every read holds at one
  /// moment, and no read's location is claimed by a committer (pre-lock or
  /// final lock). With a commit clock, the earlier reads are checked only when
  /// the clock moved since the last validation (the argument is in the
  /// synchronization table), the new one always (by its w1 while the clock
  /// stands still); without one, every read is checked again behind the
  /// fence (O).
  ///
  /// (O), a seq_cst fence, without a clock, once there are two reads: why a
  /// pre-lock counts and why the fence. Take an update U2 that pre-locks x and
  /// then validates its read of y behind its seq_cst fence (C), an update U1
  /// that writes y and z (with every read covered it fences only (P),
  /// acquire), and this attempt, which reads z from U1 and x before U2 (in
  /// either order). Any serial order puts U2 before U1 (U2 read y before U1
  /// wrote it), so the pair (z new, x old) is no snapshot: if both commit, the
  /// attempt saw an inconsistent state. Accepting a pre-locked x, or loading
  /// x's lock word without (O) (store buffering through U1's release and our
  /// acquire), lets exactly that happen. With (O) after both reads' loads and
  /// (C) in the single seq_cst order: if (C) comes first, the check of x's
  /// lock word after (O) sees U2's pre-lock (or U2's later state: unlocked at
  /// the same version when it gave up, a new version when it committed); if
  /// (O) comes first, U1's final lock of y happens before (O) (U1's (A), our
  /// load of z, (O)), so U2's validation after (C) sees it and U2 fails; the
  /// same holds when a chain of commits leads from U1 to the writer of z. A
  /// single read needs neither fence nor check, unless it moves snap (below):
  /// one location is one snapshot. Read-only commits re-check behind their
  /// own fence (S), validate_read_only().
  template <class CM>
  STM_HD bool reads_consistent(CM& cm, std::uint64_t c, std::uint32_t li, std::uint32_t w1) {
    if (table.has_clock()) {
      // c: loaded after (R) of the new read, so after its data load. c ==
      // snap: the new read's own first look at its lock word, w1, loaded
      // after snap was set, shows every counted writer's claim (the table's
      // (2)); free or shared, nothing more to check; a pre-lock is polled.
      if (c == snap) return lock_word::is_settled(w1) || read_unclaimed(li, lock_word::version(w1), cm);
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
      if (escalated) end_escalation(false);
    admission.abandon(table);
  }

  /// Before every attempt (after its sets are reset): escalate when due
  /// (waiting for the token), and take the opaque reads' clock snapshot.
  STM_HD void start_attempt_sync() {
    admission.enter(table, tid, attempt);  // before the escalation token: stm/detail/admission.hpp
    if constexpr (Config::escalates) {
      if (attempt >= Config::escalate_after && (long_tx || attempt >= 4 * Config::escalate_after) &&
          table.escalation != nullptr) {
        if (wrote) begin_escalation();
        else begin_shared_escalation();
      }
    }
    if constexpr (Config::opaque)
      if (table.has_clock()) snap = table.clock_word().load(memory_order_acquire);
  }

  /// After a failed attempt, before the next one: remember whether it was long.
  STM_HD void note_attempt_length() {
    if constexpr (Config::escalates) {  // the state only escalation reads
      if (n_reads >= Config::escalate_min_reads) long_tx = 1;
      if (n_writes != 0) wrote = 1;
    }
  }

  /// Take the escalation token exclusively: once no other transaction holds
  /// it, exclusively or shared. While waiting, the token's intent bit keeps
  /// new shared holders out, so the shared ones drain. (Each holder's attempt
  /// runs to its end without waiting for anyone unboundedly.)
  STM_HD void begin_escalation() {
    using T = lock_table_ref;
    const auto token = table.escalation_word();
    for (exp_backoff b(64, 16384);; b.wait()) {
      std::uint64_t t = token.load(memory_order_relaxed);
      if ((t & T::gate_holder_mask) == 0 && (t >> T::gate_reader_shift) == 0) {
        // acquire: pairs with the release by which the last holder (shared or
        // exclusive) gave it back, after its locks.
        if (token.compare_exchange_weak(t, (t & ~T::gate_intent) | (std::uint64_t(tid) + 1), memory_order_acquire,
                                        memory_order_relaxed))
          break;
      } else if ((t & T::gate_intent) == 0) {
        token.fetch_or(T::gate_intent, memory_order_relaxed);
      }
    }
    escalated = escalated_exclusive;
    ++counters.escalations;
  }

  /// Take the escalation token shared (a transaction none of whose attempts
  /// wrote): while no transaction holds it exclusively or waits to.
  STM_HD void begin_shared_escalation() {
    using T = lock_table_ref;
    const auto token = table.escalation_word();
    for (exp_backoff b(64, 16384);; b.wait()) {
      std::uint64_t t = token.load(memory_order_relaxed);
      // acquire: as above (an exclusive holder's final locks are given back).
      if ((t & (T::gate_holder_mask | T::gate_intent)) == 0 &&
          token.compare_exchange_weak(t, t + T::gate_reader, memory_order_acquire, memory_order_relaxed))
        break;
    }
    escalated = escalated_shared;
    ++counters.escalations;
  }

  /// The end of an escalated attempt: give back the locks it only read (at
  /// their version; nothing was written under them), and with published =
  /// false its write locks too; then the token (release: after the locks).
  STM_HD void end_escalation(bool published) {
    if (!published) release_unpublished();
    const bool shared = escalated == escalated_shared;
    each<Config::max_reads>(n_reads, [&](std::uint32_t i) {
      read_entry& r = reads[i];
      if (r.held) {
        if (shared) release_shared(r.lock);
        else table.word(r.lock).store(lock_word::make_unlocked(r.version()), memory_order_relaxed);
        r.held = 0;
      }
      return true;
    });
    escalated = 0;
    table.escalation_word().fetch_sub(shared ? lock_table_ref::gate_reader : std::uint64_t(tid) + 1,
                                      memory_order_release);
  }

  /// Give back one hold of shared lock `li`. The last one clears the flags:
  /// the decrement leaves a shared lock of no holds, which a new holder may
  /// still take (then the clearing CAS fails, and the lock stays shared).
  STM_HD void release_shared(std::uint32_t li) {
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
  STM_HD std::uint32_t hold_shared(std::uint32_t li, bool& took) {
    namespace lwd = lock_word;
    const auto lw = table.word(li);
    std::uint32_t w = lw.load(memory_order_relaxed);
    for (;;) {
      if (lwd::is_shared(w) && lwd::holds(w) == lwd::owner_mask >> lwd::owner_shift) {
        took = false;
        if (!each<Config::max_reads>(n_reads, [&](std::uint32_t i) { return !(reads[i].held && reads[i].lock == li); }))
          return lwd::version(w);
      }
      if (lwd::is_final(w) || (lwd::is_shared(w) && lwd::holds(w) == lwd::owner_mask >> lwd::owner_shift)) {
        platform::backoff_ns(64);
        w = lw.load(memory_order_relaxed);
        continue;
      }
      const std::uint32_t next = lwd::is_shared(w) ? w + lwd::shared_one : lwd::make_shared(lwd::version(w), 1);
      // acquire: pairs with (B) of the word's last writer (its unlock store,
      // or an RMW of that store's release sequence: other holds), as hold()'s.
      if (lw.compare_exchange_weak(w, next, memory_order_acquire, memory_order_relaxed)) {
        if (lwd::is_prelocked(w) && !lwd::is_shared(w)) ++counters.steals;
        took = true;
        return lwd::version(w);
      }
    }
  }

  /// Escalated: lock `li` as our final lock, or find it ours already (an
  /// earlier read or write under it). Returns its version; took = we locked it
  /// now. Waits while another holds its final lock (bounded: see the table);
  /// steals a pre-lock (its owner's final-lock CAS then fails).
  STM_HD std::uint32_t hold(std::uint32_t li, bool& took) {
    const auto lw = table.word(li);
    std::uint32_t w = lw.load(memory_order_relaxed);
    for (;;) {
      if (lock_word::is_locked(w)) {  // a final lock (a shared one cannot be held beside us: see the token)
        if (lock_word::is_final(w) && lock_word::owner(w) == tid) {
          took = false;
          return lock_word::version(w);
        }
        platform::backoff_ns(64);
        w = lw.load(memory_order_relaxed);
        continue;
      }
      // acquire: pairs with (B) of the word's last writer (see the table).
      if (lw.compare_exchange_weak(w, lock_word::make_locked(lock_word::version(w), tid), memory_order_acquire,
                                   memory_order_relaxed)) {
        if (lock_word::is_prelocked(w)) ++counters.steals;
        took = true;
        return lock_word::version(w);
      }
    }
  }

  /// read() of an escalated attempt: under our final or shared lock the value
  /// cannot change until we release, so it needs no validation.
  template <class T, class CM>
  STM_HD T read_escalated(const T* addr, CM& cm) {
    if (n_reads == Config::max_reads) {
      fail(abort_cause::capacity);
      return T{};
    }
    const std::uint32_t li = table.index_of(addr);
    bool took = false;
    const std::uint32_t v = escalated == escalated_shared ? hold_shared(li, took) : hold(li, took);
    // Record: under our final or shared lock nobody bumps the lock's sequence, and
    // hold()'s acquire made the last holder's bump (before its unlock)
    // visible, so the sequence names the write the value came from: exact.
    [[maybe_unused]] std::uint64_t seq = 0;
    if constexpr (Config::record) seq = this->observe_seq(li);
    const std::uint64_t bits = load_word(addr, sizeof(T));
    put(reads, n_reads++,
        read_entry{addr, bits, li, lock_word::make_unlocked(v), static_cast<std::uint8_t>(sizeof(T)), 0, 0,
                   static_cast<std::uint8_t>(took ? 1 : 0)});
    if constexpr (Config::record) {
      this->note_read(n_reads - 1, seq, true);
      this->n_seen = n_reads;
    }
    cm.on_read(*this, n_reads - 1);
    return from_bits<T>(bits);
  }

  /// Commit of an escalated attempt: it holds every lock it needs, so it
  /// cannot fail. Writes are published as any update's (clock, (A), (B)).
  STM_HD void commit_escalated() {
    if (n_writes != 0) publish<false>();  // exclusive only: a shared attempt never writes
    end_escalation(true);
  }

  template <class T, class CM>
  STM_HD void write(T* addr, const T& value, CM& cm) {
    static_assert(is_tx_word<T>, "transactional values are trivially copyable 4- or 8-byte types");
    if (status != tx_status::active) return;
    if (Config::escalates && escalated == escalated_shared) {
      // Escalated shared on the guess that it reads only: wrong. The next
      // attempt escalates exclusively (one attempt more than the bound of a
      // read-only transaction; see "Escalation").
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
      version = hold(li, known);
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
    // Why a pre-lock fails the commit, and why the fence is seq_cst: take an
    // update U2 that pre-locks x and then validates its read of y (behind its
    // fence (C), seq_cst), an update U1 that writes y and z with every read
    // covered (so it fences (P), acquire only), and this read-only
    // transaction R that read z from U1 and x before U2. If R's validation
    // passed over U2's pre-lock, or if without (S) R's load of x's lock word
    // could miss the pre-lock while U2's load of y's lock word missed U1's
    // lock (store buffering through U1's release and R's acquire), all three
    // would commit: U2 -> U1 (U2 read y before U1 wrote it) -> R (R read z
    // from U1) -> U2 (R read x before U2 wrote it), a cycle. With (S) and
    // (C) in the single seq_cst order: if (C) is first, R sees the pre-lock
    // (U2's pre-lock CAS comes before (C)) and fails; if (S) is first, U1's
    // lock of y happens before (S) (U1's (A) release, R's read of z, (S)),
    // so U2's validation after (C) sees it and U2 fails. A recorded history
    // of the GPU found this cycle when the check ignored pre-locks and the
    // fence was acquire only, and again, at full occupancy, when the version
    // and the pre-lock came from two loads of the lock word (U2 committed in
    // between: read_current_and_unclaimed). The same fence orders the body's
    // loads before the validation's (it replaces (R') for Opaque = false).
    //
    // The commit clock never shortens this check (an unchanged clock says no
    // update committed, not that no pre-lock is held), and an escalated
    // attempt never comes here (commit_escalated: its own final locks on its
    // reads would fail it, and nobody could have changed them).
    platform::fence_seq_cst();
    if (each_loaded<Config::max_reads>(
            n_reads, [&](std::uint32_t i) { return read_word_and_value(i); },
            [&](std::uint32_t i, const read_look& l) { return read_current_and_unclaimed(i, l); }))
      return true;
    fail(abort_cause::validation);
    return false;
  }


  /// Commit time, after the write set is pre-locked: flag the reads whose lock
  /// is in the write set ("covered"; their lock word needs no second look).
  /// Such a read must have seen the version we pre-locked at, else it is
  /// already stale: false then. all_covered: every read is covered.
  STM_HD bool mark_covered(bool& all_covered) {
    all_covered = true;
    return each<Config::max_reads>(n_reads, [&](std::uint32_t i) {
      read_entry& r = reads[i];
      r.covered = 0;
      bool same_version = true;
      each<Config::max_writes>(n_locks, [&](std::uint32_t k) {
        if (locks[k].lock != r.lock) return true;
        same_version = locks[k].version == r.version();
        r.covered = 1;
        return false;
      });
      all_covered &= r.covered != 0;
      return same_version;
    });
  }

  /// Release every lock this attempt holds without publishing anything:
  /// pre-locks by CAS (they may have been stolen), final locks by a store of
  /// the unchanged version (nothing was written back).
  STM_HD void release_unpublished() {
    each<Config::max_writes>(n_locks, [&](std::uint32_t k) {
      lock_entry& e = locks[k];
      const auto lw = table.word(e.lock);
      if (e.state == lock_pre) {
        std::uint32_t expect = lock_word::make_prelocked(e.version, tid);
        lw.compare_exchange_strong(expect, lock_word::make_unlocked(e.version), memory_order_relaxed);
      } else if (e.state == lock_final) {
        lw.store(lock_word::make_unlocked(e.version), memory_order_relaxed);
      }
      e.state = lock_none;
      return true;
    });
    release_stolen_reads();
  }

  /// A commit protocol's failure exit: release what this attempt holds, record
  /// the cause, and return false (for `return tx.abort_releasing(cause);`).
  STM_HD bool abort_releasing(abort_cause c) {
    release_unpublished();
    fail(c);
    return false;
  }

  /// Give back the pre-locks taken on read-only locations during validation.
  STM_HD void release_stolen_reads() {
    each<Config::max_reads>(n_reads, [&](std::uint32_t i) {
      read_entry& r = reads[i];
      if (r.stolen) {
        std::uint32_t expect = lock_word::make_prelocked(r.version(), tid);
        table.word(r.lock).compare_exchange_strong(expect, lock_word::make_unlocked(r.version()), memory_order_relaxed);
        r.stolen = 0;
      }
      return true;
    });
  }

  /// Write back and release, once every write lock is final-locked by us and
  /// the read set is validated (the contention manager's acquire()).
  /// FencedA: acquire() already executed (A) after its last final-lock CAS.
  template <bool FencedA = false>
  STM_HD void publish() {
    if (table.has_clock() && !ticked) tick_clock();  // (K) late, then (A') which is also (A)
    else if constexpr (!FencedA) platform::fence_release();  // (A) final locks before the write-back; pairs with the reader's (R)
    // Either way (A) has executed here (FencedA: in the manager's acquire()).
    if constexpr (Config::record) this->bump_seqs(*this);  // under the final locks, after (A): stm/history.hpp
    each<Config::max_writes>(n_writes, [&](std::uint32_t i) {
      store_word(writes[i].addr, writes[i].size, writes[i].value);
      return true;
    });
    platform::fence_release();  // (B) write-back before the unlock stores; pairs with the reader's acquire load
    each<Config::max_writes>(n_locks, [&](std::uint32_t k) {
      lock_entry& e = locks[k];
      table.word(e.lock).store(lock_word::make_unlocked(lock_word::next_version(e.version)), memory_order_relaxed);
      e.state = lock_none;
      return true;
    });
    release_stolen_reads();
  }

  /// (K) then (A') of the commit clock (see the table), for a commit that did
  /// not call write_set_claimed (an escalated one, or a manager that validates
  /// under its locks): the increment after the final locks, the write-back
  /// after the increment.
  STM_HD void tick_clock() {
    // (K) pairs with the reader's acquire loads of the clock. Release only:
    // this commit validated already (under its locks), so unlike
    // write_set_claimed() it has nothing to acquire.
    table.clock_word().fetch_add(1, memory_order_release);
    platform::fence_release();  // (A') also (A): final locks and increment before the write-back
  }

  /// A manager's acquire() calls this once the write set is claimed (every
  /// pre-lock or lock of it taken) and before it validates the reads it does
  /// not hold: with a commit clock, the increment (K) comes here, as in TL2
  /// (lock, increment, validate). Why before validation: see the table,
  /// "(K) before validation". Without a clock it does nothing.
  STM_HD void write_set_claimed() {
    if (table.has_clock()) {
      table.clock_word().fetch_add(1, memory_order_acq_rel);  // (K)
      ticked = 1;
    }
  }
};

}  // namespace detail
}  // namespace stm
