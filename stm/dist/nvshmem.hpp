// SPDX-License-Identifier: Apache-2.0
// stm/dist/nvshmem.hpp - the distributed space over NVSHMEM: one process per
// GPU, each PE's words and lock words in the symmetric heap. Only in builds
// with PRSTM_WITH_NVSHMEM=1 (CMake option PRSTM_WITH_NVSHMEM), in CUDA
// translation units compiled with relocatable device code and linked with
// nvshmem_device (docs/multi-gpu.md).
//
// The transport reaches a word of PE pe through nvshmem_ptr where it gives a
// pointer (a peer over NVLink, or this PE): plain system-scope atomics on the
// peer's memory, as cuda::atomic_ref<T, thread_scope_system>. Elsewhere (a
// peer NVSHMEM reaches over the network only) it uses NVSHMEM's atomics
// (nvshmem_uint32_atomic_fetch / _set / _compare_swap / _fetch_add); those
// fetching ones complete before they return, and the fences add nvshmem_quiet
// so that the non-fetching stores (write-back, unlock) complete in order.
//
// Bootstrap without MPI (NVSHMEM's unique-id bootstrap): the process of rank
// 0 creates the unique id and writes it to a file whose name every process is
// given (tools/multi_gpu.sh creates the folder and passes the name in
// PRSTM_UNIQUEID_FILE, with PRSTM_PE_RANK and PRSTM_PE_COUNT); the others
// wait for the file, then all call nvshmemx_init_attr with
// NVSHMEMX_INIT_WITH_UNIQUEID. NVLink multicast stays off: the launcher sets
// NVSHMEM_DISABLE_NVLS=1 and NCCL_NVLS_ENABLE=0, and nvshmem_runtime refuses
// to start without the first.
#pragma once

#if !defined(PRSTM_WITH_NVSHMEM)
#define PRSTM_WITH_NVSHMEM 0
#endif

#if PRSTM_WITH_NVSHMEM

#include <nvshmem.h>
#include <nvshmemx.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "stm/dist/detail/layout.hpp"
#include "stm/dist/detail/transport.hpp"
#include "stm/error.hpp"
#include "stm/platform.hpp"

namespace stm::dist {

/// The NVSHMEM transport (see the file comment). Device code only: the host
/// never runs a transaction of this transport (its host paths abort).
struct nvshmem_transport {
  std::uint32_t* sym[2] = {nullptr, nullptr};  // symmetric addresses: data, locks
  std::uint32_t all_direct = 1;                // every PE is reached through nvshmem_ptr

  using sys_ref = cuda::atomic_ref<std::uint32_t, cuda::thread_scope_system>;

