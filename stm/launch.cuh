// SPDX-License-Identifier: Apache-2.0
// stm/launch.cuh - run N logical threads of a functor on either backend.
// nvcc translation units only (the GPU kernel is a template defined here).
#pragma once

#if !defined(__CUDACC__)
#error "stm/launch.cuh is the GPU backend: include it from a .cu file compiled by nvcc (stm/launch.hpp is the CPU backend)"
#elif !defined(STM_WITH_CUDA) || !STM_WITH_CUDA
#error "stm/launch.cuh needs -DSTM_WITH_CUDA=1 (link the CMake target stm::stm of a build with the GPU backend, or add -DSTM_WITH_CUDA=1 to the nvcc command line)"
#endif

#include <algorithm>

#include <cuda_runtime.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>
#include <thrust/transform_reduce.h>

#include "stm/backend.hpp"
#include "stm/launch.hpp"

namespace stm {
namespace detail {
template <class T, class Acc>
struct widen {
  __host__ __device__ Acc operator()(const T& v) const { return static_cast<Acc>(v); }
};

template <class F>
__global__ void for_each_thread_kernel(std::uint32_t n, F f) {
  const std::uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < n) f(tid);
}
}  // namespace detail

/// Most threads per block of a launch_gpu.
inline constexpr std::uint32_t gpu_block_threads = 256;

/// Threads per block of a launch_gpu of n threads: gpu_block_threads, but a
/// launch too small to give every SM a full block is spread over all of them
/// (ceil(n / SMs) rounded up to whole warps, at least one warp): in blocks of
/// 256, a launch of a few thousand threads would leave most SMs idle. Every
/// SM then holds at most one block of a small launch, so it is always
/// resident in full (docs/design-decisions.md#small-launch-spread).
inline std::uint32_t gpu_block_for(std::uint32_t n) {
  const std::uint32_t sms = sm_count(backend::gpu);
  const std::uint32_t per_sm_warps = ((n + sms - 1) / sms + 31) / 32;
  return std::min(gpu_block_threads, std::max(1u, per_sm_warps) * 32u);
}

/// Launch f(tid), tid in [0, n), as one CUDA kernel on the current device and
/// wait for it. Returns the kernel's time in seconds, measured with CUDA events.
/// progress::all_resident refuses (usage_error) a launch that the device cannot
/// keep resident in full, which blocking algorithms need for forward progress.
template <class F>
double launch_gpu(std::uint32_t n, F f, progress p = progress::any) {
  static_assert(detail::is_kernel_functor<F>, "kernel functors are passed by value: keep them trivially copyable");
  if (n == 0) return 0.0;
  const std::uint32_t block = gpu_block_for(n);
  const std::uint32_t grid = (n + block - 1) / block;
  if (p == progress::all_resident) {
    int blocks_per_sm = 0;
    STM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, detail::for_each_thread_kernel<F>,
                                                                 static_cast<int>(block), 0));
    const std::uint64_t resident = std::uint64_t(blocks_per_sm) * sm_count(backend::gpu) * block;
    if (std::uint64_t(grid) * block > resident)
      throw usage_error("blocking launch of " + std::to_string(n) + " threads: this device keeps at most " +
                        std::to_string(resident) + " of this kernel's threads resident");
  }
  cudaEvent_t start, stop;
  STM_CUDA_CHECK(cudaEventCreate(&start));
  STM_CUDA_CHECK(cudaEventCreate(&stop));
  STM_CUDA_CHECK(cudaEventRecord(start));
  detail::for_each_thread_kernel<<<grid, block>>>(n, f);
  STM_CUDA_CHECK_LAUNCH("for_each_thread_kernel");
  STM_CUDA_CHECK(cudaEventRecord(stop));
  STM_CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = 0.f;
  STM_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  STM_CUDA_CHECK(cudaEventDestroy(start));
  STM_CUDA_CHECK(cudaEventDestroy(stop));
  return double(ms) * 1e-3;
}

/// How many threads of a launch_gpu of n threads of F the device keeps
/// resident at once (at most n; the rest run in later waves of blocks).
template <class F>
std::uint32_t resident_gpu(std::uint32_t n) {
  if (n == 0) return 0;
  const std::uint32_t block = gpu_block_for(n);
  int blocks_per_sm = 0;
  STM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, detail::for_each_thread_kernel<F>,
                                                               static_cast<int>(block), 0));
  const std::uint64_t resident = std::uint64_t(blocks_per_sm) * sm_count(backend::gpu) * block;
  return resident < n ? static_cast<std::uint32_t>(resident) : n;
}

/// Execution policy of the GPU backend (see cpu_exec in stm/launch.hpp).
struct gpu_exec {
  static constexpr backend where = backend::gpu;
  template <class F>
  static double run(std::uint32_t n, F f, progress p = progress::any) { return launch_gpu(n, f, p); }
  /// Threads of a run(n, F) resident at once (see resident_gpu).
  template <class F>
  static std::uint32_t resident(std::uint32_t n) { return resident_gpu<F>(n); }
  template <class T, class Acc = T>
  static Acc sum(const T* data, std::size_t n) {
    return thrust::transform_reduce(thrust::device, data, data + n, detail::widen<T, Acc>{}, Acc{},
                                    thrust::plus<Acc>{});
  }
};

}  // namespace stm
