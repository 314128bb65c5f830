// SPDX-License-Identifier: Apache-2.0
// containers/stack/detail/backoff.hpp - bounded, jittered exponential back-off
// after a failed CAS on a hot word (the "future work" of Azad, Sehgal and
// Patel's GPU Treiber stack).
#pragma once

#include <cstdint>

#include "stm/backoff.hpp"
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
/// The library's back-off (stm/backoff.hpp), jittered by the thread id.
struct backoff : exp_backoff {
  STM_HD backoff(const backoff_config& c, std::uint32_t tid)
      : exp_backoff(exp_backoff::jittered(c.min_ns, c.max_ns, tid)) {}
};
}  // namespace detail
}  // namespace stm::stack
