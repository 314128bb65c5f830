// SPDX-License-Identifier: Apache-2.0
// stm/dist/detail/tx.hpp - a PR-STM transaction over the words of several PEs,
// written once over a transport (stm/dist/detail/transport.hpp).
//
// Every word has its lock word on its owner PE (stm/dist/detail/layout.hpp);
// the transaction reaches local and remote ones alike through the transport,
// and keeps the PR-STM protocol of the single-GPU core (stm/prstm.hpp) with
// the priority rule global (priorities unique across PEs):
//
//   read     w1 = lock.load, v = data.load, both relaxed and in flight
//            together (one round trip to a remote PE), and nothing waits
//            for them: no branch on w1, so the reads of a body go out
//            together. A final lock is only noted (the commit then fails
//            as read_locked before it takes any lock), and so is a pre-lock
//            of a higher priority (an update then fails as prelock: step 1
//            would refuse it, step 2 abort on it), as the core's non-opaque
//            reads (stm/detail/tx_core.hpp; prstm::dooms_read).
//            The pair may be torn: the commit validates every read by
//            version AND value behind its fence (C), (P) or (S), as the
//            core's commit-time validation (Opaque = false).
//   commit   1. pre-lock every lock of the write set: CAS unlocked(v) ->
//               prelocked(v, p); refused by a moved version, a final lock
//               or a higher priority's pre-lock (abort prelock); a lower
//               priority's pre-lock is stolen, only once no lock refused.
//            (C) fence_seq_cst: pre-locks before the read validation (Dekker:
//               of two committers that each pre-lock what the other reads,
//               one sees the other's pre-lock). When every read is of a
//               location we write (covered: nothing is validated under
//               another's lock), (P) instead: fence_acquire, the pre-lock
//               CASes before the covered values are loaded (pairs with (B)
//               of the holder whose unlock the CAS read), as the core's
//               prstm (stm/prstm.hpp; the cycles that (C) and (S) break,
//               docs/stm-core.md#read-only-validation, assume exactly this
//               of an update whose reads are all covered).
//            2. validate the reads: same version, no final lock, same value;
//               a read pre-locked by a higher priority aborts (validation),
//               by a lower one is stolen (its writer then fails step 3:
//               no write skew). Reads of locations we write: their version
//               must be the one we pre-locked at.
//            3. CAS each pre-lock to the final lock; a failure means a
//               higher priority stole it: abort (lock).
//               The values of the reads of locations we write are loaded
//               with these CASes (nobody can change them while we hold the
//               pre-locks without stealing one, which fails our CAS) and
//               checked after (A).
//            (A) fence_release: final locks before the write-back (a
//               validation that sees a written-back value sees the final
//               lock or the bumped version); issued behind the CASes
//               before their results are tested.
//            Each step's CASes (and loads) are issued before any result
//            is tested: one round trip per step, as in the core's prstm.
//            4. write back; (B) fence_release; unlock with the version bumped
//               (pairs with the acquire of a pre-lock CAS that reads it, and
//               of the fences (C) and (S) of a later validation); give back
//               stolen read pre-locks.
//   read-only commit: (S) fence_seq_cst, then every read still current and
//            unclaimed (no final lock, no pre-lock), as the core's
//            validate_read_only (stm/detail/tx_core.hpp gives the cycle a
//            pre-lock would let through).
//
// Nobody waits on a pre-lock, and a final lock is held only during a
// write-back: the highest-priority running transaction is aborted only by
// one that already holds final locks, so the system always makes progress.
// The differences from the core: no escalation, no commit clock, no opaque
// reads (a body may see a torn snapshot; its commit fails then, and a body
// must not loop on what it read), 4-byte words only, one protocol (prstm)
// rather than a choice of managers. The fences are the transport's: system
// scope under NVSHMEM (stm/dist/nvshmem.hpp).
#pragma once

#include <cstdint>
#include <type_traits>

#include "stm/backoff.hpp"
#include "stm/detail/tx_scan.hpp"
#include "stm/dist/detail/layout.hpp"
#include "stm/dist/detail/transport.hpp"
#include "stm/lock_word.hpp"
#include "stm/platform.hpp"
#include "stm/stats.hpp"
#include "stm/tx_config.hpp"

