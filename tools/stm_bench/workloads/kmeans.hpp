// SPDX-License-Identifier: Apache-2.0
// stm_bench's kmeans workload: CPU and GPU entry points.
#pragma once

#include <string>

#include "cmp/contention_manager.hpp"
#include "workloads/kmeans/kmeans.hpp"

namespace bench_kmeans {
namespace km = stm::workloads::kmeans;
km::outcome run_cpu(const km::config& c, const km::reference& ref, const std::string& cm, const stm::manager_tuning& tune);
#if STM_WITH_CUDA
km::outcome run_gpu(const km::config& c, const km::reference& ref, const std::string& cm, const stm::manager_tuning& tune);
#endif
}  // namespace bench_kmeans
