// SPDX-License-Identifier: Apache-2.0
// stm/detail/txtable_sort.cuh - txtable::presort() on the GPU (nvcc only).
// The table is interleaved (thread t's j-th entry at j * threads + t). One
// stable radix sort (Thrust, CUB underneath) of a copy by the key
// (thread, 255 - priority) gathers each thread's block in order of descending
// priority, ties in their original order (for one thread, table order is block
// order); a scatter puts every block back in its interleaved places.
#pragma once

#include <cstdint>

#include <thrust/device_ptr.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/scatter.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include "stm/error.hpp"

namespace stm::detail {

template <class Entry>
struct presort_key {
  const Entry* entries;
  std::uint32_t threads;
  __host__ __device__ std::uint32_t operator()(std::uint64_t i) const {
    const std::uint32_t prio = entries[i].priority();
    return static_cast<std::uint32_t>(i % threads) * 256u + (255u - (prio > 255u ? 255u : prio));
  }
};

/// Block position b = t * per_thread + j -> its interleaved position.
struct interleave_map {
  std::uint32_t threads, per_thread;
  __host__ __device__ std::uint64_t operator()(std::uint64_t b) const {
    return txtable_index(static_cast<std::uint32_t>(b / per_thread), static_cast<std::uint32_t>(b % per_thread), threads);
  }
};

template <class Entry>
void presort_blocks_gpu(Entry* entries, std::uint32_t threads, std::uint32_t per_thread) {
  const std::uint64_t n = std::uint64_t(threads) * per_thread;
  if (n == 0) return;
  if (threads > (0xFFFFFFFFu >> 8))
    throw usage_error("presort: more than 2^24 threads do not fit the 32-bit sort key");
  const auto table = thrust::device_pointer_cast(entries);
  thrust::device_vector<std::uint32_t> keys(n);
  thrust::transform(thrust::device, thrust::counting_iterator<std::uint64_t>(0),
                    thrust::counting_iterator<std::uint64_t>(n), keys.begin(), presort_key<Entry>{entries, threads});
  thrust::device_vector<Entry> blocks(table, table + n);
  thrust::stable_sort_by_key(thrust::device, keys.begin(), keys.end(), blocks.begin());
  thrust::scatter(thrust::device, blocks.begin(), blocks.end(),
                  thrust::make_transform_iterator(thrust::counting_iterator<std::uint64_t>(0),
                                                  interleave_map{threads, per_thread}),
                  table);
  STM_CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace stm::detail
