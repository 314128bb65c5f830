// SPDX-License-Identifier: Apache-2.0
// tests/support/backends.hpp - write a test body once, run it on both backends.
//
// The body lives in a .inc file included by two translation units: a .cpp
// (g++, instantiates cpu_exec) and a .cu (nvcc, instantiates gpu_exec), each
// linked into its own test program. GPU instances skip, visibly and with the
// reason, when the machine has no CUDA device.
//
//   template <class Exec> struct MyTest : stm_test::backend_test<Exec> {};
//   TYPED_TEST_SUITE(MyTest, stm_test::exec_types, stm_test::exec_names);
//   TYPED_TEST(MyTest, Works) { using Exec = TypeParam; ... Exec::run(n, f); }
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "stm/backend.hpp"
#include "stm/launch.hpp"
#if defined(__CUDACC__)
#include "stm/launch.cuh"
#endif

namespace stm_test {

#if defined(__CUDACC__)
using exec_types = ::testing::Types<stm::gpu_exec>;
#else
using exec_types = ::testing::Types<stm::cpu_exec>;
#endif

struct exec_names {
  template <class Exec>
  static std::string GetName(int) {
    return Exec::where == stm::backend::gpu ? "gpu" : "cpu";
  }
};

inline constexpr const char* no_device_reason =
    "no CUDA device on this machine: the GPU instance runs on an H100/H200 (tools/gpu_check.sh)";

template <class Exec>
class backend_test : public ::testing::Test {
 protected:
  void SetUp() override {
    if (Exec::where == stm::backend::gpu && !stm::gpu_available()) GTEST_SKIP() << no_device_reason;
  }
};

#if STM_PERTURB
/// Schedule-perturbation builds (stm/detail/perturb.hpp): say what the
/// environment asked for, and hand it to this program's device copy.
class perturb_environment : public ::testing::Environment {
 public:
  void SetUp() override {
    const auto& c = stm::platform::perturb::host_config();
    std::printf("[ perturb  ] rate %.4f, seed %llu, delays up to %u ns (STM_PERTURB_RATE, _SEED, _MAX_NS)\n",
                c.threshold / 4294967296.0, static_cast<unsigned long long>(c.seed), c.max_ns);
#if defined(__CUDACC__)
    if (stm::gpu_available()) STM_CUDA_CHECK(stm::platform::perturb::configure_device());
#endif
  }
};
inline ::testing::Environment* const perturb_environment_registered =
    ::testing::AddGlobalTestEnvironment(new perturb_environment);
#endif

/// True when STM_TEST_REDUCED is set: tools/gpu_check.sh sets it under
/// compute-sanitizer, which checks every access whatever the size and runs
/// kernels 10 to 1000 times slower.
inline bool reduced_run() {
  static const bool reduced = std::getenv("STM_TEST_REDUCED") != nullptr;
  return reduced;
}

/// A GPU test's launch size: n, or n / 8 (at least 256) in a reduced run.
inline std::uint32_t gpu_threads(std::uint32_t n) {
  return reduced_run() ? std::max(n / 8, std::min(n, 256u)) : n;
}

/// A size that must shrink further in a reduced run (work that grows with the
/// launch: commits serialized on one word, full-occupancy mixes): n, or
/// `reduced`, which still spans several warps and blocks.
inline std::uint32_t reduced_size(std::uint32_t n, std::uint32_t reduced) { return reduced_run() ? reduced : n; }

/// Threads for "heavy concurrency" tests: full occupancy on the GPU (2,048 in
/// a reduced run), a few dozen OS threads on the CPU (TSan has a thread limit).
template <class Exec>
std::uint32_t many_threads() {
  return Exec::where == stm::backend::gpu ? reduced_size(stm::full_occupancy(stm::backend::gpu), 2048u) : 48u;
}

}  // namespace stm_test
