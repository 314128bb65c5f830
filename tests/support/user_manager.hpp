// SPDX-License-Identifier: Apache-2.0
// tests/support/user_manager.hpp - a contention manager written only in the
// tests, against the documented interface (stm/manager.hpp) and
// nothing else. The manager tests (tests/cmp) and the recorded-history tests
// (tests/history) run it beside the built-in ones.
#pragma once

#include <cstdint>
#include <type_traits>

#include "stm/lock_word.hpp"
#include "stm/manager.hpp"
#include "stm/platform.hpp"

namespace stm_test {

// Against the documented interface (stm/manager.hpp) and nothing
// else: take the final lock of every write directly at commit, in ascending
// lock order (no pre-lock phase, no priorities), abort on any held lock,
// validate after a seq_cst fence, randomized exponential back-off. It counts
// its hooks to show they are called.
struct user_direct_lock {
  static constexpr const char* name = "user_direct_lock";
  std::uint32_t hooks = 0;

  STM_HD bool wait_on_locked(std::uint32_t polls) const { return polls < 4; }
  // Randomized, doubling up to 1 ms (stm/backoff.hpp).
  STM_HD void on_abort(std::uint32_t tid, std::uint32_t attempt, stm::abort_cause) const {
    stm::platform::backoff_ns(stm::backoff_span_ns(tid, attempt, 1000000));
  }
  STM_HD void on_start() { hooks = 0; }
  template <class Core>
  STM_HD void on_read(Core&, std::uint32_t) { ++hooks; }
  template <class Core>
  STM_HD void on_write(Core&, std::uint32_t) { ++hooks; }

  template <class Core>
  STM_HD bool acquire(Core& tx) {
    if (hooks == 0) return fail(tx, stm::abort_cause::validation);  // an update always passed on_write
    // Ascending lock order: a committer blocked on lock L is blocked by one
    // whose next lock is above L, so every chain of blocked committers ends at
    // one that holds all its locks. In write order (from, to), cycles of partial
    // lockings abort each other, and a few accounts under thousands of threads
    // commit nothing for minutes (docs/design-decisions.md#user-manager-lock-order).
    for (std::uint32_t k = 1; k < tx.n_locks; ++k)
      for (std::uint32_t j = k; j > 0 && tx.locks[j].lock < tx.locks[j - 1].lock; --j) {
        const auto t = tx.locks[j];
        tx.locks[j] = tx.locks[j - 1];
        tx.locks[j - 1] = t;
      }
    for (std::uint32_t k = 0; k < tx.n_locks; ++k) {
      auto& e = tx.locks[k];
      std::uint32_t expect = stm::lock_word::make_unlocked(e.version);
      if (!tx.table.word(e.lock).compare_exchange_strong(expect, stm::lock_word::make_locked(e.version, tx.tid),
                                                         stm::memory_order_relaxed))
        return fail(tx, stm::abort_cause::lock);
      e.state = stm::lock_final;
    }
    tx.write_set_claimed();  // (K) of a commit clock, if the table keeps one: before the validation
    // Final locks before read validation; pairs with this same fence of every
    // other committer (of two that each lock what the other reads, one sees it).
    stm::platform::fence_seq_cst();
    for (std::uint32_t i = 0; i < tx.n_reads; ++i) {
      const auto& r = tx.reads[i];
      bool ours = false;
      for (std::uint32_t k = 0; k < tx.n_locks; ++k)
        if (tx.locks[k].lock == r.lock) {
          if (tx.locks[k].version != r.version()) return fail(tx, stm::abort_cause::validation);
          ours = true;
        }
      if (!ours) {
        const std::uint32_t w = tx.table.word(r.lock).load(stm::memory_order_relaxed);
        if (!stm::lock_word::is_free(w) || stm::lock_word::version(w) != r.version()) return fail(tx, stm::abort_cause::validation);
      }
      if (stm::load_word(r.addr, r.size) != r.value) return fail(tx, stm::abort_cause::validation);
    }
    return true;
  }

 private:
  template <class Core>
  STM_HD static bool fail(Core& tx, stm::abort_cause c) {
    tx.release_unpublished();
    tx.fail(c);
    return false;
  }
};
static_assert(std::is_trivially_copyable_v<user_direct_lock>);

}  // namespace stm_test
