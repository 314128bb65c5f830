// SPDX-License-Identifier: Apache-2.0
// stm_bench's graph workload: CPU and GPU entry points.
#pragma once

#include <string>
#include <vector>

#include "cmp/contention_manager.hpp"
#include "workloads/graph/graph.hpp"

namespace bench_graph {
namespace gr = stm::workloads::graph;
/// The input of a run: the graph, its initial values and their reference minima.
struct input {
  gr::csr g;
  std::vector<std::int32_t> initial, reference;
};
gr::outcome run_cpu(const gr::config& c, const input& in, const std::string& cm, const stm::manager_tuning& tune);
#if STM_WITH_CUDA
gr::outcome run_gpu(const gr::config& c, const input& in, const std::string& cm, const stm::manager_tuning& tune);
#endif
}  // namespace bench_graph
