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
//            together (one round trip to a remote PE). A final lock is
//            polled a few times, then the attempt aborts (read_locked).
//            The pair may be torn: the commit validates every read by
//            version AND value behind its fence (C) or (S), as the core's
//            commit-time validation (Opaque = false, stm/detail/tx_core.hpp).
//   commit   1. pre-lock every lock of the write set: CAS unlocked(v) ->
//               prelocked(v, p); refused by a moved version, a final lock
//               or a higher priority's pre-lock (abort prelock); a lower
//               priority's pre-lock is stolen, only once no lock refused.
//            (C) fence_seq_cst: pre-locks before the read validation (Dekker:
//               of two committers that each pre-lock what the other reads,
//               one sees the other's pre-lock).
//            2. validate the reads: same version, no final lock, same value;
//               a read pre-locked by a higher priority aborts (validation),
//               by a lower one is stolen (its writer then fails step 3:
//               no write skew). Reads of locations we write: their version
//               must be the one we pre-locked at.
//            3. CAS each pre-lock to the final lock; a failure means a
//               higher priority stole it: abort (lock).
//               The values of the reads of locations we write are checked
//               now (nobody can change them under our final locks).
//            (A) fence_release: final locks before the write-back (a
//               validation that sees a written-back value sees the final
//               lock or the bumped version).
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
    std::uint32_t w1 = 0, v = 0;
    for (std::uint32_t polls = 0;; ++polls) {
      w1 = net_.load(region::locks, a.pe, slot);
      v = net_.load(region::data, a.pe, a.index);
      if (!lock_word::is_locked(w1)) break;
      if (polls == read_polls) {
        fail(abort_cause::read_locked);
        return T{};
      }
      platform::backoff_ns(64);
    }
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
    if (n_writes_ == 0) return commit_read_only();
    return prelock_writes() && validate_reads() && finalize();
  }

  // The steps of an update's commit, public so that tests can interleave the
  // commits of several transactions step by step. Each returns false after it
  // released this attempt's locks and recorded the cause.

  /// Step 1, then (C).
  STM_HD bool prelock_writes() {
    bool missed = false;
    const bool taken = each<MaxWrites>(n_locks_, [&](std::uint32_t k) {  // first pass: free words only, no steal
      lock_entry& e = locks_[k];
      std::uint32_t seen = lock_word::make_unlocked(e.version);
      if (net_.cas(region::locks, e.pe, e.slot, seen, lock_word::make_prelocked(e.version, prio_))) e.state = lock_pre;
      else if (refuses(e, seen)) return false;
      else missed = true;
      return true;
    });
    if (!taken) return abort_releasing(abort_cause::prelock);
    if (missed && !each<MaxWrites>(n_locks_, [&](std::uint32_t k) {  // second pass: steal lower priorities
          lock_entry& e = locks_[k];
          if (e.state == lock_pre) return true;
          std::uint32_t cur = net_.load(region::locks, e.pe, e.slot);
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
    net_.fence_seq_cst();  // (C)
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
    bool locked = true;
    each<MaxWrites>(n_locks_, [&](std::uint32_t k) {
      lock_entry& e = locks_[k];
      std::uint32_t expect = lock_word::make_prelocked(e.version, prio_);
      if (net_.cas(region::locks, e.pe, e.slot, expect, lock_word::make_locked(e.version, prio_))) e.state = lock_final;
      else locked = false;
      return true;
    });
    if (!locked) return abort_releasing(abort_cause::lock);
    const bool values = each<MaxReads>(n_reads_, [&](std::uint32_t i) {
      const read_entry& r = reads_[i];
      std::uint32_t ignored = 0;
      return !own_lock(r.pe, r.slot, ignored) || net_.load(region::data, r.pe, r.index) == r.value;
    });
    if (!values) return abort_releasing(abort_cause::validation);
    net_.fence_release();  // (A)
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
  /// uniform in [0, min(32 x 2^attempt, cap)).
  STM_HD std::uint32_t pause_ns(std::uint32_t cap = 1u << 17) const {
    const std::uint32_t shift = attempt_ < 12 ? attempt_ : 12u;
    const std::uint32_t span = (32u << shift) < cap ? (32u << shift) : cap;
    std::uint32_t h = prio_ * 0x9E3779B1u ^ (attempt_ + 1u) * 0x85EBCA77u;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    return span ? h % span : 0u;
  }

 private:
  static constexpr std::uint8_t lock_none = 0, lock_pre = 1, lock_final = 2;
  /// A read or write that finds a final lock polls it this many times (its
  /// owner only writes back), then aborts.
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
    status_ = c == abort_cause::semantic ? tx_status::semantic : tx_status::aborted;
    cause_ = c;
    ++counters_.aborts[static_cast<std::uint32_t>(c)];
  }

  STM_HD void reset() {
    n_reads_ = n_writes_ = n_locks_ = 0;
    status_ = tx_status::active;
  }

  Transport net_;
  layout shape_;
  std::uint32_t prio_;
  tx_status status_ = tx_status::active;
  abort_cause cause_ = abort_cause::read_locked;
  std::uint32_t attempt_ = 0;
  std::uint32_t n_reads_ = 0, n_writes_ = 0, n_locks_ = 0;
  tx_counters counters_;
  read_entry reads_[MaxReads] = {};
  write_entry writes_[MaxWrites] = {};
  lock_entry locks_[MaxWrites] = {};
};

/// Run body(tx) as one transaction until it commits, declares a semantic
/// conflict or overflows a set (then it is not retried), pausing
/// tx.pause_ns() between attempts. The body reads and writes with
/// TX_READ_IN / TX_WRITE_IN (stm/tx_macros.hpp), which return from it at the
/// first conflict. Returns tx.status().
template <class Tx, class Body>
STM_HD tx_status atomically(Tx& tx, Body&& body) {
  tx.begin();
  for (;;) {
    body(tx);
    if (tx.active()) tx.commit();
    if (tx.status() != tx_status::aborted || tx.cause() == abort_cause::capacity) return tx.status();
    platform::backoff_ns(tx.pause_ns());
    tx.retry();
  }
}

}  // namespace stm::dist
