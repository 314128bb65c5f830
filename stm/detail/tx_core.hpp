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
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "stm/detail/tx_record.hpp"
#include "stm/lock_table.hpp"
#include "stm/lock_word.hpp"
#include "stm/platform.hpp"
#include "stm/stats.hpp"

namespace stm {

/// Capacities of a descriptor's sets, and whether reads are validated
/// incrementally. Opaque = true: every read re-validates the earlier reads, so
/// the body only ever sees a consistent snapshot (opacity; O(R^2) checks for R
/// reads). Opaque = false: reads are validated at commit only, and a body may
/// see values of different moments until then (cheaper for long read sets;
/// the body must then tolerate arbitrary values without crashing or looping).
/// Such a read never leaves the body: one that met a final lock is noted and
/// fails the commit (cause read_locked) before it takes any lock, so the loads
/// of consecutive reads are in flight together instead of one round trip each;
/// so, for an update, is one that met a lock word the manager says the commit
/// would lose on (dooms_read; prstm: a pre-lock of a higher priority; cause
/// prelock).
/// Record = true: the descriptor logs its history into a stm::history
/// (stm/history.hpp; for tests and checking, slower); false costs nothing.
template <std::uint32_t MaxReads = 32, std::uint32_t MaxWrites = 16, bool Opaque = true, bool Record = false>
struct tx_config {
  static_assert(MaxReads >= 1 && MaxWrites >= 1, "sets need a capacity of at least one");
  static_assert(MaxReads <= 65535 && MaxWrites <= 65535, "set capacities are 16-bit");
  static constexpr std::uint32_t max_reads = MaxReads;
  static constexpr std::uint32_t max_writes = MaxWrites;
  static constexpr bool opaque = Opaque;
  static constexpr bool record = Record;
};

namespace detail {
/// cm.dooms_read(word, tid), or false for a manager without it (see
/// cmp/contention_manager.hpp).
template <class CM, class = void>
struct has_dooms_read : std::false_type {};
template <class CM>
struct has_dooms_read<CM, std::void_t<decltype(std::declval<const CM&>().dooms_read(0u, 0u))>> : std::true_type {};
template <class CM>
STM_HD bool dooms_read(const CM& cm, std::uint32_t word, std::uint32_t tid) {
  if constexpr (has_dooms_read<CM>::value) return cm.dooms_read(word, tid);
  else return false;
}
}  // namespace detail

/// Outcome of the current attempt.
enum class tx_status : std::uint32_t { active, committed, aborted, semantic };

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

/// Relaxed atomic load/store of a 4- or 8-byte word at addr (size in bytes).
STM_HD inline std::uint64_t load_word(const void* addr, std::uint32_t size) {
  if (size == 4)
    return atomic_ref<std::uint32_t>(*static_cast<std::uint32_t*>(const_cast<void*>(addr))).load(memory_order_relaxed);
  return atomic_ref<std::uint64_t>(*static_cast<std::uint64_t*>(const_cast<void*>(addr))).load(memory_order_relaxed);
}
STM_HD inline void store_word(void* addr, std::uint32_t size, std::uint64_t v) {
  if (size == 4)
    atomic_ref<std::uint32_t>(*static_cast<std::uint32_t*>(addr)).store(static_cast<std::uint32_t>(v), memory_order_relaxed);
  else
    atomic_ref<std::uint64_t>(*static_cast<std::uint64_t*>(addr)).store(v, memory_order_relaxed);
}

struct read_entry {
  const void* addr;
  std::uint64_t value;   // bits read (validated again at commit: version wrap)
  std::uint32_t lock;    // lock index
  // The lock word as the read loaded it, kept whole: the version is extracted
  // where it is compared, not in read(), whose one use of the word is then
  // the read note (a select). With the 16-bit version extracted here, ptxas
  // placed that extraction between the two reads of a transfer in some
  // builds, so the second read's loads waited for the first read: two round
  // trips instead of one.
  std::uint32_t word;
  std::uint8_t size;     // 4 or 8
  std::uint8_t stolen;   // 1: this entry's lock was pre-locked by us at validation
  std::uint8_t covered;  // 1: its lock is in our write set (set at commit)
  /// The lock version seen by the read.
  STM_HD std::uint32_t version() const { return lock_word::version(word); }
};

struct write_entry {
  void* addr;
  std::uint64_t value;
  std::uint8_t size;
};

struct lock_entry {
  std::uint32_t lock;
  std::uint16_t version;  // version when first written (Algorithm 1, line 20)
  std::uint8_t state;     // lock_none / lock_pre / lock_final
};
inline constexpr std::uint8_t lock_none = 0, lock_pre = 1, lock_final = 2;

/// The descriptor's state. Contention managers see this type (their commit
/// protocol reads the sets and takes the locks); users see stm::transaction.
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
  tx_counters counters;
  // Value-initialized: the unrolled scans touch entries past n (guarded), which
  // compilers cannot always prove unused.
  read_entry reads[Config::max_reads] = {};
  write_entry writes[Config::max_writes] = {};
  lock_entry locks[Config::max_writes] = {};

  STM_HD void reset_sets() {
    n_reads = n_writes = n_locks = read_notes = 0;
    if constexpr (Config::record) this->n_seen = 0;
  }

  /// Small sets are scanned with fully unrolled loops, so that the loads of
  /// independent entries are in flight together, and every index into the
  /// sets is a compile-time constant: the sets (and the counters) then live in
  /// registers instead of local memory, which at full occupancy does not fit
  /// in L1 (an H100 bank kernel had a 392-byte stack frame per thread).
  static constexpr bool unrolled = Config::max_reads <= 8 && Config::max_writes <= 8;

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

