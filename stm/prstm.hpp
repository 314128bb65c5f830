// SPDX-License-Identifier: Apache-2.0
// stm/prstm.hpp - PR-STM's priority rule (Shen, Sharp, Davison et al., "A
// general purpose contention manager for software transactions on the GPU",
// JPDC 2020, Algorithm 2; first in Shen et al., Euro-Par 2015): the default
// contention manager of stm::transaction. cmp/ names it stm::cm::prstm among
// the other managers (cmp/registry.hpp).
//
// Commit protocol of a transaction with priority p (its logical thread id;
// lower wins; prstm_ranked takes the rule as a parameter, and the steps below
// read "higher priority" through it):
//   1. tryPreLock: for each lock of the write set, CAS it to pre-locked(p)
//      unless its version moved, it is final-locked, or a higher priority
//      holds the pre-lock; a lower-priority pre-lock is stolen (CAS over it),
//      but only once no lock of the write set refuses us (a steal dooms its
//      victim, which is waste if we then abort on another lock), and on the
//      larger sets' path only after a bounded wait (below).
//   (C) seq_cst fence (or, when every read is of a location we write, the
//      acquire fence (P) of stm/detail/tx_core.hpp).
//   2. validate the read set: same version, not final-locked, same value. A
//      read location pre-locked by a higher priority aborts us; one pre-locked
//      by a lower priority is stolen, so that its writer fails step 3 (without
//      this, two transactions that each read what the other writes could both
//      commit: write skew).
//   3. tryLock: CAS each pre-lock to the final lock; a failed CAS means a
//      higher priority stole it: release everything and abort.
//   (A) release fence, issued right behind the step-3 CASes (before their
//      results are looked at), so its round trip overlaps theirs.
// Then the core writes back, fences (B) and releases with the version bumped.
//
// Why (C): steps 1 and 2 are a store-then-load pattern across two locations
// (Dekker). The fence pairs with the same fence of every other committer: of
// two transactions that each pre-lock what the other reads, at least one sees
// the other's pre-lock in step 2.
//
// Progress: the highest-priority running transaction is only aborted by a
// transaction that has committed or holds final locks (and finishes without
// waiting), so the system as a whole always makes progress. A thread waits
// on a pre-lock only on the larger sets' path, only on a lower priority's,
// and at most settle_polls polls: a pre-lock's owner never waits on a higher
// priority (it aborts), so waits run from higher to lower priorities, form no
// cycle, and lock-step warps cannot deadlock.
//
// Differences from the paper: an aborted attempt pauses a randomized,
// exponentially growing time before it retries (see pause_ns); step 1 steals
// only when every lock of the write set can still be had, and on larger sets
// only after a bounded wait for the owner's outcome. Two runtime
// knobs (manager_tuning, stm/manager.hpp): an access that finds a final lock may poll it a few
// times (its owner only writes back and releases; off by default), and the
// cap of the pause (--cm-backoff).
//
// Mechanics, two paths (docs/design-decisions.md#prstm-long-sets):
// - small sets (unrolled: at most 8 reads and 8 writes): the CASes of each
//   step and the loads of the validation are issued as one batch
//   (independent, so in flight together); only the entries whose first try
//   failed go through the careful loop. The value checks of reads of
//   locations we write go out with the final-lock CASes of step 3.
// - larger sets: step 1 entry by entry, stopping at the first lock that
//   refuses; a lower-priority pre-lock, written or read, is first waited for
//   (wait_or_steal: up to settle_polls polls for its owner's outcome) and
//   stolen only if it is still held then (in step 1 by a second pass, once
//   no lock refused); step 2 checks the covered values in the same pass as
//   the other reads, and step 3 is the final-lock CASes alone. Most such
//   pre-locks are gone within the wait (their owners never wait on a higher
//   priority), so the owner commits instead of failing step 3 after its
//   whole validation: stealing at once was these transactions' largest cost
//   at full occupancy. The validation's per-read test is kept
//   small (one comparison unless the word is pre-locked): the batched scan
//   (each_loaded) copies it once per entry of a batch, and a per-read loop
//   with a CAS in each copy measured much slower (design-decisions, above).
#pragma once