namespace stm::dist {

/// One thread's transaction descriptor over Transport. MaxReads and MaxWrites:
/// the read and write sets' capacities (an attempt that needs more aborts
/// with abort_cause::capacity and is not retried).
template <class Transport, std::uint32_t MaxReads = 16, std::uint32_t MaxWrites = 8>
class transaction {
 public:
  using transport_type = Transport;
  static constexpr std::uint32_t max_reads = MaxReads, max_writes = MaxWrites;

  /// priority: unique across every PE (stm::dist::priority); lower wins.
  STM_HD transaction(const Transport& t, const layout& shape, std::uint32_t priority)
      : net_(t), shape_(shape), prio_(priority) {}

  STM_HD std::uint32_t priority() const { return prio_; }
  /// Run the next transactions under priority p (unique across PEs, as the
  /// constructor's). Only between transactions: this one holds no lock then.
  STM_HD void set_priority(std::uint32_t p) { prio_ = p; }
  STM_HD tx_status status() const { return status_; }
  STM_HD abort_cause cause() const { return cause_; }
  STM_HD bool active() const { return status_ == tx_status::active; }
  STM_HD bool committed() const { return status_ == tx_status::committed; }
  STM_HD std::uint32_t attempt() const { return attempt_; }
  STM_HD const tx_counters& counters() const { return counters_; }
  STM_HD std::uint32_t reads() const { return n_reads_; }
  STM_HD std::uint32_t writes() const { return n_writes_; }

  /// A new transaction (its first attempt).
  STM_HD void begin() {
    attempt_ = 0;
    reset();
  }
  /// The next attempt of the same transaction.
  STM_HD void retry() {
    ++attempt_;
    reset();
  }

  template <class T>
  STM_HD T read(gptr<T> a) {
    static_assert(sizeof(T) == 4 && std::is_trivially_copyable_v<T>, "distributed words are 4-byte values");
    if (!active()) return T{};
    {  // read own write
      bool own = false;
      std::uint32_t mine = 0;
      each<MaxWrites>(n_writes_, [&](std::uint32_t i) {
        if (writes_[i].pe == a.pe && writes_[i].index == a.index) {
          own = true;
          mine = writes_[i].value;
        }
        return !own;
      });
      if (own) return stm::detail::from_bits<T>(mine);
    }
    const std::uint32_t slot = shape_.lock_slot(a.index);
    const std::uint32_t w1 = net_.load(region::locks, a.pe, slot);
    const std::uint32_t v = net_.load(region::data, a.pe, a.index);
    // Noted, not tested: a select, so that nothing waits for the loads here.
    notes_ |= (w1 & lock_word::lock_bit) |
              (lock_word::is_prelocked(w1) && outranks(lock_word::owner(w1), prio_) ? lock_word::prelock_bit : 0u);
    if (n_reads_ == MaxReads) {
      fail(abort_cause::capacity);
      return T{};
    }
    put(reads_, n_reads_++, read_entry{a.pe, a.index, slot, lock_word::version(w1), v, 0});
    return stm::detail::from_bits<T>(v);
  }

