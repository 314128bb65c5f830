// SPDX-License-Identifier: Apache-2.0
// GPU side of stm_bench's list workload.
#include "cmp/registry.hpp"
#include "stm/launch.cuh"
#include "workloads/list.hpp"

namespace bench_list {
outcome run_mix_gpu(const mix_config& c, const std::string& impl, const std::string& cm) {
  return stm::cm::dispatch(cm, [&](auto m) { return run_mix<stm::gpu_exec, decltype(m)>(c, impl); });
}
outcome run_seed_gpu(const seed_config& c, const std::string& impl) {
  return impl == "indexed" ? run_seed<stm::gpu_exec, stm::list::indexed_seq>(c) : run_seed<stm::gpu_exec, stm::list::harris_seq>(c);
}
}  // namespace bench_list