#include <cstdint>

#include "stm/lock_word.hpp"
#include "stm/manager.hpp"
#include "stm/platform.hpp"

namespace stm {

/// The priority rule of prstm: the logical thread id, lower wins (the paper's).
struct tid_rank {
  /// The transaction of thread `owner` wins a conflict against that of `tid`.
  STM_HD static bool outranks(std::uint32_t owner, std::uint32_t tid) { return owner < tid; }
};

/// PR-STM's commit protocol over a priority rule Rank (tid_rank: the paper's;
/// an aging rule: cmp/prstm_aging.hpp). Rank::outranks(owner, tid) orders the
/// transactions of the logical threads running now; the lock word's owner
/// field stays the thread id, so a thread recognizes its own pre-locks
/// whatever the rule.
template <class Rank>
struct prstm_ranked : manager_base, Rank {
  // The paper retries at once. We pause a randomized time that doubles from
  // 32 ns per consecutive abort (manager_tuning::backoff_span_ns), capped at
  // default_backoff_ns unless the tuning sets the cap, for two reasons:
  // - a yield point, so that the lane of the same warp that holds the
  //   pre-locks we lost to gets scheduled: retrying in a tight loop lets the
  //   lanes of one warp starve that lane (many lanes on one STM-backed stack
  //   or queue);
  // - thinning out the contenders: at full occupancy over a few thousand
  //   locations, tens of thousands of resident threads compete for a few
  //   thousand disjoint transactions, and every retry that is bound to lose
  //   delays one that would win.
  // The cap trades that against the tail: a kernel ends with its slowest
  // thread, and a thread that lost many times in a row sleeps up to the cap.
  // 1 ms was the best cap of those measured, for the bank under both drivers
  // and for the containers, whose runs last tens of milliseconds
  // (docs/design-decisions.md#prstm-pause-cap).
  static constexpr std::uint32_t default_backoff_ns = 1000000;
  STM_HD std::uint32_t pause_ns(std::uint32_t tid, std::uint32_t attempt, abort_cause) const {
    return tune.backoff_span_ns(tid, attempt, default_backoff_ns);
  }

  template <class Core>
  STM_HD bool acquire(Core& tx) const {
    if constexpr (!Core::unrolled) return acquire_in_turn(tx);
    else return acquire_batched(tx);
  }

  // acquire() executes (A) after the final-lock CASes (lock_and_check_covered,
  // acquire_in_turn). A derived manager whose acquire() does not must set this
  // to false.
  static constexpr bool fences_final_locks = true;

  // The larger sets' path waits up to this many polls, 64 ns apart, for a
  // lower-priority pre-lock's outcome before it steals the pre-lock.
  static constexpr std::uint32_t settle_polls = 64;

  // A read that finds a pre-lock of a higher priority dooms an update's
  // attempt: step 1 refuses that lock if we write the location, step 2 aborts
  // us if we only read it, unless its owner gives it up first. A non-opaque
  // read notes it, and the update fails before it takes any lock (cause
  // prelock) instead of pre-locking its other locations and stopping other
  // transactions meanwhile. (A read-only commit ignores the note: it takes no
  // lock, and its validation fails on any pre-lock still held then, whatever
  // its owner's priority: stm/detail/tx_core.hpp, validate_read_only.)
  STM_HD bool dooms_read(std::uint32_t word, std::uint32_t tid) const {
    return lock_word::is_prelocked(word) && this->outranks(lock_word::owner(word), tid);
  }

