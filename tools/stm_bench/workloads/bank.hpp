// SPDX-License-Identifier: Apache-2.0
// stm_bench's bank workload: CPU and GPU entry points.
#pragma once

#include <string>

#include "cmp/contention_manager.hpp"
#include "workloads/bank/bank.hpp"
#include "workloads/bank/dist_bank.hpp"

namespace bench_bank {
stm::workloads::bank::outcome run_cpu(const stm::workloads::bank::config& c, const std::string& cm, const stm::manager_tuning& tune);
#if STM_WITH_CUDA
stm::workloads::bank::outcome run_gpu(const stm::workloads::bank::config& c, const std::string& cm, const stm::manager_tuning& tune);
/// The partitioned bank on the GPU: one process per GPU over NVSHMEM when this
/// build has it and tools/multi_gpu.sh started the process, else every PE
/// simulated on this GPU. transport: "nvshmem" or "sim".
stm::workloads::dist_bank::outcome run_dist_gpu(const stm::workloads::dist_bank::config& c, std::string& transport);
#endif
}  // namespace bench_bank
