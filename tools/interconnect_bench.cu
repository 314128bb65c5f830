// SPDX-License-Identifier: Apache-2.0
// tools/interconnect_bench.cu - what a remote 32-bit CAS and a remote 32-bit
// load cost: the operations of the distributed lock protocol (stm::dist,
// docs/multi-gpu.md), whose measurements decide between remote locking and
// owner-computes.
//
// Each point is measured from one thread (a dependent chain: latency,
// ns_per_op) and from every resident thread of the GPU (each on a word of
// its own 32-byte sector: throughput, ops_per_s), one JSON line per point:
//   {"test": "cas32"|"load32", "api": ..., "threads", "ops", "seconds",
//    "ns_per_op"|"ops_per_s", "device", "gpus", "peer", "loopback", ...}
//
// --api peer (default; one process): GPU 0 reaches the memory of GPU 1 through
//   CUDA peer access (cudaDeviceCanAccessPeer; the CAS needs
//   cudaDevP2PAttrNativeAtomicSupported, reported as native_atomics), with
//   system-scope atomics (cuda::atomic_ref<T, thread_scope_system>). Also
//   api "local": the same operations on GPU 0's own memory, for scale. On a
//   machine of one GPU the peer is GPU 0 itself: loopback true, and the
//   numbers are those of local memory at system scope, not of any link.
// --api nvshmem (builds with NVSHMEM; started by tools/multi_gpu.sh N): PE 0
//   reaches PE 1 (itself when N = 1: loopback) through nvshmem_ptr
//   (api "nvshmem_ptr": the load and store path over NVLink) and through
//   NVSHMEM's atomics (api "nvshmem_amo": nvshmem_uint32_atomic_compare_swap
//   and nvshmem_uint32_atomic_fetch, the path across nodes). The other PEs
//   only wait at the barriers.
//
//   interconnect_bench [--api peer|nvshmem] [--ops N]
//
// Bad input: one line on stderr, exit code 2. A failed CUDA or NVSHMEM call:
// one line, exit code 1.
#include <cuda/atomic>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#if PRSTM_WITH_NVSHMEM
#include <nvshmem.h>
#include <nvshmemx.h>

#include "stm/dist/nvshmem.hpp"
#endif

