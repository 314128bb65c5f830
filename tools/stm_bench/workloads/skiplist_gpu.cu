// SPDX-License-Identifier: Apache-2.0
// GPU side of stm_bench's skiplist workload.
#include "priority.hpp"
#include "stm/launch.cuh"
#include "workloads/skiplist/skiplist.hpp"

namespace bench_skiplist {
namespace wl = stm::workloads::skiplist;
wl::outcome run_gpu(const wl::config& c, wl::impl which, const std::string& cm, const stm::manager_tuning& tune,
                    const std::string& priority) {
  return bench::with_manager(cm, priority, tune, stm::backend::gpu, c.threads, [&](auto m) {
    return wl::run<stm::gpu_exec>(c, which, m, [](double f) { bench::progress("skiplist", f); });
  });
}
}  // namespace bench_skiplist
