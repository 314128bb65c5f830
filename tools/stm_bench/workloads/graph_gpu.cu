// SPDX-License-Identifier: Apache-2.0
// GPU side of stm_bench's graph workload.
#include "bench.hpp"
#include "cmp/registry.hpp"
#include "graph.hpp"
#include "stm/launch.cuh"

namespace bench_graph {
gr::outcome run_gpu(const gr::config& c, const input& in, const std::string& cm, const stm::manager_tuning& tune) {
  return stm::cm::dispatch(cm, tune, [&](auto m) { return gr::run<stm::gpu_exec>(c, in.g, in.initial, m, &in.reference); });
}
}  // namespace bench_graph
