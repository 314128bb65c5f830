// SPDX-License-Identifier: Apache-2.0
// GPU side of stm_bench's vacation workload.
#include "vacation.hpp"
#include "priority.hpp"
#include "stm/launch.cuh"

namespace bench_vacation {
stm::workloads::vacation::outcome run_gpu(const stm::workloads::vacation::config& c, const std::string& impl,
                                          const std::string& cm, const stm::manager_tuning& tune,
                                          const std::string& priority) {
  auto progress = [](double f) { bench::progress("vacation", f); };
  if (impl == "native") return stm::workloads::vacation::run_native<stm::gpu_exec>(c, tune, progress);
  return bench::with_manager(cm, priority, tune, stm::backend::gpu, c.threads,
                             [&](auto m) { return stm::workloads::vacation::run<stm::gpu_exec>(c, m, progress); });
}
}  // namespace bench_vacation
