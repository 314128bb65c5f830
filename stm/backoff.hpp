// SPDX-License-Identifier: Apache-2.0
// stm/backoff.hpp - the library's one back-off: how a thread waits before it
// tries again, whether it lost a CAS, met a held lock or saw its transaction
// abort. Every waiting loop of the library uses it (the contention managers,
// the transaction table's idle passes, escalation, the containers' CAS loops).
//
// Two forms:
//  - backoff_span_ns(tid, attempt, cap): the randomized exponential back-off
//    of a transaction after its attempt-th consecutive abort, a pseudo-random
//    time in [0, min(cap, 32 ns * 2^attempt)). Stateless: a pure function of
//    (thread, attempt), so a manager can compute it again on every retry and
//    the lanes of a warp that aborted together draw different times.
//  - exp_backoff: the state of one retry loop. Each wait() doubles the next
//    wait, from min_ns up to max_ns; jittered (seeded by a thread id), each
//    wait is drawn at random in [ns/2, 3ns/2) instead, so that threads that
//    failed together (the lanes of a warp) do not retry in lock-step.
// The sleep itself is platform::backoff_ns: __nanosleep on the GPU, a yield
// (short waits) or a sleep on the CPU.
#pragma once

#include <cstdint>

#include "stm/platform.hpp"

namespace stm {

/// Cheap hash of (thread, attempt): the random part of the back-off, so that
/// threads that abort together draw different waits.
STM_HD inline std::uint32_t backoff_hash(std::uint32_t tid, std::uint32_t attempt) {
  std::uint32_t h = (tid + 1u) * 0x9E3779B1u ^ (attempt + 1u) * 0x85EBCA77u;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  return h;
}

/// Randomized exponential back-off after `attempt` consecutive aborts: a
/// pseudo-random time in [0, min(cap_ns, 32 ns * 2^attempt)), 0 when cap_ns
/// is 0 (back-off off).
STM_HD inline std::uint32_t backoff_span_ns(std::uint32_t tid, std::uint32_t attempt, std::uint32_t cap_ns) {
  if (cap_ns == 0) return 0;
  // 32 ns << 22 = 134 ms: above any useful cap, and still a 32-bit value.
  const std::uint32_t shift = attempt < 22 ? attempt : 22;
  std::uint32_t span = 32u << shift;
  if (span > cap_ns) span = cap_ns;
  return backoff_hash(tid, attempt) % span;
}

/// The state of one retry loop: wait(), then try again; every wait doubles the
/// next one, from min_ns up to max_ns. Jittered (seeded by a thread id), each
/// wait is drawn at random in [ns/2, 3ns/2) around the current ns (jittered()).
/// Trivially copyable; lives on the waiting thread's stack.
struct exp_backoff {
  std::uint32_t ns;      ///< the next wait (its mean, when jittered)
  std::uint32_t max_ns;  ///< cap of ns
  std::uint32_t seed = 0;  ///< state of the jitter's linear congruential generator
  bool jitter = false;

  STM_HD constexpr exp_backoff(std::uint32_t min_ns, std::uint32_t max_ns_) : ns(min_ns), max_ns(max_ns_) {}

  /// A jittered back-off whose draws depend on thread `tid`.
  STM_HD static constexpr exp_backoff jittered(std::uint32_t min_ns, std::uint32_t max_ns_, std::uint32_t tid) {
    exp_backoff b(min_ns, max_ns_);
    b.seed = tid * 2654435761u + 1u;
    b.jitter = true;
    return b;
  }

  /// The length of the next wait, in ns, and the wait after it doubled (for a
  /// caller that schedules the pause itself).
  STM_HD std::uint32_t next_ns() {
    std::uint32_t w = ns;
    if (jitter) {
      seed = seed * 1664525u + 1013904223u;
      w = ns / 2 + (ns ? (seed >> 8) % ns : 0u);
    }
    ns = 2ull * ns < max_ns ? 2u * ns : max_ns;
    return w;
  }
  /// Wait next_ns().
  STM_HD void wait() { platform::backoff_ns(next_ns()); }
};

}  // namespace stm
