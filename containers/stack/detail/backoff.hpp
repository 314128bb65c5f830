// containers/stack/detail/backoff.hpp - bounded, jittered exponential back-off
// after a failed CAS on a hot word (the "future work" of Azad, Sehgal and
// Patel's GPU Treiber stack).
#pragma once

#include <cstdint>

#include "stm/platform.hpp"

namespace stm::stack {

/// Back-off between CAS retries on a contended word, in nanoseconds: starts at
/// min_ns, doubles after every failure up to max_ns; each wait is jittered by
/// the thread id so that a warp's leaders do not retry in lock-step.
struct backoff_config {
  std::uint32_t min_ns = 64;
  std::uint32_t max_ns = 8192;
};

namespace detail {
struct backoff {
  std::uint32_t ns, max_ns, seed;
  STM_HD backoff(const backoff_config& c, std::uint32_t tid) : ns(c.min_ns), max_ns(c.max_ns), seed(tid * 2654435761u + 1u) {}
  STM_HD void wait() {
    seed = seed * 1664525u + 1013904223u;
    const std::uint32_t jitter = ns ? (seed >> 8) % ns : 0u;
    platform::backoff_ns(ns / 2 + jitter);
    ns = ns * 2 < max_ns ? ns * 2 : max_ns;
  }
};
}  // namespace detail
}  // namespace stm::stack
