// SPDX-License-Identifier: Apache-2.0
// stm_bench --workload bank --pes N on N GPUs, one process each (started by
// tools/multi_gpu.sh): the partitioned bank over NVSHMEM. Built only with
// PRSTM_WITH_NVSHMEM (relocatable device code, linked with nvshmem_device).
//
// Every process runs its own PE's threads (transfer_kernel of
// workloads/bank/dist_bank.hpp over stm::dist::nvshmem_transport); the
// counters, the money and the held locks are summed over the PEs with
// NVSHMEM reductions, the kernel time is the slowest PE's, and every process
// verifies the same totals (each prints its result; the launcher keeps rank
// 0's on stdout).
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "../bench.hpp"  // at_main_end
#include "stm/dist/nvshmem.hpp"
#include "stm/launch.cuh"
#include "workloads/bank/dist_bank.hpp"

namespace bench_bank {

bool nvshmem_launched() { return stm::dist::nvshmem_runtime::launched(); }

namespace {
/// A process the launcher started works on GPU rank (mod the GPUs) from its
/// first CUDA call on: stm_bench asks the device about its memory and SMs
/// before the run, which would otherwise open a context on GPU 0 in every
/// process. Runs before main (a static initializer of this file).
[[maybe_unused]] const bool device_chosen = [] {
  const char* rank = std::getenv("PRSTM_PE_RANK");
  if (!nvshmem_launched() || rank == nullptr) return false;
  int gpus = 0;
  cudaError_t e = cudaGetDeviceCount(&gpus);
  if (e == cudaSuccess && gpus > 0) e = cudaSetDevice(static_cast<int>(std::strtol(rank, nullptr, 10) % gpus));
  if (e != cudaSuccess || gpus <= 0) {
    std::fprintf(stderr, "stm_bench: cannot choose the GPU of PE %s: %s\n", rank,
                 e != cudaSuccess ? cudaGetErrorString(e) : "no GPU");
    std::exit(1);
  }
  return true;
}();
}  // namespace

namespace {

/// Balances of this PE: their sum, the negative ones, and the lock words not free.
struct local_audit_kernel {
  const int* words;
  const std::uint32_t* locks;
  std::uint32_t n_words, n_locks, spread;
  long long* out;  // [0] money, [1] negative, [2] held locks
  __device__ void operator()(std::uint32_t tid) const {
    long long money = 0, negative = 0, held = 0;
    for (std::uint32_t i = tid; i < n_words; i += 1024) {
      const int v = words[i];
      money += v;
      negative += v < 0 ? 1 : 0;
    }
    for (std::uint32_t i = tid; i < n_locks; i += 1024)
      held += stm::lock_word::is_free(locks[std::size_t(i) << spread]) ? 0 : 1;
    atomicAdd(reinterpret_cast<unsigned long long*>(&out[0]), static_cast<unsigned long long>(money));
    atomicAdd(reinterpret_cast<unsigned long long*>(&out[1]), static_cast<unsigned long long>(negative));
    atomicAdd(reinterpret_cast<unsigned long long*>(&out[2]), static_cast<unsigned long long>(held));
  }
};

struct fill_kernel {
  std::uint32_t* words;
  std::uint32_t value;
  __device__ void operator()(std::uint32_t tid) const { words[tid] = value; }
};

}  // namespace

stm::workloads::dist_bank::outcome run_dist_nvshmem(const stm::workloads::dist_bank::config& c) {
  namespace db = stm::workloads::dist_bank;
  // Once per process (stm_bench repeats runs); finalized when main returns,
  // not by a static destructor (bench::at_main_end).
  static std::unique_ptr<stm::dist::nvshmem_runtime> runtime;
  if (!runtime) {
    runtime = std::make_unique<stm::dist::nvshmem_runtime>();
    bench::at_main_end([] { runtime.reset(); });
  }
  db::check(c);
  const stm::dist::layout shape = db::layout_of(c);
  stm::dist::nvshmem_space space(shape);
  const std::uint32_t me = runtime->my_pe();
  stm::gpu_exec::run(shape.words_per_pe, fill_kernel{space.local_words(), static_cast<std::uint32_t>(c.initial)});
  stm::stats_block stats(stm::backend::gpu);
  stm::buffer<unsigned long long> crossed(stm::backend::gpu, 1);
  db::transfer_kernel<stm::dist::nvshmem_transport> k{space.transport(), shape, me, c.threads, c.tpt,
                                                      db::threshold(c.cross), c.seed, stats.ref(), crossed.data()};
  nvshmem_barrier_all();  // every PE's accounts filled
  const double seconds = stm::gpu_exec::run(c.threads, k);
  nvshmem_barrier_all();  // every PE's transfers done (their write-backs complete) before the audit

  // Sums over the PEs: [commits, aborts x num_abort_causes, steals, crossed, money, negative, held].
  constexpr std::uint32_t n_sums = 3 + stm::num_abort_causes + 3;
  stm::dist::symmetric<long long> src(n_sums), dst(n_sums);
  stm::dist::symmetric<double> t_src(1), t_dst(1);
  stm::buffer<long long> audit(stm::backend::gpu, 3);
  stm::gpu_exec::run(1024, local_audit_kernel{reinterpret_cast<const int*>(space.local_words()), space.local_lock_words(),
                                              shape.words_per_pe, shape.locks_per_pe(), shape.spread, audit.data()});
  const stm::tx_stats s = stats.read();
  const std::vector<long long> a = audit.to_vector();
  std::vector<long long> mine{static_cast<long long>(s.commits)};
  for (std::uint32_t i = 0; i < stm::num_abort_causes; ++i) mine.push_back(static_cast<long long>(s.aborts[i]));
  mine.push_back(static_cast<long long>(s.steals));
  mine.push_back(static_cast<long long>(crossed.to_vector()[0]));
  mine.push_back(a[0]);
  mine.push_back(a[1]);
  mine.push_back(a[2]);
  mine.resize(n_sums, 0);
  STM_CUDA_CHECK(cudaMemcpy(src.data(), mine.data(), n_sums * sizeof(long long), cudaMemcpyHostToDevice));
  STM_CUDA_CHECK(cudaMemcpy(t_src.data(), &seconds, sizeof(double), cudaMemcpyHostToDevice));
  if (nvshmemx_longlong_sum_reduce_on_stream(NVSHMEM_TEAM_WORLD, dst.data(), src.data(), n_sums, 0) != 0 ||
      nvshmemx_double_max_reduce_on_stream(NVSHMEM_TEAM_WORLD, t_dst.data(), t_src.data(), 1, 0) != 0)
    throw std::runtime_error("NVSHMEM reduction failed");
  STM_CUDA_CHECK(cudaStreamSynchronize(0));
  std::vector<long long> sum(n_sums);
  STM_CUDA_CHECK(cudaMemcpy(sum.data(), dst.data(), n_sums * sizeof(long long), cudaMemcpyDeviceToHost));

  db::outcome out;
  STM_CUDA_CHECK(cudaMemcpy(&out.seconds, t_dst.data(), sizeof(double), cudaMemcpyDeviceToHost));
  std::uint32_t j = 0;
  out.stats.commits = static_cast<std::uint64_t>(sum[j++]);
  for (std::uint32_t i = 0; i < stm::num_abort_causes; ++i) out.stats.aborts[i] = static_cast<std::uint64_t>(sum[j++]);
  out.stats.steals = static_cast<std::uint64_t>(sum[j++]);
  out.cross_commits = static_cast<std::uint64_t>(sum[j++]);
  out.total = sum[j++];
  out.negative = static_cast<std::uint64_t>(sum[j++]);
  out.held_locks = static_cast<std::uint64_t>(sum[j++]);
  out.transfers = std::uint64_t(c.npes) * c.threads * c.tpt;
  out.expected = static_cast<long long>(c.initial) * c.accounts;
  out.verified = out.total == out.expected && out.negative == 0 && out.held_locks == 0 &&
                 out.stats.commits == out.transfers;
  out.message = "money " + std::to_string(out.total) + " of " + std::to_string(out.expected) + " over " +
                std::to_string(c.npes) + " GPUs (NVSHMEM" + (space.all_direct() ? ", every peer over NVLink" : "") +
                "), " + std::to_string(out.negative) + " negative, " + std::to_string(out.held_locks) +
                " locks held, " + std::to_string(out.stats.commits) + " commits of " + std::to_string(out.transfers) +
                " transfers";
  nvshmem_barrier_all();  // nobody frees the symmetric memory while another PE still reads it
  return out;
}

}  // namespace bench_bank
