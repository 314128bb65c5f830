// SPDX-License-Identifier: Apache-2.0
// GPU side of stm_bench's bank workload.
#include "bank.hpp"
#include "bench.hpp"
#include "cmp/registry.hpp"
#include "stm/launch.cuh"

namespace bench_bank {
stm::workloads::bank::outcome run_gpu(const stm::workloads::bank::config& c, const std::string& cm, const stm::manager_tuning& tune) {
  return stm::cm::dispatch(cm, tune, [&](auto m) {
    return stm::workloads::bank::run<stm::gpu_exec>(c, m, [](double f) { bench::progress("bank", f); });
  });
}
}  // namespace bench_bank

#if PRSTM_WITH_NVSHMEM
namespace bench_bank {
// tools/stm_bench/workloads/dist_bank_nvshmem.cu: one process per GPU.
bool nvshmem_launched();
stm::workloads::dist_bank::outcome run_dist_nvshmem(const stm::workloads::dist_bank::config& c);
}  // namespace bench_bank
#endif

namespace bench_bank {
stm::workloads::dist_bank::outcome run_dist_gpu(const stm::workloads::dist_bank::config& c, std::string& transport) {
#if PRSTM_WITH_NVSHMEM
  if (nvshmem_launched()) {
    transport = "nvshmem";
    return run_dist_nvshmem(c);
  }
#endif
  transport = "sim";
  return stm::workloads::dist_bank::run_sim<stm::gpu_exec>(c);
}
}  // namespace bench_bank
