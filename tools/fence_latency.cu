// SPDX-License-Identifier: Apache-2.0
// tools/fence_latency.cu - what the memory operations of a commit cost on this
// GPU: cycles per iteration of dependent chains of loads, CASes and exchanges,
// of fences alone and behind a store or a CAS, and of the write-back's fence
// patterns; on one lane, then on every SM at once (16 warps x 4 lanes each, as
// the bank's drain kernel runs at full occupancy). One JSON object per line.
//
//   nvcc -arch=sm_90 -O3 -std=c++17 -o fence_latency tools/fence_latency.cu && ./fence_latency
//
// use(v) emits no instruction: a CAS whose result only goes to use() is still
// in flight at the fence that follows, so "cas+fence" times a fence issued
// behind an outstanding CAS (the next iteration's address waits for it).
#include <cstdio>
#include <cstdint>
#include <cuda/atomic>
#define CK(x)                                                                        \
  do {                                                                               \
    cudaError_t e = (x);                                                             \
    if (e != cudaSuccess) {                                                          \
      std::fprintf(stderr, "fence_latency: %s (line %d)\n", cudaGetErrorString(e), __LINE__); \
      return 1;                                                                      \
    }                                                                                \
  } while (0)
using ref = cuda::atomic_ref<unsigned, cuda::thread_scope_device>;
__device__ __forceinline__ void f_acqrel() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }
// One-way fences need sm_90 and PTX ISA 8.6; elsewhere these time fence.acq_rel.
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ < 900 || __cccl_ptx_isa < 860)
__device__ __forceinline__ void f_rel() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }
__device__ __forceinline__ void f_acq() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }
#else
__device__ __forceinline__ void f_rel() { asm volatile("fence.release.gpu;" ::: "memory"); }
__device__ __forceinline__ void f_acq() { asm volatile("fence.acquire.gpu;" ::: "memory"); }
#endif
__device__ __forceinline__ void f_sc() { asm volatile("fence.sc.gpu;" ::: "memory"); }
__device__ __forceinline__ unsigned ldr(unsigned* p) { return ref(*p).load(cuda::memory_order_relaxed); }
__device__ __forceinline__ void str(unsigned* p, unsigned v) { ref(*p).store(v, cuda::memory_order_relaxed); }
__device__ __forceinline__ unsigned cas(unsigned* p, unsigned e, unsigned d) { ref(*p).compare_exchange_strong(e, d, cuda::memory_order_relaxed); return e; }
__device__ __forceinline__ void use(unsigned v) { asm volatile("" :: "r"(v)); }

__global__ void k(int pat, int iters, int lanes, unsigned* mem, unsigned long long* out) {
  const unsigned lane = threadIdx.x & 31;
  const unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
  if (lane >= (unsigned)lanes) return;
  unsigned* p = mem + gid * 64;  // 256 B apart: own lines, 4 words used
  unsigned v = 0;
  long long t0 = clock64();
  for (int i = 0; i < iters; ++i) {
    switch (pat) {
      case 0: v = ldr(p + v); break;                                  // load chain
      case 1: v = cas(p + v, v, v); break;                            // CAS chain
      case 2: v = cas(p + v, v, v); use(v); f_acqrel(); break;        // CAS, fence.acq_rel
      case 3: v = cas(p + v, v, v); use(v); f_rel(); break;           // CAS, fence.release
      case 4: str(p + 1, i); f_acqrel(); break;                       // store, fence.acq_rel
      case 5: str(p + 1, i); f_rel(); break;                          // store, fence.release
      case 6: f_acqrel(); break;
      case 7: f_sc(); break;
      case 8: f_rel(); break;
      case 9: f_acq(); break;
      case 10: v = ref(p[v]).exchange(v, cuda::memory_order_relaxed); break;  // exch chain
      case 11: {  // publish as now: final CAS; (A) acq_rel; 2 stores; (B) acq_rel; 2 unlock stores
        v = cas(p + v, v, v); use(v); f_acqrel(); str(p + 1, i); str(p + 2, i); f_acqrel(); str(p + 3, i); str(p + 4, i); break; }
      case 12: {  // the same with release fences
        v = cas(p + v, v, v); use(v); f_rel(); str(p + 1, i); str(p + 2, i); f_rel(); str(p + 3, i); str(p + 4, i); break; }
      case 13: {  // final CAS; no (A); 2 stores; (B) release; 2 unlocks
        v = cas(p + v, v, v); use(v); str(p + 1, i); str(p + 2, i); f_rel(); str(p + 3, i); str(p + 4, i); break; }
      case 14: {  // final CAS; 2 exch write-back (waited for); 2 unlocks, no fence
        v = cas(p + v, v, v); use(v);
        unsigned a = ref(p[1]).exchange(i, cuda::memory_order_relaxed), b = ref(p[2]).exchange(i, cuda::memory_order_relaxed);
        use(a); use(b); str(p + 3, i); str(p + 4, i); break; }
      case 15: {  // final CAS; (A) acq_rel; 2 stores; 2 unlocks with st.release
        v = cas(p + v, v, v); use(v); f_acqrel(); str(p + 1, i); str(p + 2, i);
        ref(p[3]).store(i, cuda::memory_order_release); str(p + 4, i); break; }
    }
  }
  long long t1 = clock64();
  out[gid] = (unsigned long long)(t1 - t0) + (v == 12345 ? 1 : 0);
}

int main() {
  const char* names[] = {"ld chain", "cas chain", "cas+fence.acq_rel", "cas+fence.release", "st+fence.acq_rel",
                         "st+fence.release", "fence.acq_rel", "fence.sc", "fence.release", "fence.acquire", "exch chain",
                         "publish acq_rel x2", "publish release x2", "publish no A, rel B", "publish exch, no fences",
                         "publish A + st.release"};
  int sms = 0, clk = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0));
  const int threads = sms * 512;
  unsigned* mem; unsigned long long* out;
  CK(cudaMalloc(&mem, (size_t)threads * 64 * 4));
  CK(cudaMemset(mem, 0, (size_t)threads * 64 * 4));
  CK(cudaMallocManaged(&out, threads * 8));
  std::printf("{\"sms\": %d, \"clock_khz\": %d}\n", sms, clk);
  for (int load = 0; load < 2; ++load)
    for (int pat = 0; pat < 16; ++pat) {
      const int iters = 2000, lanes = load ? 4 : 1, blocks = load ? sms : 1, bs = load ? 512 : 32;
      for (int rep = 0; rep < 2; ++rep) {  // first is a warm-up
        CK(cudaMemset(out, 0, threads * 8));
        k<<<blocks, bs>>>(pat, iters, lanes, mem, out);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
      }
      double s = 0; int n = 0;
      for (int t = 0; t < blocks * bs; ++t) if (out[t]) { s += out[t]; ++n; }
      const double cyc = s / n / iters;
      std::printf("{\"load\": \"%s\", \"pattern\": \"%s\", \"cycles\": %.0f, \"ns_at_max_clock\": %.0f}\n", load ? "16 warps x 4 lanes per SM" : "one lane",
             names[pat], cyc, cyc / (clk / 1e6));
    }
  return 0;
}