  template <class T>
  STM_HD void write(gptr<T> a, const T& value) {
    static_assert(sizeof(T) == 4 && std::is_trivially_copyable_v<T>, "distributed words are 4-byte values");
    if (!active()) return;
    const auto bits = static_cast<std::uint32_t>(stm::detail::to_bits(value));
    bool rewritten = false;
    each<MaxWrites>(n_writes_, [&](std::uint32_t i) {
      if (writes_[i].pe == a.pe && writes_[i].index == a.index) {
        writes_[i].value = bits;
        rewritten = true;
      }
      return !rewritten;
    });
    if (rewritten) return;
    if (n_writes_ == MaxWrites) {
      fail(abort_cause::capacity);
      return;
    }
    const std::uint32_t slot = shape_.lock_slot(a.index);
    put(writes_, n_writes_++, write_entry{a.pe, a.index, bits});
    std::uint32_t ignored = 0;
    if (own_lock(a.pe, slot, ignored)) return;
    // The version to pre-lock at: the newest read under this lock, or the
    // lock word's now (a blind write).
    bool known = false;
    std::uint32_t version = 0;
    each<MaxReads>(n_reads_, [&](std::uint32_t i) {
      if (reads_[i].pe == a.pe && reads_[i].slot == slot) {
        version = reads_[i].version;
        known = true;
      }
      return true;
    });
    for (std::uint32_t polls = 0; !known; ++polls) {
      const std::uint32_t w = net_.load(region::locks, a.pe, slot);
      if (!lock_word::is_locked(w)) {
        version = lock_word::version(w);
        known = true;
      } else if (polls == read_polls) {
        fail(abort_cause::read_locked);
        return;
      } else {
        platform::backoff_ns(64);
      }
    }
    put(locks_, n_locks_++, lock_entry{a.pe, slot, version, lock_none});
  }

  /// The body gives this transaction up (not retried).
  STM_HD void semantic_conflict() { fail(abort_cause::semantic); }

  /// Commit the attempt: the three steps below, then the write-back. True when
  /// it committed; else status() is aborted and cause() says why.
  STM_HD bool commit() {
    if (!active()) return false;
    // A read met a final lock (its snapshot may be torn), or an update read
    // a word that a higher priority has pre-locked: fail before any lock. A
    // read-only commit ignores the pre-lock note (its validation fails on
    // any pre-lock still held then).
    if ((notes_ & lock_word::lock_bit) != 0 || (notes_ != 0 && n_writes_ != 0)) {
      fail((notes_ & lock_word::lock_bit) != 0 ? abort_cause::read_locked : abort_cause::prelock);
      return false;
    }
    if (n_writes_ == 0) return commit_read_only();
    return prelock_writes() && validate_reads() && finalize();
  }

  // The steps of an update's commit, public so that tests can interleave the
  // commits of several transactions step by step. Each returns false after it
  // released this attempt's locks and recorded the cause.

  /// Step 1, then (C) or (P).
  STM_HD bool prelock_writes() {
    // First pass: free words only, no steal. Every CAS is issued before any
    // result is tested (one round trip for the batch, as the core's
    // prstm::prelock_all): with the test beside its CAS, the next CAS waits
    // for the previous one's result.
    std::uint32_t seen[MaxWrites] = {};
    each<MaxWrites>(n_locks_, [&](std::uint32_t k) {
      const lock_entry& e = locks_[k];
      seen[k] = lock_word::make_unlocked(e.version);  // the CAS leaves the word's old value here
      net_.cas(region::locks, e.pe, e.slot, seen[k], lock_word::make_prelocked(e.version, prio_));
      return true;
    });
    bool missed = false, refused = false;
    each<MaxWrites>(n_locks_, [&](std::uint32_t k) {
      lock_entry& e = locks_[k];
      platform::hide_from_optimizer(seen[k]);  // keeps the test from merging with the CAS's own
      if (seen[k] == lock_word::make_unlocked(e.version)) {
        e.state = lock_pre;
      } else {
        missed = true;
        refused |= refuses(e, seen[k]);
      }
      return true;
    });
    if (refused) return abort_releasing(abort_cause::prelock);
    // Second pass, only when a first CAS missed and none was refused: steal
    // the lower priorities' pre-locks, starting from the word the CAS saw.
    if (missed && !each<MaxWrites>(n_locks_, [&](std::uint32_t k) {
          lock_entry& e = locks_[k];
          if (e.state == lock_pre) return true;
          std::uint32_t cur = seen[k];
          for (;;) {
            if (refuses(e, cur)) return false;
            if (net_.cas(region::locks, e.pe, e.slot, cur, lock_word::make_prelocked(e.version, prio_))) {
              if (lock_word::is_prelocked(cur)) ++counters_.steals;
              e.state = lock_pre;
              return true;
            }
          }
        }))
      return abort_releasing(abort_cause::prelock);
    if (all_reads_covered()) net_.fence_acquire();  // (P): nothing to validate under another's lock
    else net_.fence_seq_cst();                      // (C)
    return true;
  }

