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
//       again (the core backs off between polls), false to abort the attempt
//       (a read of tx_config Opaque = false polls only if this is true for
//       polls = 0; otherwise it notes the lock, and the commit fails).
//
//   template <class Core> STM_HD void on_read(Core& tx, std::uint32_t i);
//   template <class Core> STM_HD void on_write(Core& tx, std::uint32_t k);
//       Called after read entry tx.reads[i] / a new lock entry tx.locks[k] was
//       added (for managers that keep their own logs; may call tx.fail()).
//       The manager is a member of the descriptor, so it may keep per-
//       transaction state.
//
//   STM_HD void on_start();
//       Before every attempt (the first and each retry): reset such state.
//
//   template <class Core> STM_HD bool acquire(Core& tx);
//       Commit time, for an update transaction: take every lock of
//       tx.locks[0, tx.n_locks) and validate tx.reads[0, tx.n_reads) (see
//       stm/detail/tx_core.hpp for the fields and helpers). On success every
//       lock entry is in state lock_final, owned by tx.tid. On failure:
//       tx.release_unpublished(), tx.fail(cause), return false. A manager that
//       validates reads it does not hold a lock on calls
//       tx.write_set_claimed() once the write set is claimed and before that
//       validation (the commit clock's increment; opaque reads rely on it).
//
// and one of these two, which say how to wait after a failed attempt, before
// the body runs again:
//
//   STM_HD std::uint32_t pause_ns(std::uint32_t tid, std::uint32_t attempt, abort_cause cause) const;
//       How long to pause, in ns, without sleeping it (it may wait for an
//       event first: cmp/delay.hpp polls a lock word, bounded). Every driver
//       schedules it as a deadline (TX_BEGIN/TX_END and TX_FOR through
//       stm/detail/tx_loop.hpp, the transaction table through
//       stm/txtable.hpp; with STM_TX_END_SCHEDULE=0, TX_END sleeps it), so
//       that the other lanes of the warp go on meanwhile and each lane
//       retries at its own time. A const member
//       function: a non-const one is not found. Every built-in manager has it.
//
//   STM_HD void on_abort(std::uint32_t tid, std::uint32_t attempt, abort_cause cause) const;
//       Wait here (used only when there is no pause_ns). Under the one-attempt
//       driver the lanes of a warp leave it together, so the driver adds a
//       randomized stagger that doubles per consecutive abort up to ~1 ms (see
//       transaction::pause_ns in stm/tx.hpp).
//
// Optional:
//
//   static constexpr bool fences_final_locks = true;
//       acquire() ends with fence (A) of stm/detail/tx_core.hpp (a release
//       fence after its last final-lock CAS), so the core's publish() skips
//       it. Without it the core fences. Inherited like any member: a manager
//       derived from one that sets it, with an acquire() that does not end
//       with (A), must set it to false.
//
//   STM_HD bool dooms_read(std::uint32_t word, std::uint32_t tid) const;
//       A read of tx_config Opaque = false loaded lock word `word`: true when
//       the commit of transaction `tid` would fail on it anyway (prstm: a
//       pre-lock of a higher priority). The read notes it and the commit of
//       an update fails (cause prelock) before it takes any lock. A read-only
//       commit ignores the note: its validation looks at the lock words again
//       and fails on any pre-lock still held then. Without it, never.
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
  STM_HD std::uint32_t backoff_span_ns(std::uint32_t tid, std::uint32_t attempt) const {
    if (backoff_max_ns == 0) return 0;
    // 32 ns << 22 = 134 ms: above every cap stm_bench accepts (100 ms), and
    // still a 32-bit value.
    const std::uint32_t shift = attempt < 22 ? attempt : 22;
    std::uint32_t span = 32u << shift;
    if (span > backoff_max_ns || span == 0) span = backoff_max_ns;
    return jitter(tid, attempt) % span;
  }
  /// The same with `default_max_ns` as the cap when the knob is off (0).
  STM_HD std::uint32_t backoff_span_ns(std::uint32_t tid, std::uint32_t attempt, std::uint32_t default_max_ns) const {
    tuning t = *this;
    if (t.backoff_max_ns == 0) t.backoff_max_ns = default_max_ns;
    return t.backoff_span_ns(tid, attempt);
  }
  STM_HD void backoff(std::uint32_t tid, std::uint32_t attempt) const {
    platform::backoff_ns(backoff_span_ns(tid, attempt));
  }

  /// Cheap hash of (thread, attempt): the random part of a manager's waits.
  STM_HD static std::uint32_t jitter(std::uint32_t tid, std::uint32_t attempt) {
    std::uint32_t h = (tid + 1u) * 0x9E3779B1u ^ (attempt + 1u) * 0x85EBCA77u;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    return h;
  }
};

/// What most managers share: the tuning, the wait rule for final locks, and
/// no per-access bookkeeping. A manager derives from it and hides what it
/// does differently.
struct manager_base {
  tuning tune{};

  STM_HD bool wait_on_locked(std::uint32_t polls) const { return polls < tune.wait_polls; }
  STM_HD void on_start() {}
  template <class Core>
  STM_HD void on_read(Core&, std::uint32_t) {}
  template <class Core>
  STM_HD void on_write(Core&, std::uint32_t) {}
};

/// A manager of type CM with the given tuning.
template <class CM>
STM_HD CM with_tuning(const tuning& t) {
  CM m{};
  m.tune = t;
  return m;
}

}  // namespace stm::cm
