// SPDX-License-Identifier: Apache-2.0
// stm/backend.hpp - the two execution backends and what the host knows of them.
//
//   backend::gpu  CUDA kernels on the current device (needs a build with
//                 STM_WITH_CUDA and a device at run time);
//   backend::cpu  std::threads running the same __host__ __device__ code.
//
// parse_backend("auto") picks the GPU when one is present, else the CPU.
#pragma once

#include <cstdint>
#include <string>
#include <thread>

#include "stm/error.hpp"

namespace stm {

enum class backend { cpu, gpu };

inline const char* to_string(backend b) { return b == backend::gpu ? "gpu" : "cpu"; }

/// True when this build has the GPU backend and a CUDA device is usable.
inline bool gpu_available() {
#if STM_WITH_CUDA
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();  // clear the sticky "no device" error
    return false;
  }
  return n > 0;
#else
  return false;
#endif
}

/// "cpu", "gpu" or "auto"; throws usage_error for anything else, or for "gpu"
/// when no device (or no GPU backend) is there.
inline backend parse_backend(const std::string& name) {
  if (name == "cpu") return backend::cpu;
  if (name == "gpu" || name == "auto") {
    if (gpu_available()) return backend::gpu;
    if (name == "auto") return backend::cpu;
#if STM_WITH_CUDA
    throw usage_error("the GPU backend was asked for, but no CUDA device is available on this machine");
#else
    throw usage_error("the GPU backend was asked for, but this build has none (it needs nvcc and "
                      "STM_WITH_CUDA=1; with CMake, configure where nvcc is found or with PRSTM_ENABLE_CUDA=ON)");
#endif
  }
  throw usage_error("unknown backend '" + name + "' (known: cpu, gpu, auto)");
}

/// Human-readable device name (the CUDA device's name, or the CPU thread count).
inline std::string device_name(backend b) {
#if STM_WITH_CUDA
  if (b == backend::gpu) {
    int dev = 0;
    cudaDeviceProp prop{};
    STM_CUDA_CHECK(cudaGetDevice(&dev));
    STM_CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
    return prop.name;
  }
#endif
  (void)b;
  return "cpu (" + std::to_string(std::thread::hardware_concurrency()) + " hardware threads)";
}

#if STM_WITH_CUDA
namespace detail {
/// An attribute of the current CUDA device.
inline std::uint32_t device_attribute(cudaDeviceAttr a) {
  int dev = 0, v = 0;
  STM_CUDA_CHECK(cudaGetDevice(&dev));
  STM_CUDA_CHECK(cudaDeviceGetAttribute(&v, a, dev));
  return static_cast<std::uint32_t>(v);
}
}  // namespace detail
#endif

/// Streaming multiprocessors of the current device on the GPU; 1 on the CPU.
inline std::uint32_t sm_count(backend b) {
#if STM_WITH_CUDA
  if (b == backend::gpu) return detail::device_attribute(cudaDevAttrMultiProcessorCount);
#endif
  (void)b;
  return 1u;
}

/// Threads the backend can keep resident at once: SMs x max threads per SM on
/// the GPU ("full occupancy"), hardware threads on the CPU.
inline std::uint32_t full_occupancy(backend b) {
#if STM_WITH_CUDA
  if (b == backend::gpu) return sm_count(b) * detail::device_attribute(cudaDevAttrMaxThreadsPerMultiProcessor);
#endif
  (void)b;
  auto hw = std::thread::hardware_concurrency();
  return hw ? hw : 1u;
}

}  // namespace stm
