// SPDX-License-Identifier: Apache-2.0
// GPU side of stm_bench's array workload.
#include "array.hpp"
#include "cmp/registry.hpp"
#include "stm/launch.cuh"

namespace bench_array {
ar::outcome run_gpu(const ar::config& c, const std::string& cm, const stm::manager_tuning& tune) {
  if (c.variant == ar::impl::native) return ar::run_native<stm::gpu_exec>(c);
  return stm::cm::dispatch(cm, tune, [&](auto m) { return ar::run<stm::gpu_exec>(c, m); });
}
}  // namespace bench_array