 private:
  // The small sets' path (unrolled).
  template <class Core>
  STM_HD bool acquire_batched(Core& tx) const {
    // The steps report failure; the one exit below releases (every inlined
    // copy of the release code costs registers, and the descriptor must stay
    // in registers).
    abort_cause cause = abort_cause::prelock;
    // A read whose lock we now hold as a pre-lock needs no look at the lock
    // word: our pre-lock CAS saw it free at the version of the write entry, and
    // nobody can commit it without stealing, which step 3 detects. Which reads
    // those are depends on the sets alone, so step 1 calls mark_covered before
    // it tests its CAS results (unrolled path; the general one after its first
    // pass), not after step 1: the pre-locks are held that much shorter.
    // (Computed ahead of the CASes it waits for nothing, so it is not tied
    // below them: that measured slower.)
    bool all_covered = true, covered_ok = true;
    bool ok = prelock_all(tx, [&] { covered_ok = tx.mark_covered(all_covered); });
    if (ok) tx.write_set_claimed();  // (K) of a commit clock: before the validation (stm/detail/tx_core.hpp)
    if (ok && !(ok = covered_ok)) cause = abort_cause::validation;
    // (C) pre-locks before read validation; pairs with (C) of every other
    // committer. Needed only for reads of locations we do not write (Dekker).
    // Otherwise (P): the covered values are checked after our pre-lock CASes
    // (tx_core.hpp); (C) orders them as well.
    if (ok && !all_covered) {
      platform::fence_seq_cst();
      if (!(ok = validate_uncovered(tx))) cause = abort_cause::validation;
    } else if (ok) {
      platform::fence_acquire();
    }
    if (ok) ok = lock_and_check_covered(tx, cause);
    return ok ? true : tx.abort_releasing(cause);
  }

  // The larger sets' path (see the header): steps 1-3 entry by entry.
  template <class Core>
  STM_HD bool acquire_in_turn(Core& tx) const {
    namespace lw = lock_word;
    constexpr std::uint32_t R = Core::config::max_reads, W = Core::config::max_writes;
    // 1. Each lock in turn; the first that refuses ends the attempt. A
    //    lower-priority pre-lock still held after the wait is left for the
    //    second pass, which steals only once no lock of the write set refused.
    bool missed = false;
    if (!Core::template each<W>(tx.n_locks, [&](std::uint32_t k) {
          auto& e = tx.locks[k];
          const auto word = tx.table.word(e.lock);
          for (;;) {
            std::uint32_t cur = lw::make_unlocked(e.version);
            if (word.compare_exchange_strong(cur, lw::make_prelocked(e.version, tx.tid), memory_order_relaxed)) break;
            bool stole = false;
            if (!wait_or_steal<false>(tx, e.lock, e.version, cur, stole)) return false;
            if (lw::is_prelocked(cur)) {
              if (lw::owner(cur) == tx.tid) break;
              missed = true;  // a lower priority's, still held
              return true;
            }
            // else free again at the version: take it
          }
          e.state = lock_pre;
          return true;
        }))
      return tx.abort_releasing(abort_cause::prelock);
    if (missed &&
        !Core::template each<W>(tx.n_locks, [&](std::uint32_t k) {
          auto& e = tx.locks[k];
          return e.state == lock_pre || prelock_one(tx, e, tx.table.word(e.lock).load(memory_order_relaxed));
        }))
      return tx.abort_releasing(abort_cause::prelock);
    tx.write_set_claimed();  // (K), as on the other path
    bool all_covered = true;
    if (!tx.mark_covered(all_covered)) return tx.abort_releasing(abort_cause::validation);
    // (C) or (P), as on the other path.
    if (!all_covered) platform::fence_seq_cst();
    else platform::fence_acquire();
    // 2. One pass: a covered read's value (we hold its pre-lock: a thief's
    //    commit would make our step 3 fail); an uncovered read's word and
    //    value, and a pre-lock of another on it waited for, then stolen.
    if (!Core::template each_loaded<R>(
            tx.n_reads, [&](std::uint32_t i) { return tx.read_word_and_value(i); },
            [&](std::uint32_t i, const typename Core::read_look& l) {
              auto& r = tx.reads[i];
              if (r.covered) return l.value == r.value;
              std::uint32_t cur = l.word;
              if (lw::is_prelocked(cur) && !lw::is_locked(cur)) {
                bool stole = false;
                if (!wait_or_steal<true>(tx, r.lock, r.version(), cur, stole)) return false;
                if (stole) r.stolen = 1;  // its lower-priority writer now fails its final lock
                return load_word(r.addr, r.size) == r.value;  // the value under the word settled on
              }
              return lw::version(cur) == r.version() && !lw::is_locked(cur) && l.value == r.value;
            }))
      return tx.abort_releasing(abort_cause::validation);
    // 3. Final locks; a failed CAS: a higher priority stole the pre-lock.
    if (!final_lock_in_turn(tx)) return tx.abort_releasing(abort_cause::lock);
    platform::fence_release();  // (A) final locks before the write-back; pairs with the reader's (R)
    return true;
  }

