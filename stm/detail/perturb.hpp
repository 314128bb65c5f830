// SPDX-License-Identifier: Apache-2.0
// stm/detail/perturb.hpp - the schedule-perturbation mode of the platform
// layer (built only with STM_PERTURB=1, the CMake option PRSTM_PERTURB;
// stm/platform.hpp includes it, and without the option nothing of it exists).
//
// Every atomic the library's algorithms perform goes through stm::atomic_ref.
// In this mode that is perturbed_atomic_ref, which calls point() before and
// after each read-modify-write and each load whose order is stronger than
// relaxed. A point delays the calling thread with a probability (the rate):
//   GPU: __nanosleep of a random span up to max_ns. Each lane draws on its own
//        (hash of the seed, the thread id, the SM clock and the address), so
//        some lanes of a warp sleep while the others go on: the warp diverges
//        at places where natural runs keep it converged.
//   CPU: a yield (7 draws in 8) or a sleep of up to max_ns (1 in 8; the OS
//        rounds short sleeps up to its timer slack).
// Rare interleavings (a helper finishing another thread's operation between
// two of its steps, a thread stalled between a CAS and the load behind it)
// become common without changing any algorithm.
//
// Settings, read from the environment once per process:
//   STM_PERTURB_RATE    probability that a point delays, in [0, 1] (default 0.05;
//                       0 turns the delays off)
//   STM_PERTURB_SEED    seed of the draws (default 1)
//   STM_PERTURB_MAX_NS  longest delay in nanoseconds (default 2000)
// A GPU translation unit holds its own copy of the settings (each .cu file is
// its own device module); configure_device() copies them from the
// environment, and the GPU test programs call it before their first test
// (tests/support/backends.hpp). Until then the defaults apply.
//
// CPU tests that must force one exact interleaving install a hook on a thread
// (set_thread_hook): that thread then calls the hook at every point, with the
// point's kind and address, instead of drawing a delay, and before and after
// every relaxed load as well (at_relaxed: hooks only, no delays).
#pragma once

#include <cstddef>
#include <cstdint>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

namespace stm::platform::perturb {

struct config {
  std::uint32_t threshold;  // a point delays when its 32-bit draw is below this (rate * 2^32)
  std::uint32_t max_ns;     // longest delay
  std::uint64_t seed;
};
inline constexpr config default_config{214748365u /* 0.05 * 2^32 */, 2000u, 1u};

/// Where in an atomic operation a point sits.
enum class point : std::uint32_t { before_rmw, after_rmw, before_load, after_load };

/// SplitMix64's finalizer: a well-mixed 64-bit draw from any 64-bit input.
STM_HD inline constexpr std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// The settings the environment asks for (see the top of this file); bad
/// values fall back to the defaults.
inline config from_environment() {
  config c = default_config;
  if (const char* r = std::getenv("STM_PERTURB_RATE")) {
    char* end = nullptr;
    const double rate = std::strtod(r, &end);
    if (end != r && rate >= 0.0 && rate <= 1.0)
      c.threshold = rate >= 1.0 ? 0xFFFFFFFFu : static_cast<std::uint32_t>(rate * 4294967296.0);
  }
  if (const char* s = std::getenv("STM_PERTURB_SEED")) c.seed = std::strtoull(s, nullptr, 10);
  if (const char* m = std::getenv("STM_PERTURB_MAX_NS")) {
    const unsigned long long ns = std::strtoull(m, nullptr, 10);
    if (ns >= 1 && ns <= 1000000) c.max_ns = static_cast<std::uint32_t>(ns);
  }
  return c;
}

// Host side (plain host functions: nvcc's device pass parses them, never
// compiles them for the device).
/// The host's settings (the environment's, read at the first use).
inline const config& host_config() {
  static const config c = from_environment();
  return c;
}

using hook_fn = void (*)(void* ctx, point p, const void* addr, std::size_t size);

struct thread_state {
  hook_fn hook = nullptr;
  void* ctx = nullptr;
  std::uint64_t draws = 0;  // this thread's position in its stream of draws
  std::uint64_t stream = 0;  // 0: not yet assigned
};
inline thread_state& this_thread() {
  thread_local thread_state t;
  return t;
}

/// Install (or, with nullptr, remove) the calling thread's hook.
inline void set_thread_hook(hook_fn hook, void* ctx) {
  this_thread().hook = hook;
  this_thread().ctx = ctx;
}

inline void host_point(point p, const void* addr, std::size_t size) {
  thread_state& t = this_thread();
  if (t.hook) {
    t.hook(t.ctx, p, addr, size);
    return;
  }
  const config& c = host_config();
  if (c.threshold == 0) return;
  if (t.stream == 0) {  // threads draw from distinct streams, in the order they first get here
    static std::atomic<std::uint64_t> streams{0};
    t.stream = mix(c.seed ^ mix(streams.fetch_add(1, std::memory_order_relaxed) + 1)) | 1u;
  }
  const std::uint64_t r = mix(t.stream + 0x9E3779B97F4A7C15ull * ++t.draws);
  if (static_cast<std::uint32_t>(r) >= c.threshold) return;
  if ((r >> 32) % 8 != 0) std::this_thread::yield();
  else std::this_thread::sleep_for(std::chrono::nanoseconds(1 + (r >> 35) % c.max_ns));
}

#if defined(__CUDACC__)
// This translation unit's device copy of the settings.
static __device__ config device_config = default_config;

/// Host: copy the environment's settings to this translation unit's device
/// copy. Returns the CUDA status (the caller checks it).
static inline cudaError_t configure_device() {
  const config c = host_config();
  return cudaMemcpyToSymbol(device_config, &c, sizeof c);
}

static __device__ inline void device_point(point p, const void* addr) {
  const config c = device_config;
  if (c.threshold == 0) return;
  const std::uint64_t tid = (std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) << 24;
  const std::uint64_t r =
      mix(c.seed ^ mix(static_cast<std::uint64_t>(clock64()) ^ tid) ^ reinterpret_cast<std::uintptr_t>(addr) ^
          static_cast<std::uint64_t>(p));
  if (static_cast<std::uint32_t>(r) >= c.threshold) return;
  __nanosleep(1u + static_cast<std::uint32_t>(r >> 32) % c.max_ns);
}
#endif

/// A relaxed load: no delay is drawn (relaxed loads order nothing, and there
/// are many), but a thread's hook sees it, so that a schedule test can stop a
/// thread between two relaxed loads of a validation. Host only.
STM_HD inline void at_relaxed(point p, const void* addr, std::size_t size) {
#if defined(__CUDA_ARCH__)
  (void)p, (void)addr, (void)size;
#else
  thread_state& t = this_thread();
  if (t.hook) t.hook(t.ctx, p, addr, size);
#endif
}

STM_HD inline void at(point p, const void* addr, std::size_t size) {
#if defined(__CUDA_ARCH__)
  (void)size;
  device_point(p, addr);
#else
  host_point(p, addr, size);
#endif
}

/// cuda::atomic_ref<T, device> with a point before and after every
/// read-modify-write and every load stronger than relaxed. Stores are left
/// alone: a delay before the next atomic of the same thread has the effect.
template <class T>
class perturbed_atomic_ref {
  using base = cuda::atomic_ref<T, cuda::thread_scope_device>;
  using order = cuda::std::memory_order;
  static constexpr order sc = cuda::std::memory_order_seq_cst;

