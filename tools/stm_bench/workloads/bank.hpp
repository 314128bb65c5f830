// SPDX-License-Identifier: Apache-2.0
// stm_bench's bank workload: CPU and GPU entry points.
#pragma once

#include <string>

#include "cmp/contention_manager.hpp"
#include "workloads/bank/bank.hpp"

namespace bench_bank {
stm::workloads::bank::outcome run_cpu(const stm::workloads::bank::config& c, const std::string& cm, const stm::cm::tuning& tune);
#if STM_WITH_CUDA
stm::workloads::bank::outcome run_gpu(const stm::workloads::bank::config& c, const std::string& cm, const stm::cm::tuning& tune);
#endif
}  // namespace bench_bank
