// SPDX-License-Identifier: Apache-2.0
// stm/error.hpp - errors the library reports.
//
// Every CUDA call and kernel launch goes through STM_CUDA_CHECK, which throws
// stm::cuda_error naming the call, the file and the line. Bad user input
// (sizes, names, capacities) throws stm::usage_error before any work starts.
#pragma once

#include <stdexcept>
#include <string>

#include "stm/platform.hpp"  // STM_WITH_CUDA under nvcc

#if STM_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace stm {

/// Bad input from the user of the library or of a tool: one clear sentence.
struct usage_error : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

/// A CUDA runtime call failed.
struct cuda_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

#if STM_WITH_CUDA
namespace detail {
[[noreturn]] inline void throw_cuda(cudaError_t err, const char* call, const char* file, int line) {
  throw cuda_error(std::string(file) + ":" + std::to_string(line) + ": " + call + " failed: " +
                   cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")");
}
}  // namespace detail

/// Check a CUDA runtime call; throws stm::cuda_error with call, file and line.
#define STM_CUDA_CHECK(call)                                                        \
  do {                                                                              \
    cudaError_t stm_cuda_err_ = (call);                                             \
    if (stm_cuda_err_ != cudaSuccess)                                               \
      ::stm::detail::throw_cuda(stm_cuda_err_, #call, __FILE__, __LINE__);          \
  } while (0)

/// Check the launch that just happened (configuration errors and faults).
#define STM_CUDA_CHECK_LAUNCH(what) STM_CUDA_CHECK(cudaGetLastError())
#endif

}  // namespace stm