  // The word `cur` of lock `lock` (expected at `version`) is not free at the
  // version. False: it refuses us (its version moved, it is final-locked, or
  // a higher priority pre-locked it). True: it is free at the version again,
  // or our own pre-lock (stole = false), or it was a lower priority's
  // pre-lock still held after settle_polls polls 64 ns apart, which we now
  // hold if Steal (stole = true; else `cur` is that pre-lock, for step 1's
  // second pass). The checks run one by one in this order, not through
  // refuses(): so compiled, the larger sets' commit measured faster
  // (docs/design-decisions.md#prstm-long-sets, "The code's shape").
  template <bool Steal, class Core>
  STM_HD bool wait_or_steal(Core& tx, std::uint32_t lock, std::uint32_t version, std::uint32_t& cur,
                            bool& stole) const {
    namespace lw = lock_word;
    const auto word = tx.table.word(lock);
    for (std::uint32_t polls = 0;; ++polls) {
      if (lw::version(cur) != version || lw::is_locked(cur)) return false;
      if (!lw::is_prelocked(cur)) return true;  // free at the version
      if (lw::owner(cur) == tx.tid) return true;
      if (this->outranks(lw::owner(cur), tx.tid)) return false;
      if (polls >= settle_polls) {
        if (!Steal) return true;
        if (word.compare_exchange_weak(cur, lw::make_prelocked(version, tx.tid), memory_order_relaxed)) {
          ++tx.counters.steals;
          stole = true;
          return true;
        }
        continue;  // the word moved: look at it again
      }
      platform::backoff_ns(64);
      cur = word.load(memory_order_relaxed);
    }
  }

  // Step 1 must give up at this word (expected at `version`): the version
  // moved since our read, it is final-locked, or a higher priority pre-locked it.
  template <class Core>
  STM_HD bool refuses(const Core& tx, std::uint32_t version, std::uint32_t cur) const {
    namespace lw = lock_word;
    return lw::version(cur) != version || lw::is_locked(cur) ||
           (lw::is_prelocked(cur) && this->outranks(lw::owner(cur), tx.tid));
  }

  // Step 1 for lock entry e, starting from the observed word `cur`.
  template <class Core>
  STM_HD bool prelock_one(Core& tx, lock_entry& e, std::uint32_t cur) const {
    namespace lw = lock_word;
    const auto word = tx.table.word(e.lock);
    for (;;) {
      if (refuses(tx, e.version, cur)) return false;
      if (lw::is_prelocked(cur) && lw::owner(cur) == tx.tid) break;  // already ours
      if (word.compare_exchange_weak(cur, lw::make_prelocked(e.version, tx.tid), memory_order_relaxed)) {
        if (lw::is_prelocked(cur)) ++tx.counters.steals;
        break;
      }
    }
    e.state = lock_pre;
    return true;
  }

