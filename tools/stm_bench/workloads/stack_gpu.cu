// SPDX-License-Identifier: Apache-2.0
// GPU side of stm_bench's stack workload.
#include "stack.hpp"
#include "stm/launch.cuh"

namespace bench_stack {
outcome run_gpu(const config& c) { return run_impl<stm::gpu_exec>(c); }
}  // namespace bench_stack
