// SPDX-License-Identifier: Apache-2.0
// cmp/delay.hpp - TinySTM's CM_DELAY: the transaction that sees a conflict
// aborts, and before it runs again it waits until the lock that stopped it
// changes hands (is released or re-taken), instead of sleeping a random time.
//
// Commit protocol: the same as `backoff` (cmp/backoff.hpp: pre-lock the write
// set without stealing, seq_cst fence or (P), validate, final locks). The manager
// remembers the lock word a commit found held by another transaction; after
// the abort it polls that word until it differs from what was seen. Then
// every abort backs off as `backoff` does (also one without such a lock: a
// read that found a final lock, a moved version).
//
// The polls are spaced by randomized gaps that double from 64 ns up to 4 us
// (at most delay_polls of them, ~0.1 ms in all): at full occupancy thousands
// of waiters share a lock word, and the 64 lock words of a small table sit in
// two cache lines, so polling them back to back serializes the L2 slice that
// the holders need for their own commit (with fixed 64 ns gaps, most threads
// of a full-occupancy run over 64 accounts were still uncommitted after 30 s).
// The jitter also keeps the waiters from all retrying in the same instant.
//
// Trade-off against backoff: a retry never starts while the lock that stopped
// it is still held by the same transaction, at the cost of the polls of a hot
// word and a longer wait when the holder is slow.
//
// Progress: an aborted transaction holds no lock while it waits, so waits
// never form a cycle; the bound turns a long-held lock into a plain retry.
#pragma once

#include <cstdint>

#include "cmp/backoff.hpp"
#include "cmp/contention_manager.hpp"
#include "stm/manager.hpp"
#include "stm/platform.hpp"

namespace stm::cm {

struct delay : manager_base {
  static constexpr const char* name = "delay";
  /// Most polls of the contended lock word after an abort, and their gaps.
  static constexpr std::uint32_t delay_polls = 32;
  static constexpr std::uint32_t min_gap_ns = 64;
  static constexpr std::uint32_t max_gap_ns = 4096;

  // The lock word that made the last attempt abort, and its value then.
  std::uint32_t* contended = nullptr;
  std::uint32_t seen = 0;

  /// Polls the contended lock word (bounded, see above), then returns the
  /// back-off of `backoff` for the caller to sleep: the transaction table's
  /// driver (stm/txtable.hpp) sleeps it per lane, so the lanes of a warp that
  /// polled together do not retry together. The waiters of one lock all see
  /// it change at once, and retrying together only makes them collide again
  /// (skipping the back-off for the first 8 aborts left half the threads of a
  /// full-occupancy run over 64 accounts uncommitted after 30 s).
  STM_HD std::uint32_t pause_ns(std::uint32_t tid, std::uint32_t attempt, abort_cause cause) const {
    if (contended != nullptr) {
      const atomic_ref<std::uint32_t> word(*contended);
      std::uint32_t gap = min_gap_ns;
      std::uint32_t h = manager_tuning::jitter(tid, attempt);
      // Relaxed: the retry re-reads every location under the core's own
      // protocol; this load only decides when to start.
      for (std::uint32_t p = 0; p < delay_polls && word.load(memory_order_relaxed) == seen; ++p) {
        h ^= h << 13; h ^= h >> 17; h ^= h << 5;  // xorshift: a gap in [gap/2, gap)
        platform::backoff_ns(gap / 2 + h % (gap / 2));
        if (gap < max_gap_ns) gap *= 2;
      }
    }
    return with_tuning<backoff>(tune).pause_ns(tid, attempt, cause);
  }

  STM_HD void on_start() { contended = nullptr; }

  template <class Core>
  STM_HD bool acquire(Core& tx) {
    return backoff::acquire_nosteal(tx, [this, &tx](std::uint32_t lock, std::uint32_t word) {
      contended = tx.table.word_ptr(lock);
      seen = word;
    });
  }
};

}  // namespace stm::cm