  // Step 1 of the small sets' path, in two passes. The first takes every lock
  // that is free at its version (one CAS each, in flight together) and steals
  // nothing. If any lock it missed refuses us, the attempt aborts there: a
  // steal makes its victim fail step 3, which is waste when we cannot commit
  // either. Only then does the second pass steal the lower-priority pre-locks
  // (a word may still change in between, so a steal followed by a refusal
  // remains possible, but only in that race; acquire_in_turn's step 1 keeps
  // the same rule).
  // in_flight(): work that does not depend on the CAS results, run once every
  // first CAS is issued, before any result is tested.
  template <class Core, class InFlight>
  STM_HD bool prelock_all(Core& tx, InFlight&& in_flight) const {
    namespace lw = lock_word;
    static_assert(Core::unrolled, "the small sets' path; acquire_in_turn takes the others");
    constexpr std::uint32_t W = Core::config::max_writes;
    std::uint32_t seen[W] = {};
    std::uint32_t failed = 0;  // bit k: entry k's first CAS failed
    bool refused = false;
    // The common case: every lock free at its version. Every CAS is issued
    // before any result is tested (one round trip for the batch): with the
    // test beside its CAS, the machine code waits for each CAS before
    // issuing the next.
    STM_UNROLL
    for (std::uint32_t k = 0; k < W; ++k)
      if (k < tx.n_locks) {
        const auto& e = tx.locks[k];
        seen[k] = lw::make_unlocked(e.version);  // the CAS leaves the word's old value here
        tx.table.word(e.lock).compare_exchange_strong(seen[k], lw::make_prelocked(e.version, tx.tid),
                                                      memory_order_relaxed);
      }
    in_flight();
    STM_UNROLL
    for (std::uint32_t k = 0; k < W; ++k)
      if (k < tx.n_locks) {
        auto& e = tx.locks[k];
        platform::hide_from_optimizer(seen[k]);  // keeps the test from merging with the CAS's own
        if (seen[k] == lw::make_unlocked(e.version)) e.state = lock_pre;
        else failed |= 1u << k;
      }
    STM_UNROLL
    for (std::uint32_t k = 0; k < W; ++k)
      if (failed >> k & 1u) refused |= refuses(tx, tx.locks[k].version, seen[k]);
    if (refused) return false;
    // The careful loop once, not per entry (register pressure): the entry
    // travels by value through constant-index get/put. Skipped as a whole
    // in the common case (every first CAS won): otherwise the machine code
    // runs its W iterations anyway, lane by lane, between the pre-locks and
    // the final locks.
    if (failed != 0) {
      STM_NO_UNROLL
      for (std::uint32_t k = 0; k < W; ++k)
        if (failed >> k & 1u) {
          lock_entry e = Core::get(tx.locks, k);
          if (!prelock_one(tx, e, Core::get(seen, k))) return false;
          Core::put(tx.locks, k, e);
        }
    }
    return true;
  }

  // Step 2 for read entry r, starting from the observed word `cur` and value.
  template <class Core>
  STM_HD bool validate_one(Core& tx, read_entry& r, std::uint32_t cur, std::uint64_t value) const {
    namespace lw = lock_word;
    const auto word = tx.table.word(r.lock);
    for (;;) {
      if (lw::version(cur) != r.version() || lw::is_locked(cur) || value != r.value) return false;
      if (!lw::is_prelocked(cur) || lw::owner(cur) == tx.tid) return true;
      if (this->outranks(lw::owner(cur), tx.tid)) return false;  // a higher priority will write it
      if (word.compare_exchange_weak(cur, lw::make_prelocked(r.version(), tx.tid), memory_order_relaxed)) {
        r.stolen = 1;  // its lower-priority writer now fails its final lock
        ++tx.counters.steals;
        return true;
      }
      value = load_word(r.addr, r.size);  // the word moved: look at both again
    }
  }

