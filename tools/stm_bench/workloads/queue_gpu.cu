// SPDX-License-Identifier: Apache-2.0
// GPU side of the queue workload: the same body as the CPU side, over gpu_exec.
#include "stm/launch.cuh"
#include "workloads/queue_gpu.hpp"

namespace bench::queue_bench {
std::vector<result> run_gpu(const options& o, const std::vector<plan>& plans) {
  return run_all<stm::gpu_exec>(o, plans);
}
}  // namespace bench::queue_bench