namespace {

struct cuda_failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

#define IB_CHECK(call)                                                                                         \
  do {                                                                                                         \
    const cudaError_t ib_err_ = (call);                                                                        \
    if (ib_err_ != cudaSuccess)                                                                                \
      throw cuda_failure(std::string(#call) + ": " + cudaGetErrorString(ib_err_) + " (line " +               \
                         std::to_string(__LINE__) + ")");                                                      \
  } while (0)

using sys_ref = cuda::atomic_ref<unsigned, cuda::thread_scope_system>;
constexpr unsigned stride = 8;  // words between two threads' words: a 32-byte sector each

enum class op { cas, load };
enum class path { direct, amo };  // direct: a pointer (peer, local, nvshmem_ptr); amo: NVSHMEM atomics

/// ops dependent operations per thread on words[tid * stride] (each address
/// depends on the last result, so one thread's chain is its latency).
/// AMO: `words` is the symmetric address, `pe` the target PE.
template <op Op, path Path>
__global__ void chain(unsigned* words, int pe, unsigned ops, unsigned* sink) {
  const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned* p = words + std::size_t(tid) * stride;
  unsigned v = 0;
  for (unsigned i = 0; i < ops; ++i) {
    unsigned* at = p + (v & 0x80000000u ? 1u : 0u);  // never taken (values stay small): a dependency, not a branch cost
    if constexpr (Path == path::direct) {
      if constexpr (Op == op::cas) {
        unsigned expect = v;
        sys_ref(*at).compare_exchange_strong(expect, v + 1, cuda::memory_order_relaxed);
        v = expect == v ? v + 1 : expect;
      } else {
        v += sys_ref(*at).load(cuda::memory_order_relaxed);
      }
    } else {
#if PRSTM_WITH_NVSHMEM && defined(__CUDA_ARCH__)
      if constexpr (Op == op::cas) {
        const unsigned old = nvshmem_uint32_atomic_compare_swap(at, v, v + 1, pe);
        v = old == v ? v + 1 : old;
      } else {
        v += nvshmem_uint32_atomic_fetch(at, pe);
      }
#else
      (void)pe;
      __trap();  // not built without NVSHMEM (main never launches it)
#endif
    }
  }
  if (v == 0xFFFFFFFFu) *sink = v;  // keeps the chain
}

struct point {
  const char* test;
  const char* api;
  unsigned threads;
  unsigned long long ops;
  double seconds;
};

/// Times one launch of chain<Op, Path> on the current device.
template <op Op, path Path>
point run_chain(const char* api, unsigned* words, int pe, unsigned threads, unsigned ops, unsigned* sink) {
  const unsigned block = threads < 256 ? threads : 256, grid = (threads + block - 1) / block;
  cudaEvent_t t0, t1;
  IB_CHECK(cudaEventCreate(&t0));
  IB_CHECK(cudaEventCreate(&t1));
  chain<Op, Path><<<grid, block>>>(words, pe, ops / 16 + 1, sink);  // warm-up: TLBs, caches, clocks
  IB_CHECK(cudaGetLastError());
  IB_CHECK(cudaEventRecord(t0));
  chain<Op, Path><<<grid, block>>>(words, pe, ops, sink);
  IB_CHECK(cudaGetLastError());
  IB_CHECK(cudaEventRecord(t1));
  IB_CHECK(cudaEventSynchronize(t1));
  float ms = 0;
  IB_CHECK(cudaEventElapsedTime(&ms, t0, t1));
  IB_CHECK(cudaEventDestroy(t0));
  IB_CHECK(cudaEventDestroy(t1));
  return point{Op == op::cas ? "cas32" : "load32", api, grid * block, std::uint64_t(grid) * block * ops, ms * 1e-3};
}

std::string device_name(int dev) {
  cudaDeviceProp prop{};
  IB_CHECK(cudaGetDeviceProperties(&prop, dev));
  return prop.name;
}

/// Every thread the current device keeps resident (whole blocks of 256).
unsigned resident_threads(int dev) {
  int sms = 0, per_sm = 0;
  IB_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  IB_CHECK(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, dev));
  return unsigned(sms) * unsigned(per_sm / 256) * 256u;
}

void print(const point& p, const std::string& device, int gpus, int peer, bool loopback, const std::string& extra) {
  const bool one = p.threads == 1;
  std::printf("{\"test\": \"%s\", \"api\": \"%s\", \"threads\": %u, \"ops\": %llu, \"seconds\": %.6g, \"%s\": %.6g, "
              "\"device\": \"%s\", \"gpus\": %d, \"peer\": %d, \"loopback\": %s%s}\n",
              p.test, p.api, p.threads, p.ops, p.seconds, one ? "ns_per_op" : "ops_per_s",
              one ? p.seconds * 1e9 / double(p.ops) : double(p.ops) / p.seconds, device.c_str(), gpus, peer,
              loopback ? "true" : "false", extra.c_str());
  std::fflush(stdout);
}

/// The four points (CAS and load; one thread and every resident thread) of one path.
template <path Path>
void measure(const char* api, unsigned* words, int pe, unsigned resident, unsigned ops, unsigned* sink,
             const std::string& device, int gpus, int peer, bool loopback, const std::string& extra) {
  print(run_chain<op::cas, Path>(api, words, pe, 1, ops, sink), device, gpus, peer, loopback, extra);
  print(run_chain<op::load, Path>(api, words, pe, 1, ops, sink), device, gpus, peer, loopback, extra);
  const unsigned few = ops / 16 > 0 ? ops / 16 : 1;  // every thread: fewer operations each
  print(run_chain<op::cas, Path>(api, words, pe, resident, few, sink), device, gpus, peer, loopback, extra);
  print(run_chain<op::load, Path>(api, words, pe, resident, few, sink), device, gpus, peer, loopback, extra);
}

int run_peer(unsigned ops) {
  int gpus = 0;
  IB_CHECK(cudaGetDeviceCount(&gpus));
  if (gpus < 1) throw cuda_failure("no GPU");
  const int src = 0, dst = gpus >= 2 ? 1 : 0;
  const bool loopback = dst == src;
  int can = 1, native = 1;
  if (!loopback) {
    IB_CHECK(cudaDeviceCanAccessPeer(&can, src, dst));
    IB_CHECK(cudaDeviceGetP2PAttribute(&native, cudaDevP2PAttrNativeAtomicSupported, src, dst));
    if (!can) {
      std::fprintf(stderr, "interconnect_bench: GPU %d cannot access GPU %d's memory (no peer access)\n", src, dst);
      return 1;
    }
  }
  IB_CHECK(cudaSetDevice(src));
  const unsigned resident = resident_threads(src);
  const std::size_t bytes = std::size_t(resident) * stride * sizeof(unsigned) + 64;
  unsigned *local = nullptr, *remote = nullptr, *sink = nullptr;
  IB_CHECK(cudaMalloc(&local, bytes));
  IB_CHECK(cudaMemset(local, 0, bytes));
  IB_CHECK(cudaMalloc(&sink, sizeof(unsigned)));
  if (!loopback) {
    IB_CHECK(cudaSetDevice(dst));
    IB_CHECK(cudaMalloc(&remote, bytes));
    IB_CHECK(cudaMemset(remote, 0, bytes));
    IB_CHECK(cudaDeviceSynchronize());
    IB_CHECK(cudaSetDevice(src));
    const cudaError_t e = cudaDeviceEnablePeerAccess(dst, 0);
    if (e != cudaErrorPeerAccessAlreadyEnabled) IB_CHECK(e);
  } else {
    remote = local;
  }
  IB_CHECK(cudaDeviceSynchronize());
  const std::string device = device_name(src);
  const std::string extra = ", \"native_atomics\": " + std::string(native ? "true" : "false");
  measure<path::direct>("local", local, 0, resident, ops, sink, device, gpus, src, true, extra);
  if (!native && !loopback) {
    std::fprintf(stderr, "interconnect_bench: no native peer atomics between GPU %d and %d: peer CAS skipped\n", src, dst);
    print(run_chain<op::load, path::direct>("peer", remote, 0, 1, ops, sink), device, gpus, dst, loopback, extra);
    print(run_chain<op::load, path::direct>("peer", remote, 0, resident, ops / 16 + 1, sink), device, gpus, dst,
          loopback, extra);
  } else {
    measure<path::direct>("peer", remote, 0, resident, ops, sink, device, gpus, dst, loopback, extra);
  }
  IB_CHECK(cudaFree(local));
  IB_CHECK(cudaFree(sink));
  if (!loopback) {
    IB_CHECK(cudaSetDevice(dst));
    IB_CHECK(cudaFree(remote));
  }
  return 0;
}

#if PRSTM_WITH_NVSHMEM
int run_nvshmem(unsigned ops) {
  stm::dist::nvshmem_runtime runtime;  // the launcher's unique-id bootstrap; sets this process's GPU
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  int dev = 0, gpus = 0;
  IB_CHECK(cudaGetDevice(&dev));
  IB_CHECK(cudaGetDeviceCount(&gpus));
  const unsigned resident = resident_threads(dev);
  // Collective: the same size on every PE (the resident threads of an H100
  // and an H200 are the same; a mixed machine takes the largest below).
  const std::size_t words = std::size_t(resident) * stride + 16;
  stm::dist::symmetric<unsigned> sym(words);
  unsigned* sink = nullptr;
  IB_CHECK(cudaMalloc(&sink, sizeof(unsigned)));
  IB_CHECK(cudaDeviceSynchronize());
  nvshmem_barrier_all();
  if (me == 0) {
    const int peer = n > 1 ? 1 : 0;
    const bool loopback = peer == me;
    const std::string device = device_name(dev);
    const std::string extra = ", \"pes\": " + std::to_string(n);
    if (unsigned* direct = static_cast<unsigned*>(nvshmem_ptr(sym.data(), peer)))
      measure<path::direct>("nvshmem_ptr", direct, peer, resident, ops, sink, device, n, peer, loopback, extra);
    else
      std::fprintf(stderr, "interconnect_bench: nvshmem_ptr gives no pointer to PE %d: only the atomics are measured\n",
                   peer);
    measure<path::amo>("nvshmem_amo", sym.data(), peer, resident, ops, sink, device, n, peer, loopback, extra);
  }
  (void)gpus;
  IB_CHECK(cudaDeviceSynchronize());
  nvshmem_barrier_all();  // nobody frees the heap while PE 0 still uses it
  IB_CHECK(cudaFree(sink));
  return 0;
}
#endif

}  // namespace