  STM_HD std::uint32_t* direct(region r, std::uint32_t pe, std::uint32_t index) const {
#if STM_ON_DEVICE
    void* p = nvshmem_ptr(sym[static_cast<std::uint32_t>(r)], static_cast<int>(pe));
    return p ? static_cast<std::uint32_t*>(p) + index : nullptr;
#else
    (void)r, (void)pe, (void)index;
    std::abort();
#endif
  }
  STM_HD std::uint32_t load(region r, std::uint32_t pe, std::uint32_t index,
                            cuda::std::memory_order order = memory_order_relaxed) const {
#if STM_ON_DEVICE
    if (std::uint32_t* p = direct(r, pe, index)) return sys_ref(*p).load(order);
    const std::uint32_t v = nvshmem_uint32_atomic_fetch(sym[static_cast<std::uint32_t>(r)] + index, static_cast<int>(pe));
    if (order != memory_order_relaxed) cuda::atomic_thread_fence(memory_order_acquire, cuda::thread_scope_system);
    return v;
#else
    (void)r, (void)pe, (void)index, (void)order;
    std::abort();
#endif
  }
  STM_HD void store(region r, std::uint32_t pe, std::uint32_t index, std::uint32_t v,
                    cuda::std::memory_order order = memory_order_relaxed) const {
#if STM_ON_DEVICE
    if (std::uint32_t* p = direct(r, pe, index)) return sys_ref(*p).store(v, order);
    if (order != memory_order_relaxed) fence_release();
    nvshmem_uint32_atomic_set(sym[static_cast<std::uint32_t>(r)] + index, v, static_cast<int>(pe));
#else
    (void)r, (void)pe, (void)index, (void)v, (void)order;
    std::abort();
#endif
  }
  STM_HD bool cas(region r, std::uint32_t pe, std::uint32_t index, std::uint32_t& expected,
                  std::uint32_t desired) const {
#if STM_ON_DEVICE
    if (std::uint32_t* p = direct(r, pe, index))
      return sys_ref(*p).compare_exchange_strong(expected, desired, memory_order_relaxed, memory_order_relaxed);
    const std::uint32_t old = nvshmem_uint32_atomic_compare_swap(sym[static_cast<std::uint32_t>(r)] + index, expected,
                                                                 desired, static_cast<int>(pe));
    const bool ok = old == expected;
    expected = old;
    return ok;
#else
    (void)r, (void)pe, (void)index, (void)expected, (void)desired;
    std::abort();
#endif
  }
  STM_HD std::uint32_t fetch_add(region r, std::uint32_t pe, std::uint32_t index, std::uint32_t v) const {
#if STM_ON_DEVICE
    if (std::uint32_t* p = direct(r, pe, index)) return sys_ref(*p).fetch_add(v, memory_order_relaxed);
    return nvshmem_uint32_atomic_fetch_add(sym[static_cast<std::uint32_t>(r)] + index, v, static_cast<int>(pe));
#else
    (void)r, (void)pe, (void)index, (void)v;
    std::abort();
#endif
  }
  // System scope: the words of other GPUs are ordered by system-scope fences
  // (a device-scope fence orders nothing for a peer that reads over NVLink).
  STM_HD void fence_seq_cst() const {
#if STM_ON_DEVICE
    if (!all_direct) nvshmem_quiet();
#endif
    cuda::atomic_thread_fence(memory_order_seq_cst, cuda::thread_scope_system);
  }
  // (P) of an update whose reads are all covered (stm/dist/detail/tx.hpp)
  // stands where (C) would: it completes the posted stores as (C) does.
  STM_HD void fence_acquire() const {
#if STM_ON_DEVICE
    if (!all_direct) nvshmem_quiet();
#endif
    cuda::atomic_thread_fence(memory_order_acquire, cuda::thread_scope_system);
  }
  STM_HD void fence_release() const {
#if STM_ON_DEVICE
    if (!all_direct) nvshmem_quiet();
#endif
    cuda::atomic_thread_fence(memory_order_release, cuda::thread_scope_system);
  }
};

/// NVSHMEM started from the unique-id bootstrap (see the file comment), one
/// per process; nvshmem_finalize at its end. The process's GPU: rank modulo
/// the visible GPUs.
class nvshmem_runtime {
 public:
  /// From the launcher's environment (tools/multi_gpu.sh).
  static bool launched() { return std::getenv("PRSTM_UNIQUEID_FILE") != nullptr; }

  nvshmem_runtime() {
    const char* file = std::getenv("PRSTM_UNIQUEID_FILE");
    const char* rank_s = std::getenv("PRSTM_PE_RANK");
    const char* count_s = std::getenv("PRSTM_PE_COUNT");
    if (!file || !rank_s || !count_s)
      throw usage_error("NVSHMEM runs need PRSTM_UNIQUEID_FILE, PRSTM_PE_RANK and PRSTM_PE_COUNT: start them with tools/multi_gpu.sh");
    const char* nvls = std::getenv("NVSHMEM_DISABLE_NVLS");
    if (!nvls || std::string(nvls) != "1")
      throw usage_error("NVSHMEM_DISABLE_NVLS=1 must be set (NVLink multicast stays off: docs/multi-gpu.md)");
    rank_ = static_cast<int>(std::strtol(rank_s, nullptr, 10));
    const int count = static_cast<int>(std::strtol(count_s, nullptr, 10));
    if (count < 1 || rank_ < 0 || rank_ >= count) throw usage_error("PRSTM_PE_RANK must be in [0, PRSTM_PE_COUNT)");
    int gpus = 0;
    STM_CUDA_CHECK(cudaGetDeviceCount(&gpus));
    if (gpus < 1) throw usage_error("no GPU visible to this process");
    STM_CUDA_CHECK(cudaSetDevice(rank_ % gpus));
    nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
    const std::string path(file);
    if (rank_ == 0) {
      if (nvshmemx_get_uniqueid(&id) != 0) throw std::runtime_error("nvshmemx_get_uniqueid failed");
      const std::string tmp = path + ".tmp";
      std::FILE* f = std::fopen(tmp.c_str(), "wb");
      if (!f || std::fwrite(&id, sizeof id, 1, f) != 1 || std::fclose(f) != 0)
        throw std::runtime_error("cannot write the NVSHMEM unique id to " + tmp);
      if (std::rename(tmp.c_str(), path.c_str()) != 0) throw std::runtime_error("cannot rename " + tmp + " to " + path);
    } else {
      // The root writes the id under another name and renames it: a file that
      // exists is complete. Wait at most two minutes.
      for (int waited = 0;; ++waited) {
        if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
          const bool ok = std::fread(&id, sizeof id, 1, f) == 1;
          std::fclose(f);
          if (!ok) throw std::runtime_error("cannot read the NVSHMEM unique id from " + path);
          break;
        }
        if (waited == 12000) throw std::runtime_error("no NVSHMEM unique id in " + path + " after 120 s");
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
    nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
    if (nvshmemx_set_attr_uniqueid_args(rank_, count, &id, &attr) != 0)
      throw std::runtime_error("nvshmemx_set_attr_uniqueid_args failed");
    if (nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr) != 0) throw std::runtime_error("nvshmemx_init_attr failed");
    if (nvshmem_my_pe() != rank_ || nvshmem_n_pes() != count)
      throw std::runtime_error("NVSHMEM's PE numbering differs from the launcher's ranks");
  }
  ~nvshmem_runtime() { nvshmem_finalize(); }
  nvshmem_runtime(const nvshmem_runtime&) = delete;
  nvshmem_runtime& operator=(const nvshmem_runtime&) = delete;

