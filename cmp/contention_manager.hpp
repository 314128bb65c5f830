// cmp/contention_manager.hpp - the interface every contention manager meets,
// and the two runtime knobs they share.
//
// A contention manager is a trivially copyable policy type CM. Device code
// takes it as a template parameter of stm::transaction; the host builds one
// value (with its tuning) per run. It must provide:
//
//   static constexpr const char* name;          // what users type: --cm NAME
//
//   STM_HD bool wait_on_locked(std::uint32_t polls) const;
//       A read or write found its location final-locked (the owner is writing
//       back and will release without waiting for anyone). Return true to poll
//       again (the core backs off between polls), false to abort the attempt.
//
//   template <class Core> STM_HD bool acquire(Core& tx) const;
//       Commit time, for an update transaction: take every lock of
//       tx.locks[0, tx.n_locks) and validate tx.reads[0, tx.n_reads) (see
//       stm/detail/tx_core.hpp for the fields and helpers). On success every
//       lock entry is in state lock_final, owned by tx.tid. On failure:
//       tx.release_unpublished(), tx.fail(cause), return false.
//
//   STM_HD void on_abort(std::uint32_t tid, std::uint32_t attempt, abort_cause cause) const;
//       After a failed attempt, before the body runs again: back off.
//
// The core keeps no policy of its own. A user-written manager meets the same
// interface (tests/cmp has one defined only in the test).
#pragma once

#include <cstdint>

#include "stm/platform.hpp"
#include "stm/stats.hpp"

namespace stm::cm {

/// Runtime knobs every built-in manager takes (stm_bench: --cm-wait,
/// --cm-backoff). Zero turns a knob off.
struct tuning {
  std::uint32_t wait_polls = 0;       ///< polls of a final-locked word before aborting
  std::uint32_t backoff_max_ns = 0;   ///< cap of the randomized exponential back-off after an abort

  /// Randomized exponential back-off: attempt a waits a pseudo-random time in
  /// [0, min(cap, 32 ns * 2^a)), decorrelated across threads by the thread id.
  STM_HD void backoff(std::uint32_t tid, std::uint32_t attempt) const {
    if (backoff_max_ns == 0) return;
    const std::uint32_t shift = attempt < 20 ? attempt : 20;
    std::uint32_t span = 32u << shift;
    if (span > backoff_max_ns || span == 0) span = backoff_max_ns;
    std::uint32_t h = (tid + 1u) * 0x9E3779B1u ^ (attempt + 1u) * 0x85EBCA77u;  // cheap hash of (tid, attempt)
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    platform::backoff_ns(h % span);
  }
};

}  // namespace stm::cm
