// SPDX-License-Identifier: Apache-2.0
// stm/detail/tx_record.hpp - the recording state of a descriptor whose
// tx_config has Record = true (stm/history.hpp says what is logged and why the
// recorded order of writes is the real one). Without Record the base is empty
// and tx_core calls none of this.
#pragma once

#include <cstdint>

#include "stm/detail/manager_traits.hpp"
#include "stm/history.hpp"
#include "stm/lock_word.hpp"
#include "stm/platform.hpp"
#include "stm/tx_sets.hpp"

namespace stm::detail {

template <class Config, bool = Config::record>
struct tx_recorder {};

template <class Config>
struct tx_recorder<Config, true> {
  history_ref hist{};
  std::uint32_t n_seen = 0;  // reads whose values the body got (a prefix of the read set)
  std::uint64_t read_seq[Config::max_reads] = {};
  std::uint64_t installed_seq[Config::max_writes] = {};  // per lock entry, set by bump_seqs

  STM_HD bool recording() const { return hist.seq != nullptr; }

  /// The read's sequence load: between its acquire load of the lock word and
  /// its data load, before fence (R) (see stm/history.hpp).
  STM_HD std::uint64_t observe_seq(std::uint32_t lock) const {
    return recording() ? hist.lock_seq(lock).load(memory_order_relaxed) : 0;
  }

  /// Read entry i was added with the sequence it observed; `exact`: its lock
  /// word was free of final locks at one version around the data load.
  STM_HD void note_read(std::uint32_t i, std::uint64_t seq, bool exact) {
    if (i < Config::max_reads) read_seq[i] = seq | (exact ? 0 : history_op::uncertain_bit);
  }

  /// A read of a descriptor with Opaque = false while recording: the opaque
  /// read's loads in its order, so that the sequence names the write the value
  /// came from; the outcome as the unrecorded read's, except that a read the
  /// opaque read would not accept is noted as a final lock (its claim is not
  /// exact: the commit fails, read_locked, and is retried). Returns the bits.
  template <class Core, class CM>
  STM_HD std::uint64_t read_recorded(Core& tx, std::uint32_t li, const void* addr, std::uint32_t size, CM& cm,
                                     std::uint32_t& w1, std::uint64_t& seq, bool& exact) {
    const auto lw = tx.table.word(li);
    std::uint64_t bits = 0;
    for (std::uint32_t polls = 0;; ++polls) {
      w1 = lw.load(memory_order_acquire);
      seq = observe_seq(li);
      bits = load_word(addr, size);
      platform::fence_acquire();
      const std::uint32_t w2 = lw.load(memory_order_relaxed);
      exact = !Core::final_locked(w1) && !Core::final_locked(w2) &&
              lock_word::version(w1) == lock_word::version(w2);  // the opaque read's test
      if (!Core::final_locked(w1) || !cm.wait_on_locked(polls)) break;
      platform::backoff_ns(64);
    }
    tx.read_notes |= (exact ? 0u : lock_word::lock_bit) | (dooms_read(cm, w1, tx.tid) ? lock_word::prelock_bit : 0u);
    return bits;
  }

  /// publish(), after fence (A) and before the write-back: every lock entry is
  /// our final lock. Only its holder bumps seq[lock]; an RMW all the same, so
  /// that the sequences of a lock are distinct by coherence alone.
  template <class Core>
  STM_HD void bump_seqs(const Core& tx) {
    if (!recording()) return;
    for (std::uint32_t k = 0; k < tx.n_locks; ++k)
      installed_seq[k] = hist.lock_seq(tx.locks[k].lock).fetch_add(1, memory_order_relaxed) + 1;
  }

  /// Log the attempt that just ended (committed: every read and write; else
  /// the reads the body saw).
  template <class Core>
  STM_HD void log_attempt(const Core& tx, bool committed) {
    if (!recording()) return;
    const std::uint32_t nr = committed ? tx.n_reads : n_seen;
    const std::uint32_t nw = committed ? tx.n_writes : 0;
    if (nr + nw == 0) return;
    const history_pool_ref& pool = committed ? hist.commits : hist.aborts;
    std::uint64_t slot = 0, first = 0;
    if (!pool.reserve(nr + nw, slot, first)) return;
    for (std::uint32_t i = 0; i < nr; ++i) {
      const auto& r = tx.reads[i];
      pool.ops[first + i] = history_op{reinterpret_cast<std::uint64_t>(r.addr), r.value, read_seq[i]};
    }
    for (std::uint32_t i = 0; i < nw; ++i) {
      const auto& w = tx.writes[i];
      const std::uint32_t lock = tx.table.index_of(w.addr);
      std::uint64_t seq = 0;
      for (std::uint32_t k = 0; k < tx.n_locks; ++k)
        if (tx.locks[k].lock == lock) seq = installed_seq[k];
      pool.ops[first + nr + i] = history_op{reinterpret_cast<std::uint64_t>(w.addr), w.value, seq};
    }
    pool.attempts[slot] = history_attempt{first, tx.tid, tx.attempt, nr, nw,
                                          (committed ? history_attempt::committed_flag : 0u) |
                                              (Config::opaque ? history_attempt::opaque_flag : 0u),
                                          0};
  }
};

}  // namespace stm::detail
