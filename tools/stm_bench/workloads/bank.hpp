// stm_bench's bank workload: CPU and GPU entry points.
#pragma once

#include <string>

#include "cmp/contention_manager.hpp"
#include "workloads/bank/bank.hpp"

namespace bench_bank {
workloads::bank::outcome run_cpu(const workloads::bank::config& c, const std::string& cm, const stm::cm::tuning& tune);
#if STM_WITH_CUDA
workloads::bank::outcome run_gpu(const workloads::bank::config& c, const std::string& cm, const stm::cm::tuning& tune);
#endif
}  // namespace bench_bank