  STM_HD void fail(abort_cause c) {
    if (status != tx_status::active) return;
    // Opaque = false: a body that read through a final lock may have decided
    // on a torn snapshot (no funds, a longer path that overflows a set); that
    // verdict is not final, the conflict is: the transaction is retried.
    if (read_notes & lock_word::lock_bit) c = abort_cause::read_locked;
    status = c == abort_cause::semantic ? tx_status::semantic : tx_status::aborted;
    cause = c;
    STM_UNROLL
    for (std::uint32_t k = 0; k < num_abort_causes; ++k)  // constant indices: counters stay in registers
      if (k == static_cast<std::uint32_t>(c)) ++counters.aborts[k];
    if constexpr (Config::record) this->log_attempt(*this, false);
  }

  /// True when read entry i is still valid: same version, not final-locked,
  /// and (when check_value) still holding the value read.
  STM_HD bool read_still_valid(std::uint32_t i, bool check_value) const {
    const read_entry& r = reads[i];
    const std::uint32_t w = table.word(r.lock).load(memory_order_relaxed);
    if (lock_word::is_locked(w) || lock_word::version(w) != r.version()) return false;
    return !check_value || load_word(r.addr, r.size) == r.value;
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
    const std::uint32_t li = table.index_of(addr);
    const auto lw = table.word(li);
    std::uint32_t w1;
    std::uint64_t bits;
    [[maybe_unused]] std::uint64_t seq = 0;  // Record: the lock's commit sequence seen (stm/history.hpp)
    [[maybe_unused]] bool exact = true;
    if constexpr (Config::opaque) {
      for (std::uint32_t polls = 0;; ++polls) {
        w1 = lw.load(memory_order_acquire);  // pairs with (B): a bumped version comes with its values
        if constexpr (Config::record) seq = this->observe_seq(li);
        bits = load_word(addr, sizeof(T));
        platform::fence_acquire();  // (R) pairs with (A): a written-back value implies w2 sees the lock
        const std::uint32_t w2 = lw.load(memory_order_relaxed);
        if (!lock_word::is_locked(w1) && !lock_word::is_locked(w2) &&
            lock_word::version(w1) == lock_word::version(w2))
          break;
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
        exact = !lock_word::is_locked(w1) && !lock_word::is_locked(w2) &&
                lock_word::version(w1) == lock_word::version(w2);  // the opaque read's test
        if (!lock_word::is_locked(w1) || !cm.wait_on_locked(polls)) break;
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
      // condition `polling && is_locked(w1)` the compilers (nvvm, then ptxas)
      // fold the two tests into one branch that waits for the lock word, and
      // the next read's loads go out only after it (H100 SASS of the bank: the
      // two reads of a transfer took two round trips). The loads are written
      // in a different order in each path so that they are not hoisted above
      // the branch (two relaxed loads: their order means nothing).
      if (!cm.wait_on_locked(0)) {
        w1 = lw.load(memory_order_relaxed);
        bits = load_word(addr, sizeof(T));
      } else {
        bits = load_word(addr, sizeof(T));
        w1 = lw.load(memory_order_relaxed);
        for (std::uint32_t polls = 0; cm.wait_on_locked(polls) && lock_word::is_locked(w1); ++polls) {
          platform::backoff_ns(64);
          w1 = lw.load(memory_order_relaxed);
          bits = load_word(addr, sizeof(T));
        }
      }
      // No branch on w1 either: a select, so nothing waits for the loads yet.
      read_notes |= (w1 & lock_word::lock_bit) | (dooms_read(cm, w1, tid) ? lock_word::prelock_bit : 0u);
    }
    if (n_reads == Config::max_reads) {
      fail(abort_cause::capacity);
      return T{};
    }
    put(reads, n_reads++,
        read_entry{addr, bits, li, w1, static_cast<std::uint8_t>(sizeof(T)), 0, 0});
    if constexpr (Config::record) this->note_read(n_reads - 1, seq, exact);
    cm.on_read(*this, n_reads - 1);
    if constexpr (Config::opaque) {
      // Every earlier read still current => all reads hold at this moment.
      if (!each<Config::max_reads>(n_reads - 1, [&](std::uint32_t i) { return read_still_valid(i, false); })) {
        fail(abort_cause::validation);
        return T{};
      }
    }
    if constexpr (Config::record) this->n_seen = n_reads;
    return from_bits<T>(bits);
  }

  template <class T, class CM>
  STM_HD void write(T* addr, const T& value, CM& cm) {
    static_assert(is_tx_word<T>, "transactional values are trivially copyable 4- or 8-byte types");
    if (status != tx_status::active) return;
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
    each<Config::max_reads>(n_reads, [&](std::uint32_t i) {  // the newest read of addr wins
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
        if (!lock_word::is_locked(w)) {
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
    put(locks, n_locks++, lock_entry{li, static_cast<std::uint16_t>(version), lock_none});
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
    // fence was acquire only. The same fence orders the body's loads before
    // the validation's (it replaces (R') for Opaque = false).
    platform::fence_seq_cst();
    if (each<Config::max_reads>(n_reads, [&](std::uint32_t i) {
          return read_still_valid(i, true) &&
                 !lock_word::is_prelocked(table.word(reads[i].lock).load(memory_order_relaxed));
        }))
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
    if constexpr (!FencedA) platform::fence_release();  // (A) final locks before the write-back; pairs with the reader's (R)
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
};

}  // namespace detail
}  // namespace stm
