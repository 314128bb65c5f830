// SPDX-License-Identifier: Apache-2.0
// stm/launch.hpp - run N logical threads of a functor on the CPU backend.
//
// A functor is any trivially copyable callable `void(std::uint32_t tid)` that is
// STM_HD; tid runs over [0, n). The GPU counterpart, launch_gpu(), and the
// dispatching launch(backend, ...) live in stm/launch.cuh, which only nvcc
// translation units include. A functor launched on the GPU becomes a template
// argument of a kernel, and CUDA forbids a type local to a host function
// there: declare the functor's struct at namespace scope, or pass an extended
// lambda ([=] STM_HD (std::uint32_t tid) {...}, nvcc --extended-lambda, which
// the CMake target stm::stm sets).
//
// Forward progress. Non-blocking code (every STM transaction, lock-free
// containers) runs with progress::any: on the CPU a pool of OS threads takes
// the logical ids in turn. Blocking code (ticket queue waits, spin barriers)
// needs every logical thread resident at once: progress::all_resident gives
// each logical thread its own OS thread on the CPU, and on the GPU refuses a
// launch larger than the device can keep resident.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "stm/backend.hpp"
#include "stm/error.hpp"

namespace stm {
namespace detail {
/// Functors cross into kernels by value. nvcc wraps extended __host__
/// __device__ lambdas in a type the standard trait does not see through.
#if defined(__CUDACC__)
template <class F>
inline constexpr bool is_kernel_functor = std::is_trivially_copyable_v<F> ||
                                          __nv_is_extended_host_device_lambda_closure_type(F) ||
                                          __nv_is_extended_device_lambda_closure_type(F);
#else
template <class F>
inline constexpr bool is_kernel_functor = std::is_trivially_copyable_v<F>;
#endif
}  // namespace detail

enum class progress { any, all_resident };

/// Most OS threads launch_cpu starts for progress::any (oversubscribing a small
/// machine on purpose: more interleavings, as on a GPU).
inline constexpr std::uint32_t cpu_pool_threads = 64;
/// Most OS threads launch_cpu starts for progress::all_resident.
inline constexpr std::uint32_t cpu_max_resident = 8192;

/// Run f(tid) for tid in [0, n) on std::threads; returns wall seconds.
///
/// Every OS thread is started before any of them calls f: they wait at a gate
/// that opens once all exist. When the system refuses a thread (too many
/// threads, no memory for a stack), the gate opens with "stop" instead, the
/// threads already started return without calling f and are joined, and
/// launch_cpu throws std::runtime_error saying how many it could start. This
/// matters for progress::all_resident, where a started thread may wait for
/// one that never came.
template <class F>
double launch_cpu(std::uint32_t n, F f, progress p = progress::any) {
  static_assert(detail::is_kernel_functor<F>, "kernel functors are passed by value: keep them trivially copyable");
  if (n == 0) return 0.0;
  if (p == progress::all_resident && n > cpu_max_resident)
    throw usage_error("blocking launch of " + std::to_string(n) + " threads: the CPU backend runs at most " +
                      std::to_string(cpu_max_resident) + " resident threads");
  const std::uint32_t workers = p == progress::all_resident ? n : std::min(n, cpu_pool_threads);
  std::vector<std::thread> pool;
  pool.reserve(workers);
  std::exception_ptr failure;
  std::mutex failure_mutex;
  enum class gate { closed, go, stop };
  gate state = gate::closed;
  std::mutex gate_mutex;
  std::condition_variable gate_open;
  auto open = [&](gate g) {
    {
      std::lock_guard<std::mutex> lock(gate_mutex);
      state = g;
    }
    gate_open.notify_all();
  };
  std::string refused;
  for (std::uint32_t w = 0; w < workers; ++w) {
    try {
      pool.emplace_back([=, &failure, &failure_mutex, &state, &gate_mutex, &gate_open] {
        {
          std::unique_lock<std::mutex> lock(gate_mutex);
          gate_open.wait(lock, [&] { return state != gate::closed; });
          if (state == gate::stop) return;
        }
        try {
          // 64-bit ids: tid + workers must not wrap for n near 2^32.
          for (std::uint64_t tid = w; tid < n; tid += workers) f(static_cast<std::uint32_t>(tid));
        } catch (...) {
          std::lock_guard<std::mutex> lock(failure_mutex);
          if (!failure) failure = std::current_exception();
        }
      });
    } catch (const std::exception& e) {  // std::system_error, std::bad_alloc
      refused = e.what();
      break;
    }
  }
  if (!refused.empty()) {
    open(gate::stop);
    for (auto& t : pool) t.join();
    throw std::runtime_error("the CPU backend could start only " + std::to_string(pool.size()) + " of the " +
                             std::to_string(workers) + " threads of a launch (" + refused +
                             "): lower the thread count or raise the process limits");
  }
  const auto t0 = std::chrono::steady_clock::now();
  open(gate::go);
  for (auto& t : pool) t.join();
  const auto t1 = std::chrono::steady_clock::now();
  if (failure) std::rethrow_exception(failure);
  return std::chrono::duration<double>(t1 - t0).count();
}

/// Execution policy of the CPU backend. Code written once over an execution
/// policy (workloads, tests) is instantiated with cpu_exec in any translation
/// unit and with gpu_exec (stm/launch.cuh) in nvcc translation units.
struct cpu_exec {
  static constexpr backend where = backend::cpu;
  /// Run f(tid) for tid in [0, n); returns seconds.
  template <class F>
  static double run(std::uint32_t n, F f, progress p = progress::any) { return launch_cpu(n, f, p); }
  /// Threads of a run(n, F) that run at once, as far as code written over an
  /// execution policy should plan for: all n (the pool interleaves them).
  template <class F>
  static std::uint32_t resident(std::uint32_t n) { return n; }
  /// Sum of n elements of a buffer of this backend, accumulated in Acc.
  template <class T, class Acc = T>
  static Acc sum(const T* data, std::size_t n) {
    Acc s{};
    for (std::size_t i = 0; i < n; ++i) s += static_cast<Acc>(data[i]);
    return s;
  }
};

}  // namespace stm
