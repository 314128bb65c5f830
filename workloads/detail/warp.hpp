// SPDX-License-Identifier: Apache-2.0
// workloads/detail/warp.hpp - sums over the lanes of a warp for the workloads'
// kernels: a warp adds one total to a hot counter instead of 32 atomics.
#pragma once

#include <cstdint>

#include "stm/platform.hpp"

namespace stm::workloads::detail {

/// The lanes of w's warp that run this launch: logical threads are numbered
/// lane by lane and blocks hold whole warps (stm::launch_gpu), so the warp of w
/// holds ids w - lane .. w - lane + 31, those below `workers` live. One thread
/// on the CPU.
STM_HD inline std::uint32_t launch_warp_mask(std::uint32_t w, std::uint32_t workers) {
#if STM_ON_DEVICE
  const std::uint32_t live = workers - (w - stm::platform::lane_id());
  return live >= 32 ? 0xFFFFFFFFu : (1u << live) - 1;
#else
  (void)w;
  (void)workers;
  return 1u;
#endif
}

/// Sum of v over the lanes of `mask`, which must all call it (v itself on the
/// CPU, where a warp is one thread): a butterfly for a whole warp, else every
/// lane reads every other's value.
STM_HD inline long long warp_sum(std::uint32_t mask, long long v) {
#if STM_ON_DEVICE
  if (mask == 0xFFFFFFFFu) {
    const std::uint32_t lane = stm::platform::lane_id();
    for (std::uint32_t d = 16; d > 0; d >>= 1) v += stm::platform::shfl(mask, v, lane ^ d);
    return v;
  }
  long long s = 0;
  for (std::uint32_t rest = mask; rest != 0; rest &= rest - 1) s += stm::platform::shfl(mask, v, stm::platform::lowest_bit(rest));
  return s;
#else
  (void)mask;
  return v;
#endif
}

/// Adds the sum of v over the live lanes of w's warp to *to, one relaxed
/// atomic by the warp's lowest live lane (none when the sum is 0). Every live
/// lane of the warp must call it, at the end of a launch's body: a counter
/// every thread bumps once per launch is a hot address, and 32 times fewer
/// atomics on it is what keeps it off the critical path.
STM_HD inline void add_warp_total(unsigned long long* to, unsigned long long v, std::uint32_t w,
                                  std::uint32_t workers) {
  const std::uint32_t mask = launch_warp_mask(w, workers);
  const unsigned long long total = static_cast<unsigned long long>(warp_sum(mask, static_cast<long long>(v)));
  if (stm::platform::lane_id() == stm::platform::lowest_bit(mask) && total != 0)
    stm::atomic_ref<unsigned long long>(*to).fetch_add(total, stm::memory_order_relaxed);
}

}  // namespace stm::workloads::detail
