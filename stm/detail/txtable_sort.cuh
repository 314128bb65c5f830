// stm/detail/txtable_sort.cuh - txtable::presort() on the GPU (nvcc only):
// one stable radix sort (Thrust, CUB underneath) of the whole table by the key
// (block, 255 - priority), which keeps every block in place and orders it by
// descending priority, ties in their original order.
#pragma once

#include <cstdint>

#include <thrust/device_ptr.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include "stm/error.hpp"

namespace stm::detail {

template <class Entry>
struct presort_key {
  const Entry* entries;
  std::uint32_t per_thread;
  __host__ __device__ std::uint32_t operator()(std::uint64_t i) const {
    const std::uint32_t prio = entries[i].priority();
    return static_cast<std::uint32_t>(i / per_thread) * 256u + (255u - (prio > 255u ? 255u : prio));
  }
};

template <class Entry>
void presort_blocks_gpu(Entry* entries, std::size_t n, std::uint32_t per_thread) {
  if (n == 0) return;
  if (n / per_thread > (0xFFFFFFFFull >> 8))
    throw usage_error("presort: more than 2^24 blocks do not fit the 32-bit sort key");
  thrust::device_vector<std::uint32_t> keys(n);
  thrust::transform(thrust::device, thrust::counting_iterator<std::uint64_t>(0),
                    thrust::counting_iterator<std::uint64_t>(n), keys.begin(),
                    presort_key<Entry>{entries, per_thread});
  thrust::stable_sort_by_key(thrust::device, keys.begin(), keys.end(), thrust::device_pointer_cast(entries));
  STM_CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace stm::detail