 public:
  using value_type = T;
  STM_HD explicit perturbed_atomic_ref(T& obj) : ref_(obj), addr_(&obj) {}

  STM_HD T load(order o = sc) const {
    const bool ordered = o != cuda::std::memory_order_relaxed;
    if (ordered) at(point::before_load, addr_, sizeof(T));
    else at_relaxed(point::before_load, addr_, sizeof(T));
    const T v = ref_.load(o);
    if (ordered) at(point::after_load, addr_, sizeof(T));
    else at_relaxed(point::after_load, addr_, sizeof(T));
    return v;
  }
  STM_HD void store(T v, order o = sc) const { ref_.store(v, o); }

  STM_HD T exchange(T v, order o = sc) const {
    before();
    const T r = ref_.exchange(v, o);
    after();
    return r;
  }
  STM_HD bool compare_exchange_strong(T& expected, T desired, order success, order failure) const {
    before();
    const bool r = ref_.compare_exchange_strong(expected, desired, success, failure);
    after();
    return r;
  }
  STM_HD bool compare_exchange_strong(T& expected, T desired, order o = sc) const {
    before();
    const bool r = ref_.compare_exchange_strong(expected, desired, o);
    after();
    return r;
  }
  STM_HD bool compare_exchange_weak(T& expected, T desired, order success, order failure) const {
    before();
    const bool r = ref_.compare_exchange_weak(expected, desired, success, failure);
    after();
    return r;
  }
  STM_HD bool compare_exchange_weak(T& expected, T desired, order o = sc) const {
    before();
    const bool r = ref_.compare_exchange_weak(expected, desired, o);
    after();
    return r;
  }
#define STM_PERTURB_FETCH(op)              \
  STM_HD T op(T v, order o = sc) const {   \
    before();                              \
    const T r = ref_.op(v, o);             \
    after();                               \
    return r;                              \
  }
  STM_PERTURB_FETCH(fetch_add)
  STM_PERTURB_FETCH(fetch_sub)
  STM_PERTURB_FETCH(fetch_and)
  STM_PERTURB_FETCH(fetch_or)
  STM_PERTURB_FETCH(fetch_xor)
  STM_PERTURB_FETCH(fetch_min)
  STM_PERTURB_FETCH(fetch_max)
#undef STM_PERTURB_FETCH

 private:
  STM_HD void before() const { at(point::before_rmw, addr_, sizeof(T)); }
  STM_HD void after() const { at(point::after_rmw, addr_, sizeof(T)); }
  base ref_;
  const T* addr_;
};

}  // namespace stm::platform::perturb
