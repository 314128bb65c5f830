// stm/launch.cuh - run N logical threads of a functor on either backend.
// nvcc translation units only (the GPU kernel is a template defined here).
#pragma once

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

/// Threads per block of every launch_gpu.
inline constexpr std::uint32_t gpu_block_threads = 256;

/// Launch f(tid), tid in [0, n), as one CUDA kernel on the current device and
/// wait for it. Returns the kernel's time in seconds, measured with CUDA events.
/// progress::all_resident refuses (usage_error) a launch that the device cannot
/// keep resident in full, which blocking algorithms need for forward progress.
template <class F>
double launch_gpu(std::uint32_t n, F f, progress p = progress::any) {
  static_assert(detail::is_kernel_functor<F>, "kernel functors are passed by value: keep them trivially copyable");
  if (n == 0) return 0.0;
  const std::uint32_t block = gpu_block_threads;
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

/// Execution policy of the GPU backend (see cpu_exec in stm/launch.hpp).
struct gpu_exec {
  static constexpr backend where = backend::gpu;
  template <class F>
  static double run(std::uint32_t n, F f, progress p = progress::any) { return launch_gpu(n, f, p); }
  template <class T, class Acc = T>
  static Acc sum(const T* data, std::size_t n) {
    return thrust::transform_reduce(thrust::device, data, data + n, detail::widen<T, Acc>{}, Acc{},
                                    thrust::plus<Acc>{});
  }
};

}  // namespace stm
