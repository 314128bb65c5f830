// cmp/delay.hpp - TinySTM's CM_DELAY: the transaction that sees a conflict
// aborts, and before it runs again it waits until the lock that stopped it
// changes hands (is released or re-taken), instead of sleeping a random time.
//
// Commit protocol: the same as `backoff` (cmp/backoff.hpp: pre-lock the write
// set without stealing, seq_cst fence, validate, final locks). The manager
// remembers the lock word a commit found held by another transaction; after
// the abort it polls that word until it differs from what was seen. An abort
// without such a lock (a read that found a final lock, a moved version) backs
// off like `backoff`.
//
// The polls are spaced by randomized gaps that double from 64 ns up to 4 us
// (at most delay_polls of them, ~0.1 ms in all): at full occupancy thousands
// of waiters share a lock word, and the 64 lock words of a small table sit in
// two cache lines, so polling them back to back serializes the L2 slice that
// the holders need for their own commit (an H100 run with fixed 64 ns gaps
// left 171,108 of 270,336 threads uncommitted after 30 s over 64 accounts).
// The jitter also keeps the waiters from all retrying in the same instant.
//
// Trade-off against backoff: the wait ends soon after the conflict does, so no
// time is slept after the holder left; the cost is the polls of a hot word.
//
// Progress: an aborted transaction holds no lock while it waits, so waits
// never form a cycle; the bound turns a long-held lock into a plain retry, and
// a transaction that keeps failing backs off as `backoff` does as well.
#pragma once

#include <cstdint>

#include "cmp/backoff.hpp"
#include "cmp/contention_manager.hpp"
#include "stm/detail/tx_core.hpp"
#include "stm/platform.hpp"

namespace stm::cm {

struct delay : manager_base {
  static constexpr const char* name = "delay";
  /// Most polls of the contended lock word after an abort, and their gaps.
  static constexpr std::uint32_t delay_polls = 32;
  static constexpr std::uint32_t min_gap_ns = 64;
  static constexpr std::uint32_t max_gap_ns = 4096;
  /// Consecutive aborts after which the randomized back-off applies as well.
  static constexpr std::uint32_t repeat_aborts_before_backoff = 8;

  // The lock word that made the last attempt abort, and its value then.
  std::uint32_t* contended = nullptr;
  std::uint32_t seen = 0;

  STM_HD void on_abort(std::uint32_t tid, std::uint32_t attempt, abort_cause cause) const {
    if (contended != nullptr) {
      const atomic_ref<std::uint32_t> word(*contended);
      std::uint32_t gap = min_gap_ns;
      std::uint32_t h = (tid + 1u) * 0x9E3779B1u ^ (attempt + 1u) * 0x85EBCA77u;
      // Relaxed: the retry re-reads every location under the core's own
      // protocol; this load only decides when to start.
      for (std::uint32_t p = 0; p < delay_polls && word.load(memory_order_relaxed) == seen; ++p) {
        h ^= h << 13; h ^= h >> 17; h ^= h << 5;  // xorshift: a gap in [gap/2, gap)
        platform::backoff_ns(gap / 2 + h % (gap / 2));
        if (gap < max_gap_ns) gap *= 2;
      }
      if (attempt < repeat_aborts_before_backoff) return;
    }
    with_tuning<backoff>(tune).on_abort(tid, attempt, cause);
  }

  STM_HD void on_start() { contended = nullptr; }

  template <class Core>
  STM_HD bool acquire(Core& tx) {
    return backoff::acquire_nosteal(tx, [this, &tx](std::uint32_t lock, std::uint32_t word) {
      contended = tx.table.words + lock;
      seen = word;
    });
  }
};

}  // namespace stm::cm
