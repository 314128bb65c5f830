// SPDX-License-Identifier: Apache-2.0
// stm/detail/tx_writeback.hpp - the descriptor's commit mechanics that every
// contention manager's commit protocol calls (stm/manager.hpp): marking the
// reads its write set covers, the commit clock's increment (K) and the lock
// stamps, the write-back under final locks with fences (A) and (B), and giving
// locks back unpublished.
// A base of tx_core (CRTP: the functions work on the derived descriptor);
// the fences are those of docs/stm-core.md#synchronization-table.
#pragma once

#include <cstdint>

#include "stm/lock_word.hpp"
#include "stm/platform.hpp"
#include "stm/tx_sets.hpp"

namespace stm::detail {

template <class Core, class Config>
struct tx_writeback {
  using config = Config;

  /// Lock word and value of read entry i (relaxed), for each_loaded().
  STM_HD auto read_word_and_value(std::uint32_t i) const {
    const Core& tx = self();
    return typename Core::read_look{tx.read_word(i), load_word(tx.reads[i].addr, tx.reads[i].size)};
  }

  /// True when read entry i is current and unclaimed: its lock word, loaded
  /// once, is at the version read with neither a final lock nor a pre-lock,
  /// and the location still holds the value read (a wrapped version). One
  /// load for every test: with a second load for the pre-lock, the first can
  /// show a committer's pre-lock at our version and the second, once that
  /// committer has written and released, no pre-lock (at a new version, which
  /// nothing checks then), and a read the committer overwrote passes.
  template <class Look>
  STM_HD bool read_current_and_unclaimed(std::uint32_t i, const Look& l) const {
    const read_entry& r = self().reads[i];
    if (Core::final_locked(l.word) || Core::prelock_held(l.word) || lock_word::version(l.word) != r.version())
      return false;
    return l.value == r.value;
  }

  /// Commit time, after the write set is pre-locked: flag the reads whose lock
  /// is in the write set ("covered"; their lock word needs no second look).
  /// Such a read must have seen the version we pre-locked at, else it is
  /// already stale: false then. all_covered: every read is covered.
  STM_HD bool mark_covered(bool& all_covered) {
    Core& tx = self();
    all_covered = true;
    return Core::template each<config::max_reads>(tx.n_reads, [&](std::uint32_t i) {
      read_entry& r = tx.reads[i];
      r.covered = 0;
      bool same_version = true;
      Core::template each<config::max_writes>(tx.n_locks, [&](std::uint32_t k) {
        if (tx.locks[k].lock != r.lock) return true;
        same_version = tx.locks[k].version == r.version();
        r.covered = 1;
        return false;
      });
      all_covered &= r.covered != 0;
      return same_version;
    });
  }

  /// Release every lock this attempt holds without publishing anything:
  /// pre-locks by CAS (they may have been stolen), final locks by a store of
  /// the unchanged version (nothing was written back). One out-of-line copy
  /// when outlined (stm::outlined_accesses).
  STM_HD void release_unpublished() {
    if constexpr (Core::outlined) release_unpublished_outlined();
    else release_unpublished_here();
  }
  STM_NOINLINE STM_HD void release_unpublished_outlined() { release_unpublished_here(); }
  STM_HD void release_unpublished_here() {
    Core& tx = self();
    Core::template each<config::max_writes>(tx.n_locks, [&](std::uint32_t k) {
      lock_entry& e = tx.locks[k];
      const auto lw = tx.table.word(e.lock);
      if (e.state == lock_pre) {
        std::uint32_t expect = lock_word::make_prelocked(e.version, tx.tid);
        lw.compare_exchange_strong(expect, lock_word::make_unlocked(e.version), memory_order_relaxed);
      } else if (e.state == lock_final) {
        lw.store(lock_word::make_unlocked(e.version), memory_order_relaxed);
      }
      e.state = lock_none;
      return true;
    });
    release_stolen_reads();
  }

  /// Give back the pre-locks taken on read-only locations during validation.
  STM_HD void release_stolen_reads() {
    Core& tx = self();
    Core::template each<config::max_reads>(tx.n_reads, [&](std::uint32_t i) {
      read_entry& r = tx.reads[i];
      if (r.stolen) {
        std::uint32_t expect = lock_word::make_prelocked(r.version(), tx.tid);
        tx.table.word(r.lock).compare_exchange_strong(expect, lock_word::make_unlocked(r.version()), memory_order_relaxed);
        r.stolen = 0;
      }
      return true;
    });
  }

  /// Write back and release, once every write lock is final-locked by us and
  /// the read set is validated (the contention manager's acquire()).
  /// FencedA: acquire() already executed (A) after its last final-lock CAS.
  /// With a commit clock: (K) now if the manager did not call
  /// write_set_claimed(), then the lock stamps, then (A) (again, when FencedA:
  /// the stamps must be visible before any value written back; they pair
  /// with the reader's (R), docs/stm-core.md#lock-stamps).
  template <bool FencedA = false>
  STM_HD void publish() {
    Core& tx = self();
    if (tx.table.has_clock()) {
      // (K) late: release only; this commit validated already (under its
      // locks), so unlike write_set_claimed() it has nothing to acquire.
      if (tx.commit_stamp == 0) tx.commit_stamp = tx.table.clock_word().fetch_add(1, memory_order_release) + 1;
      Core::template each<config::max_writes>(tx.n_locks, [&](std::uint32_t k) {
        tx.table.stamp(tx.locks[k].lock).store(tx.commit_stamp, memory_order_relaxed);  // under our final lock
        return true;
      });
      platform::fence_release();  // (A) (A' after a late (K)): final locks, increment, stamps before the write-back
    } else if constexpr (!FencedA) {
      platform::fence_release();  // (A) final locks before the write-back; pairs with the reader's (R)
    }
    // Either way (A) has executed here (FencedA: in the manager's acquire()).
    if constexpr (config::record) tx.bump_seqs(tx);  // under the final locks, after (A): stm/history.hpp
    Core::template each<config::max_writes>(tx.n_writes, [&](std::uint32_t i) {
      store_word(tx.writes[i].addr, tx.writes[i].size, tx.writes[i].value);
      return true;
    });
    platform::fence_release();  // (B) write-back before the unlock stores; pairs with the reader's acquire load
    Core::template each<config::max_writes>(tx.n_locks, [&](std::uint32_t k) {
      lock_entry& e = tx.locks[k];
      tx.table.word(e.lock).store(lock_word::make_unlocked(lock_word::next_version(e.version)), memory_order_relaxed);
      e.state = lock_none;
      return true;
    });
    release_stolen_reads();
  }

  /// A manager's acquire() calls this once the write set is claimed (every
  /// pre-lock or lock of it taken) and before it validates the reads it does
  /// not hold: with a commit clock, the increment (K) comes here, as in TL2
  /// (lock, increment, validate). Why before validation: see the table,
  /// "(K) before validation". Without a clock it does nothing.
  STM_HD void write_set_claimed() {
    Core& tx = self();
    if (tx.table.has_clock()) tx.commit_stamp = tx.table.clock_word().fetch_add(1, memory_order_acq_rel) + 1;  // (K)
  }

 private:
  STM_HD Core& self() { return static_cast<Core&>(*this); }
  STM_HD const Core& self() const { return static_cast<const Core&>(*this); }
};

}  // namespace stm::detail
