// SPDX-License-Identifier: Apache-2.0
// tools/experiments/claim_index/drv.cu - the native skiplist workload at full
// occupancy (5,000 keys, range 10,000, 5 levels, 1M operations of 50%
// inserts and 50% removes, 2 launches), one seed per process so that a hang
// is cut per seed. Prints the verification and the kernel throughput; exit 1
// on a failed verification. Built twice by run.sh: with the node pools'
// claims one atomic per lane (the default) and with STM_CLAIM_AGGREGATED=1.
// Usage: drv SEED [THREADS]
#include <cstdio>
#include <cstdlib>

#include "cmp/prstm.hpp"
#include "stm/launch.cuh"
#include "workloads/skiplist/skiplist.hpp"

namespace wl = stm::workloads::skiplist;

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  const int seed = argc > 1 ? std::atoi(argv[1]) : 1;
  wl::config c;
  c.keys = 5000;
  c.range = 10000;
  c.levels = 5;
  c.threads = argc > 2 ? static_cast<std::uint32_t>(std::atoi(argv[2])) : 270336u;
  c.seed = static_cast<std::uint64_t>(seed);
  c.ops = 1000000;
  c.insert = 50;
  c.remove = 50;
  c.min_launches = 2;
  const auto o = wl::run<stm::gpu_exec>(c, wl::impl::native, stm::cm::prstm{});
  std::printf("%s seed %d: %s %.1f Mops/s (%llu launches, %llu exhausted) %s\n", argv[0], seed,
              o.verified ? "ok" : "FAILED", o.seconds > 0 ? double(o.ops) / o.seconds / 1e6 : 0.0,
              static_cast<unsigned long long>(o.launches), static_cast<unsigned long long>(o.exhausted),
              o.verified ? "" : o.message.c_str());
  return o.verified ? 0 : 1;
}
