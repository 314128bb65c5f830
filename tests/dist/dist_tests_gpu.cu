// SPDX-License-Identifier: Apache-2.0
// stm::dist on simulated PEs of one GPU: the partitioned bank at full
// concurrency (thousands of threads per PE) conserves the money of all PEs at
// 0, 10, 50 and 100% cross-PE transfers, leaves every lock free, and commits
// every transfer once; and no increment of one hot word is lost. Skipped on a
// machine without a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "stm/dist/dist.hpp"
#include "stm/launch.cuh"
#include "workloads/bank/dist_bank.hpp"

namespace {

struct bank_case {
  std::uint32_t pes;
  double cross;
};

class DistBankGpu : public ::testing::TestWithParam<bank_case> {};

TEST_P(DistBankGpu, ConservesMoneyAcrossPes) {
  if (!stm::gpu_available()) GTEST_SKIP() << "no GPU";
  stm::workloads::dist_bank::config c;
  c.npes = GetParam().pes;
  c.cross = GetParam().cross;
  c.accounts = 4096 * c.npes;  // a few thousand accounts per PE under 4,096 threads each: conflicts
  c.threads = 4096;
  c.tpt = 64;
  const auto out = stm::workloads::dist_bank::run_sim<stm::gpu_exec>(c);
  EXPECT_TRUE(out.verified) << out.message;
  EXPECT_EQ(out.total, out.expected);
  EXPECT_EQ(out.held_locks, 0u);
  EXPECT_EQ(out.stats.commits, out.transfers);
}

INSTANTIATE_TEST_SUITE_P(PesAndCross, DistBankGpu,
                         ::testing::Values(bank_case{1, 0}, bank_case{2, 0}, bank_case{2, 10}, bank_case{2, 50},
                                           bank_case{2, 100}, bank_case{4, 10}, bank_case{4, 100}),
                         [](const ::testing::TestParamInfo<bank_case>& i) {
                           return std::to_string(i.param.pes) + "pes_" + std::to_string(int(i.param.cross)) + "cross";
                         });

struct hot_kernel {
  stm::dist::sim_transport net;
  stm::dist::layout shape;
  std::uint32_t threads, rounds;
  __device__ void operator()(std::uint32_t tid) const {
    const std::uint32_t pe = tid / threads, local = tid % threads;
    stm::dist::transaction<stm::dist::sim_transport, 4, 4> tx(net, shape, stm::dist::priority(pe, local, shape.npes));
    const stm::dist::gptr<std::uint32_t> hot{shape.npes - 1, 0};
    for (std::uint32_t r = 0; r < rounds; ++r)
      stm::dist::atomically(tx, [&](auto& t) { TX_WRITE_IN(t, hot, TX_READ_IN(t, hot) + 1u); });
  }
};

TEST(DistContentionGpu, NoLostUpdateOnOneRemoteWord) {
  if (!stm::gpu_available()) GTEST_SKIP() << "no GPU";
  const stm::dist::layout shape{2, 64, 0, 0};
  stm::dist::sim_space space(stm::backend::gpu, shape);
  const std::uint32_t threads = 512, rounds = 8;
  stm::gpu_exec::run(2 * threads, hot_kernel{space.transport(), shape, threads, rounds});
  EXPECT_EQ(space.words(1)[0], 2 * threads * rounds);
  EXPECT_EQ(space.held_locks(), 0u);
}

}  // namespace
