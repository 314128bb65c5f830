// SPDX-License-Identifier: Apache-2.0
// GPU instances of the core tests.
#include "core_tests.inc"

// --- launch geometry (GPU only) ------------------------------------------------
namespace {

// How many times each logical thread ran.
std::vector<std::uint32_t> run_counts(std::uint32_t n) {
  stm::buffer<std::uint32_t> hits(stm::backend::gpu, n);
  std::uint32_t* h = hits.data();
  stm::launch_gpu(n, [=] __device__(std::uint32_t tid) {
    cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device>(h[tid]).fetch_add(1u, cuda::memory_order_relaxed);
  });
  return hits.to_vector();
}

// launch_gpu picks its block size from the launch size (stm::gpu_block_for):
// whatever it picks, every logical thread runs exactly once, partial last
// blocks included, and a launch small enough is spread over every SM.
TEST(Launch, EveryThreadRunsOnceAndSmallLaunchesUseEverySm) {
  if (!stm::gpu_available()) GTEST_SKIP() << stm_test::no_device_reason;
  const std::uint32_t sms = stm::sm_count(stm::backend::gpu);
  const std::uint32_t spread = sms * stm::gpu_block_threads;  // largest launch with one block per SM
  for (std::uint32_t n : {1u, 31u, 33u, 6720u, 6721u, spread - 1, spread, spread + 1, 270337u}) {
    const std::uint32_t b = stm::gpu_block_for(n);
    EXPECT_EQ(b % 32u, 0u) << n;
    EXPECT_GE(b, 32u) << n;
    EXPECT_LE(b, stm::gpu_block_threads) << n;
    if (n <= spread)
      EXPECT_LE((n + b - 1) / b, sms) << n << " threads in blocks of " << b;
    else
      EXPECT_EQ(b, stm::gpu_block_threads) << n;
    if (n <= 96)  // at most a warp per SM: blocks of one warp
      EXPECT_EQ(b, 32u) << n;
    const auto h = run_counts(n);
    for (std::uint32_t t = 0; t < n; ++t) ASSERT_EQ(h[t], 1u) << "thread " << t << " of " << n;
  }
}

}  // namespace
