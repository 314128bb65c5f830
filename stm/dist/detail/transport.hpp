// SPDX-License-Identifier: Apache-2.0
// stm/dist/detail/transport.hpp - what the distributed transaction needs of a
// transport, and the simulated one.
//
// A transport reaches a 32-bit word (region, pe, index): region data holds
// the values, region locks the PR-STM lock words (stm/lock_word.hpp). It
// offers, all STM_HD and trivially copyable (it travels into kernels):
//
//   std::uint32_t load(region, pe, index, order)       relaxed or acquire
//   void store(region, pe, index, value, order)         relaxed or release
//   bool cas(region, pe, index, expected&, desired)     relaxed; expected gets the old value on failure
//   std::uint32_t fetch_add(region, pe, index, value)   relaxed
//   void fence_seq_cst(), fence_acquire(), fence_release()
//
// The fences order the transport's own operations on every PE, whatever the
// path (the transaction's table of fences, stm/dist/detail/tx.hpp, names what
// each pairs with). Two transports: sim (here: N PEs in one process, each
// PE's words in a buffer of its own, on the CPU or one GPU) and nvshmem
// (stm/dist/nvshmem.hpp: one process per GPU).
#pragma once

#include <cstdint>

#include "stm/platform.hpp"

namespace stm::dist {

enum class region : std::uint32_t { data = 0, locks = 1 };

/// N simulated PEs in one address space: region r of every PE in one array,
/// PE pe's part at base[r] + pe x stride[r] (in the backend's memory). A word's
/// address is arithmetic on the transport's own fields (kernel parameters on
/// the GPU): no table to load in front of every access, which after an
/// acquire fence (an L1 invalidation) would cost a round trip of its own.
/// Atomics are the library's (device scope on the GPU; checked by TSan on the
/// CPU), fences the platform's.
struct sim_transport {
  std::uint32_t* base[2] = {nullptr, nullptr};  // region data, region locks
  std::uint64_t stride[2] = {0, 0};             // words per PE of each region

  STM_HD std::uint32_t* word(region r, std::uint32_t pe, std::uint32_t index) const {
    const std::uint32_t i = static_cast<std::uint32_t>(r);
    return base[i] + pe * stride[i] + index;
  }
  STM_HD std::uint32_t load(region r, std::uint32_t pe, std::uint32_t index,
                            cuda::std::memory_order order = memory_order_relaxed) const {
    return atomic_ref<std::uint32_t>(*word(r, pe, index)).load(order);
  }
  STM_HD void store(region r, std::uint32_t pe, std::uint32_t index, std::uint32_t v,
                    cuda::std::memory_order order = memory_order_relaxed) const {
    atomic_ref<std::uint32_t>(*word(r, pe, index)).store(v, order);
  }
  STM_HD bool cas(region r, std::uint32_t pe, std::uint32_t index, std::uint32_t& expected,
                  std::uint32_t desired) const {
    return atomic_ref<std::uint32_t>(*word(r, pe, index))
        .compare_exchange_strong(expected, desired, memory_order_relaxed, memory_order_relaxed);
  }
  STM_HD std::uint32_t fetch_add(region r, std::uint32_t pe, std::uint32_t index, std::uint32_t v) const {
    return atomic_ref<std::uint32_t>(*word(r, pe, index)).fetch_add(v, memory_order_relaxed);
  }
  STM_HD void fence_seq_cst() const { platform::fence_seq_cst(); }
  STM_HD void fence_acquire() const { platform::fence_acquire(); }
  STM_HD void fence_release() const { platform::fence_release(); }
};

}  // namespace stm::dist
