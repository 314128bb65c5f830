// SPDX-License-Identifier: Apache-2.0
// stm/platform.hpp - the only place that knows GPU from CPU.
//
// Every concurrent algorithm in this library is written once as
// STM_HD (__host__ __device__) code over cuda::atomic_ref with device scope.
// On the GPU it runs in CUDA kernels; on the CPU the same functions run on
// std::threads, where a "warp" is a single thread and device scope is moot
// (x86 is strongly ordered), so only a GPU run proves the fences.
//
// Rules the rest of the code follows:
//  - algorithms take the logical thread id as an argument (no threadIdx);
//  - a shared location is only ever reached through atomic_ref<..., device>;
//  - atomics are aligned to their size.
#pragma once

// Under nvcc the library builds its GPU backend, which needs STM_WITH_CUDA=1
// (the CMake target stm::stm defines it: 1 with the GPU backend, 0 without).
#if defined(__CUDACC__) && !defined(STM_WITH_CUDA)
#error "prstm: compiling with nvcc needs -DSTM_WITH_CUDA=1 (link the CMake target stm::stm, which sets it, or add -DSTM_WITH_CUDA=1 to the nvcc command line)"
#endif
// nvcc hands a .cpp file to the host compiler as plain C++ (__NVCC__ without
// __CUDACC__): its kernels and STM_HD code would not be built for the GPU. A
// host-only file of a GPU program (it allocates, launches nothing itself)
// says so with STM_HOST_ONLY_FILE.
#if defined(__NVCC__) && !defined(__CUDACC__) && defined(STM_WITH_CUDA) && !defined(STM_HOST_ONLY_FILE)
#if STM_WITH_CUDA
#error "prstm: nvcc is compiling this file as host C++ (a .cpp file) with STM_WITH_CUDA=1: nothing in it is built for the GPU. Name it .cu or pass -x cu (for a host-only file of a GPU program, define STM_HOST_ONLY_FILE)"
#endif
#endif

#include <cstdint>
#include <cuda/atomic>
#if defined(__CUDACC__)
#include <cuda/ptx>
#endif

#if !defined(__CUDA_ARCH__)
#include <chrono>
#include <thread>
#endif

#if defined(__CUDACC__)
#define STM_HD __host__ __device__
#define STM_DEVICE __device__
#else
#define STM_HD
#define STM_DEVICE
#endif

/// Keep the next function out of line (one copy for every caller).
#if defined(__CUDACC__)
#define STM_NOINLINE __noinline__
#elif defined(__GNUC__) || defined(__clang__)
#define STM_NOINLINE __attribute__((noinline))
#else
#define STM_NOINLINE
#endif

/// Keep the next loop rolled (a rare path whose copies would only cost registers).
#if defined(__CUDA_ARCH__)
#define STM_NO_UNROLL _Pragma("unroll 1")
#else
#define STM_NO_UNROLL
#endif

/// Unroll the next loop (fixed trip count): nvcc's pragma, or GCC's.
#if defined(__CUDA_ARCH__) || defined(__clang__)
#define STM_UNROLL _Pragma("unroll")
#elif defined(__CUDACC__)
#define STM_UNROLL  // host pass of nvcc: the device pass unrolls
#elif defined(__GNUC__)
#define STM_UNROLL _Pragma("GCC unroll 16")
#else
#define STM_UNROLL
#endif

#if defined(__CUDA_ARCH__)
#define STM_ON_DEVICE 1
#else
#define STM_ON_DEVICE 0
#endif

#if !defined(STM_PERTURB)
#define STM_PERTURB 0
#endif

