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
//
// The OS threads of progress::any launches on the CPU are a pool, started by
// the first launch that needs them and kept until the process exits: a launch
// only wakes them (see detail::cpu_pool).
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "stm/backend.hpp"
#include "stm/error.hpp"

#if defined(__unix__)
#include <unistd.h>
#endif

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

namespace detail {
/// The OS threads of progress::any launches on the CPU, started by the first
/// launch that needs them (at most cpu_pool_threads) and kept, detached, until
/// the process exits. Starting 64 threads per launch was most of the host time
/// of short launches: a one-second bank run on the CPU, thousands of launches,
/// took about 11 s of wall time.
///
/// One launch at a time has the pool; a launch that finds it taken (another
/// host thread's launch, or a launch from inside a launch's body) starts
/// threads of its own as launch_cpu always did, so no launch ever waits for
/// another. A forked child has none of its parent's threads: a launch there
/// starts its own too.
///
/// Death tests. GoogleTest's default ("fast") death-test style forks the test
/// program with the pool's threads alive, and ThreadSanitizer (die_after_fork=1)
/// kills a child of a multi-threaded process that starts threads. The death
/// tests therefore use the "threadsafe" style (fork + exec: the child is a new
/// process without the pool): tests/misuse/checks_tests.inc sets it before every
/// EXPECT_DEATH. The pool stays on under ThreadSanitizer, so that TSan checks
/// its hand-offs as every other launch's.
class cpu_pool {
 public:
  using job_fn = std::function<void(std::uint32_t)>;

  /// Never destroyed: its threads wait on its members until the process ends,
  /// so no static destructor may run under them.
  static cpu_pool& instance() {
    static cpu_pool* const pool = new cpu_pool;
    return *pool;
  }
  cpu_pool(const cpu_pool&) = delete;
  cpu_pool& operator=(const cpu_pool&) = delete;

  /// Run job(w) for w in [0, workers) on pool threads (workers at most
  /// cpu_pool_threads), each on its own thread, and wait for all of them; seconds
  /// from the wake-up of the first to the end of the last. Returns false, having
  /// run nothing, when the pool is taken, when called from a pool thread, in a
  /// forked child, or when the system refuses a thread: the caller then starts
  /// threads of its own. failure: the first exception a job threw.
  bool try_run(std::uint32_t workers, const job_fn& job, double& seconds, std::exception_ptr& failure) {
    std::unique_lock<std::mutex> use(taken_, std::try_to_lock);
    if (!use.owns_lock() || on_pool_thread() || current_process() != owner_) return false;
    // Only the launch that has the pool changes generation_, so this read
    // outside m_ sees the current value; a new thread starts from it and wakes
    // for the next job only.
    try {
      while (started_ < workers) {
        std::thread(&cpu_pool::serve, this, started_, generation_).detach();
        ++started_;
      }
    } catch (const std::exception&) {  // std::system_error: no more threads to be had
      return false;
    }
    std::unique_lock<std::mutex> lock(m_);
    job_ = &job;
    workers_ = workers;
    remaining_.store(workers, std::memory_order_relaxed);
    failure_ = nullptr;
    ++generation_;
    const auto t0 = std::chrono::steady_clock::now();
    lock.unlock();
    go_.notify_all();
    lock.lock();
    done_.wait(lock, [&] { return remaining_.load(std::memory_order_acquire) == 0; });
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    failure = failure_;
    failure_ = nullptr;
    job_ = nullptr;
    return true;
  }

 private:
  cpu_pool() : owner_(current_process()) {}
  static long current_process() {
#if defined(__unix__)
    return static_cast<long>(::getpid());
#else
    return 0;
#endif
  }
  static bool& on_pool_thread() {
    thread_local bool mine = false;
    return mine;
  }
  void serve(std::uint32_t w, std::uint64_t seen) {
    on_pool_thread() = true;
    for (;;) {
      const job_fn* job = nullptr;
      {
        std::unique_lock<std::mutex> lock(m_);
        go_.wait(lock, [&] { return generation_ != seen; });
        seen = generation_;
        if (w >= workers_) continue;  // this launch needs fewer threads
        job = job_;
      }
      std::exception_ptr e;
      try {
        (*job)(w);
      } catch (...) {
        e = std::current_exception();
      }
      if (e) {
        // Handed over (or dropped) under m_: no reference to the exception
        // may be released here after the launcher rethrew it.
        std::lock_guard<std::mutex> lock(m_);
        if (!failure_) failure_ = std::move(e);
        e = nullptr;
      }
      // Without m_: the workers that finish do not queue on one lock, each
      // waiting for the previous one to be scheduled. The release orders what
      // the job wrote before the launcher's acquire; the last worker wakes the
      // launcher under m_, so that the wake-up cannot fall between its check
      // and its wait.
      if (remaining_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lock(m_);
        done_.notify_one();
      }
    }
  }

  std::mutex taken_;  // held by the launch that has the pool
  std::uint32_t started_ = 0;  // threads running serve() (under taken_)
  const long owner_;           // the process that owns them
  std::mutex m_;               // guards the fields below
  std::condition_variable go_, done_;
  const job_fn* job_ = nullptr;
  std::uint32_t workers_ = 0;
  std::uint64_t generation_ = 0;  // one more per job
  std::atomic<std::uint32_t> remaining_{0};  // workers of the job not done (read and written without m_)
  std::exception_ptr failure_;
};
}  // namespace detail

/// Run f(tid) for tid in [0, n) on std::threads; returns wall seconds.
///
/// progress::any: min(n, cpu_pool_threads) threads of the pool (detail::cpu_pool)
/// take the logical ids in turn; when the pool is taken, the launch starts
/// threads of its own as progress::all_resident does, one per worker.
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
  // Worker w runs the logical ids w, w + workers, ... (64-bit ids: tid +
  // workers must not wrap for n near 2^32).
  auto work = [&f, n, workers](std::uint32_t w) {
    for (std::uint64_t tid = w; tid < n; tid += workers) f(static_cast<std::uint32_t>(tid));
  };
  if (p == progress::any) {
    double seconds = 0;
    std::exception_ptr failure;
    if (detail::cpu_pool::instance().try_run(workers, work, seconds, failure)) {
      if (failure) std::rethrow_exception(failure);
      return seconds;
    }
  }
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
      pool.emplace_back([=, &work, &failure, &failure_mutex, &state, &gate_mutex, &gate_open] {
        {
          std::unique_lock<std::mutex> lock(gate_mutex);
          gate_open.wait(lock, [&] { return state != gate::closed; });
          if (state == gate::stop) return;
        }
        try {
          work(w);
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
