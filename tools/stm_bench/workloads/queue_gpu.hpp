// SPDX-License-Identifier: Apache-2.0
// tools/stm_bench/workloads/queue_gpu.hpp - the GPU side of the queue workload
// (defined in queue_gpu.cu, built only with the GPU backend).
#pragma once

#include <vector>

#include "bench.hpp"
#include "workloads/queue_body.hpp"

namespace bench::queue_bench {
std::vector<result> run_gpu(const options& o, const std::vector<plan>& plans);
}  // namespace bench::queue_bench
