// SPDX-License-Identifier: Apache-2.0
// stm_bench's array workload: CPU and GPU entry points.
#pragma once

#include <string>

#include "cmp/contention_manager.hpp"
#include "workloads/array/array.hpp"

namespace bench_array {
namespace ar = stm::workloads::array;
ar::outcome run_cpu(const ar::config& c, const std::string& cm, const stm::manager_tuning& tune);
#if STM_WITH_CUDA
ar::outcome run_gpu(const ar::config& c, const std::string& cm, const stm::manager_tuning& tune);
#endif
}  // namespace bench_array