  /// Step 2.
  STM_HD bool validate_reads() {
    const bool valid = each<MaxReads>(n_reads_, [&](std::uint32_t i) {
      read_entry& r = reads_[i];
      std::uint32_t locked_at = 0;
      // Covered (a lock we pre-locked): checked by version now, by value under the final lock.
      if (own_lock(r.pe, r.slot, locked_at)) return locked_at == r.version;
      std::uint32_t w = net_.load(region::locks, r.pe, r.slot);
      std::uint32_t v = net_.load(region::data, r.pe, r.index);
      for (;;) {
        if (lock_word::version(w) != r.version || lock_word::is_locked(w) || v != r.value) return false;
        if (!lock_word::is_prelocked(w) || lock_word::owner(w) == prio_) return true;
        if (outranks(lock_word::owner(w), prio_)) return false;  // a higher priority will write it
        if (net_.cas(region::locks, r.pe, r.slot, w, lock_word::make_prelocked(r.version, prio_))) {
          r.stolen = 1;  // its lower-priority writer now fails step 3
          ++counters_.steals;
          return true;
        }
        v = net_.load(region::data, r.pe, r.index);  // the word moved: look at both again
      }
    });
    return valid ? true : abort_releasing(abort_cause::validation);
  }

  /// Step 3, the covered values, (A), write-back, (B), unlock.
  STM_HD bool finalize() {
    // One batch: the value loads of the covered reads go out with the
    // final-lock CASes (we hold their pre-locks, so nobody can commit those
    // words without stealing, which fails our CAS), and (A) follows the CASes
    // before any result is tested, so that its round trip overlaps theirs
    // (the core's prstm::lock_and_check_covered; a failed attempt pays a
    // fence it did not need). The results are tested through a fence_anchor,
    // which keeps the tests below (A).
    std::uint32_t value[MaxReads] = {};
    std::uint32_t seen[MaxWrites] = {};
    platform::fence_anchor anchor;
    each<MaxReads>(n_reads_, [&](std::uint32_t i) {
      const read_entry& r = reads_[i];
      std::uint32_t ignored = 0;
      value[i] = own_lock(r.pe, r.slot, ignored) ? net_.load(region::data, r.pe, r.index) : r.value;
      return true;
    });
    each<MaxWrites>(n_locks_, [&](std::uint32_t k) {
      const lock_entry& e = locks_[k];
      seen[k] = lock_word::make_prelocked(e.version, prio_);  // the CAS leaves the word's old value here
      net_.cas(region::locks, e.pe, e.slot, seen[k], lock_word::make_locked(e.version, prio_));
      return true;
    });
    net_.fence_release();  // (A)
    const std::uint32_t zero = anchor.zero();
    bool locked = true, values = true;
    each<MaxWrites>(n_locks_, [&](std::uint32_t k) {
      lock_entry& e = locks_[k];
      if (seen[k] + zero == lock_word::make_prelocked(e.version, prio_)) e.state = lock_final;
      else locked = false;  // a higher priority stole the pre-lock
      return true;
    });
    each<MaxReads>(n_reads_, [&](std::uint32_t i) {
      values &= value[i] == reads_[i].value;
      return true;
    });
    if (!locked) return abort_releasing(abort_cause::lock);
    if (!values) return abort_releasing(abort_cause::validation);
    each<MaxWrites>(n_writes_, [&](std::uint32_t i) {
      net_.store(region::data, writes_[i].pe, writes_[i].index, writes_[i].value);
      return true;
    });
    net_.fence_release();  // (B)
    each<MaxWrites>(n_locks_, [&](std::uint32_t k) {
      lock_entry& e = locks_[k];
      net_.store(region::locks, e.pe, e.slot, lock_word::make_unlocked(lock_word::next_version(e.version)));
      e.state = lock_none;
      return true;
    });
    release_stolen_reads();
    status_ = tx_status::committed;
    ++counters_.commits;
    return true;
  }

