// stm_bench's bank workload: CPU and GPU entry points.
#pragma once

#include <string>

#include "workloads/bank/bank.hpp"

namespace bench_bank {
workloads::bank::outcome run_cpu(const workloads::bank::config& c, const std::string& cm);
#if STM_WITH_CUDA
workloads::bank::outcome run_gpu(const workloads::bank::config& c, const std::string& cm);
#endif
}  // namespace bench_bank