int main(int argc, char** argv) {
  std::string api = "peer";
  unsigned long long ops = 100000;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--api" || a == "--ops") && i + 1 < argc) {
      const std::string v = argv[++i];
      if (a == "--api") {
        api = v;
      } else {
        char* end = nullptr;
        ops = std::strtoull(v.c_str(), &end, 10);
        if (v.empty() || *end != '\0' || v[0] == '-' || ops < 16 || ops > 100000000ull) {
          std::fprintf(stderr, "interconnect_bench: --ops must be an integer in [16, 10^8], got '%s'\n", v.c_str());
          return 2;
        }
      }
    } else {
      std::fprintf(stderr, "interconnect_bench: unknown or incomplete option '%s' (usage: [--api peer|nvshmem] [--ops N])\n",
                   a.c_str());
      return 2;
    }
  }
  if (api != "peer" && api != "nvshmem") {
    std::fprintf(stderr, "interconnect_bench: --api must be peer or nvshmem, got '%s'\n", api.c_str());
    return 2;
  }
#if !PRSTM_WITH_NVSHMEM
  if (api == "nvshmem") {
    std::fprintf(stderr, "interconnect_bench: this build has no NVSHMEM (configure with PRSTM_WITH_NVSHMEM=ON)\n");
    return 2;
  }
#endif
  try {
#if PRSTM_WITH_NVSHMEM
    if (api == "nvshmem") return run_nvshmem(static_cast<unsigned>(ops));
#endif
    return run_peer(static_cast<unsigned>(ops));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "interconnect_bench: %s\n", e.what());
    return 1;
  }
}