  /// Exponential randomized pause before the next attempt (nanoseconds):
  /// uniform in [0, min(32 x 2^attempt, cap)), the core's prstm pause
  /// (stm::backoff_span_ns over the priority) with its cap of 1 ms
  /// (docs/design-decisions.md#prstm-pause-cap). (The span used to stop
  /// doubling at 2^12 x 32 ns = 131 us whatever the cap.)
  static constexpr std::uint32_t default_pause_cap_ns = 1000000;
  STM_HD std::uint32_t pause_ns(std::uint32_t cap = default_pause_cap_ns) const {
    return stm::backoff_span_ns(prio_, attempt_, cap);
  }

 private:
  static constexpr std::uint8_t lock_none = 0, lock_pre = 1, lock_final = 2;
  /// A blind write (no earlier read of its lock) that finds a final lock
  /// polls it this many times (its owner only writes back), then aborts.
  static constexpr std::uint32_t read_polls = 32;

  struct read_entry {
    std::uint32_t pe, index, slot, version, value;
    std::uint32_t stolen;  // we pre-locked it in step 2 (given back after the commit)
  };
  struct write_entry {
    std::uint32_t pe, index, value;
  };
  struct lock_entry {
    std::uint32_t pe, slot, version;
    std::uint8_t state;
  };

  /// Lower value wins (the paper's rule, over the global priorities).
  STM_HD static bool outranks(std::uint32_t owner, std::uint32_t me) { return owner < me; }

  /// Step 1 must give up at this word: its version moved, it is final-locked,
  /// or a higher priority pre-locked it.
  STM_HD bool refuses(const lock_entry& e, std::uint32_t cur) const {
    return lock_word::version(cur) != e.version || lock_word::is_locked(cur) ||
           (lock_word::is_prelocked(cur) && lock_word::owner(cur) != prio_ && outranks(lock_word::owner(cur), prio_));
  }

  /// Small sets are scanned by fully unrolled loops with constant indices, so
  /// that the descriptor stays in registers on the GPU: the core's scans
  /// (stm/detail/tx_scan.hpp; docs/design-decisions.md#descriptor-in-registers).
  using scan = stm::detail::set_scan<(MaxReads <= 8 && MaxWrites <= 8)>;
  template <std::uint32_t N, class F>
  STM_HD static bool each(std::uint32_t n, F&& f) { return scan::template each<N>(n, f); }
  template <std::uint32_t N, class E>
  STM_HD static void put(E (&set)[N], std::uint32_t at, const E& v) { scan::put(set, at, v); }

  /// Whether this attempt has lock (pe, slot) in its write set; its version then.
  STM_HD bool own_lock(std::uint32_t pe, std::uint32_t slot, std::uint32_t& version) const {
    bool found = false;
    each<MaxWrites>(n_locks_, [&](std::uint32_t k) {
      if (locks_[k].pe == pe && locks_[k].slot == slot) {
        found = true;
        version = locks_[k].version;
      }
      return !found;
    });
    return found;
  }

  /// Every read is of a lock in our write set (checked by version in step 2,
  /// by value under the final lock): step 2 loads nothing, and no Dekker
  /// pairing with another committer's pre-locks is needed.
  STM_HD bool all_reads_covered() const {
    return each<MaxReads>(n_reads_, [&](std::uint32_t i) {
      std::uint32_t ignored = 0;
      return own_lock(reads_[i].pe, reads_[i].slot, ignored);
    });
  }

  STM_HD bool commit_read_only() {
    net_.fence_seq_cst();  // (S)
    const bool valid = each<MaxReads>(n_reads_, [&](std::uint32_t i) {
      const read_entry& r = reads_[i];
      const std::uint32_t w = net_.load(region::locks, r.pe, r.slot);
      const std::uint32_t v = net_.load(region::data, r.pe, r.index);
      return lock_word::is_free(w) && lock_word::version(w) == r.version && v == r.value;
    });
    if (!valid) {
      fail(abort_cause::validation);
      return false;
    }
    status_ = tx_status::committed;
    ++counters_.commits;
    return true;
  }

