// SPDX-License-Identifier: Apache-2.0
// The README's example kernels, compiled from the README itself and run.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "readme_example.cuh"
#include "support/backends.hpp"

TEST(ReadmeExample, TransfersConserveMoney) {
  if (!stm::gpu_available()) GTEST_SKIP() << stm_test::no_device_reason;
  constexpr int accounts = 1024, threads = 65536;
  stm::buffer<int> balance(stm::backend::gpu, accounts);
  balance.fill(100);
  run_transfers(balance.data(), accounts, threads);
  const auto h = balance.to_vector();
  EXPECT_EQ(std::accumulate(h.begin(), h.end(), 0LL), 100LL * accounts);
  for (int v : h) EXPECT_GE(v, 0);
  EXPECT_NE(h, std::vector<int>(accounts, 100)) << "no transfer committed";
}

TEST(ReadmeExample, EveryThreadCountsOnce) {
  if (!stm::gpu_available()) GTEST_SKIP() << stm_test::no_device_reason;
  constexpr int threads = 4096;
  stm::buffer<int> counter(stm::backend::gpu, 1);
  counter.fill(0);
  stm::lock_table locks(stm::backend::gpu, 1, counter.data(), sizeof(int));
  count_kernel<<<threads / 256, 256>>>(locks.ref(), counter.data());
  STM_CUDA_CHECK_LAUNCH("count_kernel");
  STM_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(counter.to_vector()[0], threads);
}
