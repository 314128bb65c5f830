// SPDX-License-Identifier: Apache-2.0
// stm_bench's vacation workload: CPU and GPU entry points.
#pragma once

#include <string>

#include "cmp/contention_manager.hpp"
#include "workloads/vacation/vacation.hpp"

namespace bench_vacation {
/// impl "native": the per-record lock baseline; otherwise the STM under manager cm.
stm::workloads::vacation::outcome run_cpu(const stm::workloads::vacation::config& c, const std::string& impl,
                                          const std::string& cm, const stm::manager_tuning& tune,
                                          const std::string& priority);
#if STM_WITH_CUDA
stm::workloads::vacation::outcome run_gpu(const stm::workloads::vacation::config& c, const std::string& impl,
                                          const std::string& cm, const stm::manager_tuning& tune,
                                          const std::string& priority);
#endif
}  // namespace bench_vacation