  std::uint32_t my_pe() const { return static_cast<std::uint32_t>(nvshmem_my_pe()); }
  std::uint32_t npes() const { return static_cast<std::uint32_t>(nvshmem_n_pes()); }

 private:
  int rank_ = 0;
};

/// Symmetric memory of n elements of T (collective: every PE allocates the
/// same, in the same order), zeroed on this PE.
template <class T>
class symmetric {
 public:
  explicit symmetric(std::size_t n) : n_(n) {
    p_ = static_cast<T*>(nvshmem_malloc(n * sizeof(T)));
    if (!p_ && n != 0)
      throw usage_error("nvshmem_malloc of " + std::to_string(n * sizeof(T)) +
                        " bytes failed (raise NVSHMEM_SYMMETRIC_SIZE)");
    if (n) STM_CUDA_CHECK(cudaMemset(p_, 0, n * sizeof(T)));
  }
  ~symmetric() {
    if (p_) nvshmem_free(p_);
  }
  symmetric(const symmetric&) = delete;
  symmetric& operator=(const symmetric&) = delete;
  T* data() const { return p_; }
  std::size_t size() const { return n_; }

 private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

/// The space of every PE (collective): this PE's words and lock words in the
/// symmetric heap, all zero (every lock free at version 0).
class nvshmem_space {
 public:
  explicit nvshmem_space(const layout& shape)
      : shape_(checked(shape)), data_(shape.words_per_pe), locks_(static_cast<std::size_t>(shape.lock_words_per_pe())) {
    net_.sym[static_cast<std::uint32_t>(region::data)] = data_.data();
    net_.sym[static_cast<std::uint32_t>(region::locks)] = locks_.data();
    const int me = nvshmem_my_pe();
    for (std::uint32_t p = 0; p < shape.npes; ++p)
      if (static_cast<int>(p) != me && nvshmem_ptr(data_.data(), static_cast<int>(p)) == nullptr) net_.all_direct = 0;
    STM_CUDA_CHECK(cudaDeviceSynchronize());  // the zeroing (cudaMemset) done
    nvshmem_barrier_all();                    // on every PE, before anyone starts
  }
  const layout& shape() const { return shape_; }
  nvshmem_transport transport() const { return net_; }
  /// This PE's words and lock words (device pointers).
  std::uint32_t* local_words() const { return data_.data(); }
  std::uint32_t* local_lock_words() const { return locks_.data(); }
  /// Whether every PE is reached through nvshmem_ptr (NVLink or this GPU).
  bool all_direct() const { return net_.all_direct != 0; }

 private:
  static const layout& checked(const layout& l) {
    check_layout(l);
    if (l.npes != static_cast<std::uint32_t>(nvshmem_n_pes()))
      throw usage_error(std::to_string(l.npes) + " PEs asked for, but " + std::to_string(nvshmem_n_pes()) +
                        " processes were launched (tools/multi_gpu.sh N)");
    return l;
  }
  layout shape_;
  symmetric<std::uint32_t> data_, locks_;
  nvshmem_transport net_{};
};

}  // namespace stm::dist

#endif  // PRSTM_WITH_NVSHMEM