  STM_HD void release_stolen_reads() {
    each<MaxReads>(n_reads_, [&](std::uint32_t i) {
      read_entry& r = reads_[i];
      if (r.stolen) {
        std::uint32_t expect = lock_word::make_prelocked(r.version, prio_);
        net_.cas(region::locks, r.pe, r.slot, expect, lock_word::make_unlocked(r.version));
        r.stolen = 0;
      }
      return true;
    });
  }

  /// Give back every lock of the attempt (nothing was written back): pre-locks
  /// by CAS (they may have been stolen), final locks by a store of the
  /// unchanged version; then fail with cause c.
  STM_HD bool abort_releasing(abort_cause c) {
    each<MaxWrites>(n_locks_, [&](std::uint32_t k) {
      lock_entry& e = locks_[k];
      if (e.state == lock_pre) {
        std::uint32_t expect = lock_word::make_prelocked(e.version, prio_);
        net_.cas(region::locks, e.pe, e.slot, expect, lock_word::make_unlocked(e.version));
      } else if (e.state == lock_final) {
        net_.store(region::locks, e.pe, e.slot, lock_word::make_unlocked(e.version));
      }
      e.state = lock_none;
      return true;
    });
    release_stolen_reads();
    fail(c);
    return false;
  }

  STM_HD void fail(abort_cause c) {
    if (!active()) return;
    // A body that read through a final lock may have decided on a torn
    // snapshot (no funds, a longer path that overflows a set): that verdict
    // is not final, the conflict is, and the transaction is retried.
    if ((notes_ & lock_word::lock_bit) != 0) c = abort_cause::read_locked;
    status_ = c == abort_cause::semantic ? tx_status::semantic : tx_status::aborted;
    cause_ = c;
    STM_UNROLL
    for (std::uint32_t k = 0; k < num_abort_causes; ++k)  // constant indices: the counters stay in registers
      if (k == static_cast<std::uint32_t>(c)) ++counters_.aborts[k];
  }

  STM_HD void reset() {
    n_reads_ = n_writes_ = n_locks_ = notes_ = 0;
    status_ = tx_status::active;
  }

  Transport net_;
  layout shape_;
  std::uint32_t prio_;
  tx_status status_ = tx_status::active;
  abort_cause cause_ = abort_cause::read_locked;
  std::uint32_t attempt_ = 0;
  std::uint32_t n_reads_ = 0, n_writes_ = 0, n_locks_ = 0;
  // lock_word::lock_bit: a read met a final lock; lock_word::prelock_bit: a
  // read met a pre-lock of a higher priority (see read()).
  std::uint32_t notes_ = 0;
  tx_counters counters_;
  read_entry reads_[MaxReads] = {};
  write_entry writes_[MaxWrites] = {};
  lock_entry locks_[MaxWrites] = {};
};

/// One attempt of body on tx, which the caller has begun (tx.begin()) or
/// retried (tx.retry()): the body, then the commit if the attempt is still
/// active. Returns tx.status(). For a driver that schedules the retries of
/// its lanes itself (the partitioned bank: workloads/bank/dist_bank.hpp).
template <class Tx, class Body>
STM_HD tx_status attempt(Tx& tx, Body&& body) {
  body(tx);
  if (tx.active()) tx.commit();
  return tx.status();
}

/// Whether tx's last attempt is to be run again: it aborted on a concurrent
/// conflict (not a semantic conflict, not a set overflow).
template <class Tx>
STM_HD bool retryable(const Tx& tx) {
  return tx.status() == tx_status::aborted && tx.cause() != abort_cause::capacity;
}

/// Run body(tx) as one transaction until it commits, declares a semantic
/// conflict or overflows a set (then it is not retried), pausing
/// tx.pause_ns() between attempts. The body reads and writes with
/// TX_READ_IN / TX_WRITE_IN (stm/tx_macros.hpp), which return from it at the
/// first conflict. Returns tx.status().
template <class Tx, class Body>
STM_HD tx_status atomically(Tx& tx, Body&& body) {
  tx.begin();
  for (;;) {
    attempt(tx, body);
    if (!retryable(tx)) return tx.status();
    platform::backoff_ns(tx.pause_ns());
    tx.retry();
  }
}

}  // namespace stm::dist
