// SPDX-License-Identifier: Apache-2.0
// GPU side of stm_bench's bank workload.
#include "bank.hpp"
#include "bench.hpp"
#include "cmp/registry.hpp"
#include "stm/launch.cuh"

namespace bench_bank {
stm::workloads::bank::outcome run_gpu(const stm::workloads::bank::config& c, const std::string& cm, const stm::cm::tuning& tune) {
  return stm::cm::dispatch(cm, tune, [&](auto m) {
    return stm::workloads::bank::run<stm::gpu_exec>(c, m, [](double f) { bench::progress("bank", f); });
  });
}
}  // namespace bench_bank
