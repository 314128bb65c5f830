// cmp/delay.hpp - TinySTM's CM_DELAY: the transaction that sees a conflict
// aborts, and before it runs again it waits until the lock that stopped it
// changes hands (is released or re-taken), instead of sleeping a random time.
//
// Commit protocol: the same as `backoff` (cmp/backoff.hpp: pre-lock the write
// set without stealing, seq_cst fence, validate, final locks). The manager
// remembers the lock word a commit found held by another transaction; after
// the abort it polls that word until it differs from what was seen (bounded:
// delay_polls polls, ~64 ns apart). An abort without such a lock (a read that
// found a final lock, a moved version) backs off like `backoff`.
//
// Trade-off against backoff: the wait ends as soon as the conflict does, so
// at high contention a retry rarely meets the same holder again and no time is
// slept after it left; the cost is one extra poll loop on a hot lock word.
//
// Progress: an aborted transaction holds no lock while it waits, so waits
// never form a cycle; the bound turns a long-held lock into a plain retry.
#pragma once

#include <cstdint>

#include "cmp/backoff.hpp"
#include "cmp/contention_manager.hpp"
#include "stm/detail/tx_core.hpp"
#include "stm/platform.hpp"

namespace stm::cm {

struct delay : manager_base {
  static constexpr const char* name = "delay";
  /// Most polls of the contended lock word after an abort.
  static constexpr std::uint32_t delay_polls = 256;
  /// Consecutive aborts after which the randomized back-off applies as well.
  static constexpr std::uint32_t repeat_aborts_before_backoff = 8;

  // The lock word that made the last attempt abort, and its value then.
  std::uint32_t* contended = nullptr;
  std::uint32_t seen = 0;

  STM_HD void on_abort(std::uint32_t tid, std::uint32_t attempt, abort_cause cause) const {
    if (contended == nullptr) {
      with_tuning<backoff>(tune).on_abort(tid, attempt, cause);
      return;
    }
    const atomic_ref<std::uint32_t> word(*contended);
    // Relaxed: the retry re-reads every location under the core's own
    // protocol; this load only decides when to start.
    for (std::uint32_t p = 0; p < delay_polls && word.load(memory_order_relaxed) == seen; ++p)
      platform::backoff_ns(64);
    // Under heavy contention the lock changes hands every few microseconds and
    // the poll ends at once; a transaction that keeps failing also backs off.
    if (attempt >= repeat_aborts_before_backoff) with_tuning<backoff>(tune).on_abort(tid, attempt, cause);
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
