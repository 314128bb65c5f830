// SPDX-License-Identifier: Apache-2.0
// GPU side of stm_bench's kmeans workload.
#include "bench.hpp"
#include "cmp/registry.hpp"
#include "kmeans.hpp"
#include "stm/launch.cuh"

namespace bench_kmeans {
km::outcome run_gpu(const km::config& c, const km::reference& ref, const std::string& cm, const stm::manager_tuning& tune) {
  return stm::cm::dispatch(cm, tune, [&](auto m) { return km::run<stm::gpu_exec>(c, m, &ref); });
}
}  // namespace bench_kmeans