  // Step 2 for the reads we do not write (covered reads: see below).
  template <class Core>
  STM_HD bool validate_uncovered(Core& tx) const {
    // Covered reads load too (their look is not used): a load in a batch
    // costs less than the branch that would skip it.
    return Core::template each_loaded<Core::config::max_reads>(
        tx.n_reads, [&](std::uint32_t i) { return tx.read_word_and_value(i); },
        [&](std::uint32_t i, const typename Core::read_look& l) {
          auto& r = tx.reads[i];
          return r.covered || validate_one(tx, r, l.word, l.value);
        });
  }

  // Step 3, and step 2 for the covered reads: for them step 2 is only the
  // value check (a body's load may have missed the write-back of the version
  // it saw, or the version wrapped), and since we hold their pre-locks
  // (nobody can commit these locations without stealing, which makes our
  // final-lock CAS fail) their value loads and the final-lock CASes can be in
  // flight together: one round trip less. Fence (A) follows the CASes before
  // any result is looked at, so that its round trip can overlap theirs (a
  // failed attempt pays a fence it did not need; final-lock CASes rarely
  // fail). The results are tested through platform::fence_anchor, which keeps
  // the test of the first CAS's result below the fence (else the warp waits
  // for that CAS before it issues the fence).
  // On either failure acquire() releases everything, final locks included;
  // `cause` says which.
  template <class Core>
  STM_HD static bool lock_and_check_covered(Core& tx, abort_cause& cause) {
    namespace lw = lock_word;
    constexpr std::uint32_t R = Core::config::max_reads, W = Core::config::max_writes;
    static_assert(Core::unrolled, "the small sets' path; acquire_in_turn takes the others");
    bool values_ok = true, locked = true;
    std::uint64_t value[R] = {};
    std::uint32_t seen[W] = {};
    platform::fence_anchor anchor;  // the CAS results are tested below (A)
    STM_UNROLL
    for (std::uint32_t i = 0; i < R; ++i)
      if (i < tx.n_reads && tx.reads[i].covered) value[i] = load_word(tx.reads[i].addr, tx.reads[i].size);
    STM_UNROLL
    for (std::uint32_t k = 0; k < W; ++k)
      if (k < tx.n_locks) {
        const auto& e = tx.locks[k];
        seen[k] = lw::make_prelocked(e.version, tx.tid);  // the CAS leaves the word's old value here
        tx.table.word(e.lock).compare_exchange_strong(seen[k], lw::make_locked(e.version, tx.tid), memory_order_relaxed);
      }
    platform::fence_release();  // (A) final locks before the write-back; pairs with the reader's (R)
    const std::uint32_t zero = anchor.zero();
    STM_UNROLL
    for (std::uint32_t i = 0; i < R; ++i)
      if (i < tx.n_reads && tx.reads[i].covered) values_ok &= value[i] == tx.reads[i].value;
    STM_UNROLL
    for (std::uint32_t k = 0; k < W; ++k)
      if (k < tx.n_locks) {
        auto& e = tx.locks[k];
        if (seen[k] + zero == lw::make_prelocked(e.version, tx.tid)) e.state = lock_final;
        else locked = false;
      }
    cause = locked ? abort_cause::validation : abort_cause::lock;  // lock: stolen by a higher priority
    return locked && values_ok;
  }
};

/// PR-STM with the paper's rule: the logical thread id is the priority.
struct prstm : prstm_ranked<tid_rank> {
  static constexpr const char* name = "prstm";
};
static_assert(sizeof(prstm) == sizeof(manager_base), "the paper's rule adds no state to the descriptor");

namespace cm {
/// Its name among the managers (namespace stm::cm, cmp/registry.hpp), declared
/// here, with the type, so that stm/stm.hpp offers the README's default
/// manager under both names (the core does not include cmp/).
using prstm = stm::prstm;
}  // namespace cm

}  // namespace stm