namespace stm {

using cuda::std::memory_order_acq_rel;
using cuda::std::memory_order_acquire;
using cuda::std::memory_order_relaxed;
using cuda::std::memory_order_release;
using cuda::std::memory_order_seq_cst;

#if STM_PERTURB
}  // namespace stm
#include "stm/detail/perturb.hpp"
namespace stm {
/// Schedule-perturbation build (CMake option STM_PERTURB, for tests): the same
/// atomic reference, with a random delay before and after every
/// read-modify-write and every acquire load (stm/detail/perturb.hpp).
template <class T>
using atomic_ref = platform::perturb::perturbed_atomic_ref<T>;
#else
/// The atomic reference every algorithm uses: device scope, so that one
/// object is never reached through atomic_refs of different scopes.
template <class T>
using atomic_ref = cuda::atomic_ref<T, cuda::thread_scope_device>;
#endif

namespace platform {

/// Device-scope fences. Callers name the operation each one pairs with.
STM_HD inline void fence_seq_cst() { cuda::atomic_thread_fence(memory_order_seq_cst, cuda::thread_scope_device); }

// One-way acquire and release fences exist from sm_90 (PTX ISA 8.6), and the
// C++ fences of those orders map to them (as LLVM's NVPTX back end does);
// libcu++'s atomic_thread_fence still emits fence.acq_rel for both. An
// acquire fence is an L1 invalidation, much cheaper than the full barrier of
// fence.acq_rel; a release fence is the barrier without the invalidation
// (tools/fence_latency.cu measures them; docs/design-decisions.md#split-fences).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && defined(__cccl_ptx_isa) && __cccl_ptx_isa >= 860
#define STM_SPLIT_FENCES 1
#else
#define STM_SPLIT_FENCES 0
#endif
STM_HD inline void fence_acquire() {
#if STM_SPLIT_FENCES
  cuda::ptx::fence(cuda::ptx::sem_acquire, cuda::ptx::scope_gpu);
#else
  cuda::atomic_thread_fence(memory_order_acquire, cuda::thread_scope_device);
#endif
}
STM_HD inline void fence_release() {
#if STM_SPLIT_FENCES
  cuda::ptx::fence(cuda::ptx::sem_release, cuda::ptx::scope_gpu);
#else
  cuda::atomic_thread_fence(memory_order_release, cuda::thread_scope_device);
#endif
}

/// Hide v's value from the optimizer here (no instruction is emitted): a
/// computation on v written after this point cannot be merged with an equal
/// one before it, nor hoisted above an earlier volatile asm such as a fence.
STM_HD inline void hide_from_optimizer(std::uint32_t& v) {
#if STM_ON_DEVICE
  asm volatile("" : "+r"(v));
#else
  (void)v;
#endif
}

/// Keeps the tests of atomic results below the fence that follows the atomics,
/// so that the warp issues the fence while the atomics are in flight instead
/// of waiting for their round trip first. hide_from_optimizer() keeps the test
/// there in the intermediate code, but the device back end may still hoist it
/// above the fence; a value loaded from local memory after the fence cannot
/// be computed before it, so adding it (zero) to a result ties the test to
/// it. Declare one before the atomics, read zero() after the fence (one L1
/// load).
struct fence_anchor {
#if STM_ON_DEVICE
  volatile std::uint32_t word = 0;  // local memory: its load stays below the fence
  STM_HD std::uint32_t zero() const { return word; }
#else
  STM_HD std::uint32_t zero() const { return 0; }
#endif
};

/// Back off for roughly `ns` nanoseconds: __nanosleep on the GPU (which sleeps
/// at most about a millisecond per call, so longer waits loop), a yield on the
/// CPU for short waits (host threads are often oversubscribed, so sleeping in
/// ns units would be far coarser than asked) and a real sleep for long ones.
STM_HD inline void backoff_ns(std::uint32_t ns) {
#if STM_ON_DEVICE
  constexpr std::uint32_t chunk = 1000000u;
  for (; ns > chunk; ns -= chunk) __nanosleep(chunk);
  __nanosleep(ns);
#else
  if (ns >= 100000u) std::this_thread::sleep_for(std::chrono::nanoseconds(ns));
  else std::this_thread::yield();
#endif
}

#if !STM_ON_DEVICE
/// Nanoseconds of the steady clock (the CPU's clock for both uses below).
inline std::uint64_t steady_ns() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}
#endif

/// A lane's clock for scheduling pauses: SM cycles on the GPU (clock64; a
/// warp stays on its SM, and pauses need no cross-SM agreement), nanoseconds
/// of the steady clock on the CPU.
STM_HD inline std::uint64_t ticks() {
#if STM_ON_DEVICE
  return static_cast<std::uint64_t>(clock64());
#else
  return steady_ns();
#endif
}

/// Nanoseconds of a clock every thread of the device (or process) shares:
/// %globaltimer on the GPU (its resolution may be as coarse as a microsecond),
/// the steady clock on the CPU. For measuring, not for scheduling pauses.
STM_HD inline std::uint64_t global_ns() {
#if STM_ON_DEVICE
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
#else
  return steady_ns();
#endif
}

/// Ticks per nanosecond: 2 on the GPU (SM clocks of current data-center GPUs
/// run at up to about 2 GHz, slower under load, so a pause may be somewhat
/// longer than asked), 1 on the CPU.
STM_HD inline constexpr std::uint32_t ticks_per_ns() {
#if STM_ON_DEVICE
  return 2u;
#else
  return 1u;
#endif
}

/// Warp geometry: 32 lanes on the GPU, one on the CPU.
STM_HD inline constexpr std::uint32_t warp_size() {
#if STM_ON_DEVICE
  return 32u;
#else
  return 1u;
#endif
}

STM_HD inline std::uint32_t lane_id() {
#if STM_ON_DEVICE
  std::uint32_t lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
#else
  return 0u;
#endif
}

/// Index of the SM this thread runs on (%smid; 0 on the CPU). It may change
/// between calls (a preempted block can resume elsewhere) and may exceed the SM
/// count, so use it only to spread work, e.g. modulo the SM count.
STM_HD inline std::uint32_t sm_id() {
#if STM_ON_DEVICE
  std::uint32_t id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
#else
  return 0u;
#endif
}

/// Warps of the running launch per SM: its threads (grid x block) in warps,
/// over %nsmid (the range of SM ids: at least the SM count, so at most an
/// underestimate), rounded down; 1 on the CPU. What the launch asks for, not
/// what is resident (a launch larger than the GPU holds runs in waves and
/// counts them all).
STM_HD inline std::uint32_t launch_warps_per_sm() {
#if STM_ON_DEVICE
  std::uint32_t sms;
  asm("mov.u32 %0, %%nsmid;" : "=r"(sms));
  const std::uint64_t threads =
      std::uint64_t(gridDim.x) * gridDim.y * gridDim.z * (std::uint64_t(blockDim.x) * blockDim.y * blockDim.z);
  return static_cast<std::uint32_t>(threads / 32u / (sms != 0 ? sms : 1u));
#else
  return 1u;
#endif
}

/// Mask of the lanes that execute this call together (1 on the CPU).
STM_HD inline std::uint32_t active_mask() {
#if STM_ON_DEVICE
  return __activemask();
#else
  return 1u;
#endif
}

STM_HD inline std::uint32_t ballot(std::uint32_t mask, bool pred) {
#if STM_ON_DEVICE
  return __ballot_sync(mask, pred);
#else
  (void)mask;
  return pred ? 1u : 0u;
#endif
}

template <class T>
STM_HD inline T shfl(std::uint32_t mask, T v, std::uint32_t src_lane) {
#if STM_ON_DEVICE
  return __shfl_sync(mask, v, static_cast<int>(src_lane));
#else
  (void)mask;
  (void)src_lane;
  return v;
#endif
}

#if STM_ON_DEVICE && __CUDA_ARCH__ < 800
/// The reductions below before sm_80 (no __reduce_*_sync): every lane of mask
/// reads every other's value and folds it into `acc` with op.
template <class Op>
__device__ inline std::uint32_t fold_lanes(std::uint32_t mask, std::uint32_t v, std::uint32_t acc, Op op) {
  for (std::uint32_t rest = mask; rest != 0; rest &= rest - 1)
    acc = op(acc, __shfl_sync(mask, v, __ffs(static_cast<int>(rest)) - 1));
  return acc;
}
#endif

/// Minimum of v over the lanes of mask (every lane of mask must call it).
STM_HD inline std::uint32_t reduce_min(std::uint32_t mask, std::uint32_t v) {
#if STM_ON_DEVICE && __CUDA_ARCH__ >= 800
  return __reduce_min_sync(mask, v);
#elif STM_ON_DEVICE
  return fold_lanes(mask, v, v, [](std::uint32_t a, std::uint32_t b) { return b < a ? b : a; });
#else
  (void)mask;
  return v;
#endif
}

/// Maximum of v over the lanes of mask (every lane of mask must call it).
STM_HD inline std::uint32_t reduce_max(std::uint32_t mask, std::uint32_t v) {
#if STM_ON_DEVICE && __CUDA_ARCH__ >= 800
  return __reduce_max_sync(mask, v);
#elif STM_ON_DEVICE
  return fold_lanes(mask, v, v, [](std::uint32_t a, std::uint32_t b) { return b > a ? b : a; });
#else
  (void)mask;
  return v;
#endif
}

/// Sum of v over the lanes of mask (every lane of mask must call it).
STM_HD inline std::uint32_t reduce_add(std::uint32_t mask, std::uint32_t v) {
#if STM_ON_DEVICE && __CUDA_ARCH__ >= 800
  return __reduce_add_sync(mask, v);
#elif STM_ON_DEVICE
  return fold_lanes(mask, v, 0u, [](std::uint32_t a, std::uint32_t b) { return a + b; });
#else
  (void)mask;
  return v;
#endif
}

STM_HD inline std::uint32_t popc(std::uint32_t x) {
#if STM_ON_DEVICE
  return static_cast<std::uint32_t>(__popc(x));
#else
  return static_cast<std::uint32_t>(__builtin_popcount(x));
#endif
}

/// Index (0-based) of the lowest set bit; x must be non-zero.
STM_HD inline std::uint32_t lowest_bit(std::uint32_t x) {
#if STM_ON_DEVICE
  return static_cast<std::uint32_t>(__ffs(static_cast<int>(x)) - 1);
#else
  return static_cast<std::uint32_t>(__builtin_ctz(x));
#endif
}

#ifndef STM_CLAIM_AGGREGATED
#define STM_CLAIM_AGGREGATED 0
#endif

/// counter.fetch_add(1, relaxed) for the calling lanes as a group, each
/// lane's result its own: the lowest lane adds their number and hands each
/// its base plus its rank among them through __shfl_sync, which waits for
/// every lane of the mask. One atomic per group instead of one per lane: for
/// a hot counter whose callers are converged at the call and where a lane's
/// own atomic would be the bottleneck (the ticket queue's tickets). Not for
/// indices claimed deep in divergent code: see claim_index.
template <class T>
STM_HD inline T claim_index_warp(T& counter) {
#if STM_ON_DEVICE
  const std::uint32_t mask = active_mask();
  const std::uint32_t lane = lane_id();
  const std::uint32_t leader = lowest_bit(mask);
  T base = 0;
  if (lane == leader) base = atomic_ref<T>(counter).fetch_add(static_cast<T>(popc(mask)), memory_order_relaxed);
  base = shfl(mask, base, leader);
  return base + static_cast<T>(popc(mask & ((1u << lane) - 1u)));
#else
  return atomic_ref<T>(counter).fetch_add(T(1), memory_order_relaxed);
#endif
}

/// counter.fetch_add(1, relaxed) for each calling lane, the result being the
/// lane's own: unique per call (an index to claim: a pool slot, a history
/// slot). One atomic per lane, never a warp collective: no lane's index
/// depends on another lane, a shuffle or reconvergence, which a claim made
/// deep in divergent code (the node pools') must not
/// (docs/design-decisions.md#claimed-indices). The increment is
/// popc(%lanemask_eq), always 1 but not provably warp-uniform, because the
/// compiler turns a fetch_add of a uniform increment into a warp-shared
/// claim of its own. STM_CLAIM_AGGREGATED=1 at compile time makes it
/// claim_index_warp (tools/experiments/claim_index/).
template <class T>
STM_HD inline T claim_index(T& counter) {
#if STM_CLAIM_AGGREGATED
  return claim_index_warp(counter);
#elif STM_ON_DEVICE
  std::uint32_t self;
  asm volatile("mov.u32 %0, %%lanemask_eq;" : "=r"(self));  // one bit: this lane
  return atomic_ref<T>(counter).fetch_add(static_cast<T>(popc(self)), memory_order_relaxed);
#else
  return atomic_ref<T>(counter).fetch_add(T(1), memory_order_relaxed);
#endif
}

}  // namespace platform
}  // namespace stm
