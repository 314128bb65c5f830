// SPDX-License-Identifier: Apache-2.0
// stm/detail/check.hpp - the one way the library stops a program that broke a
// rule of its use: a message naming the rule and the place, then a trap.
//
//   prstm: rule composed-table broken: <what the rule says> (file:line)
//
// On the GPU the message is a printf (with the block and thread), then
// __trap() (the launch fails with cudaErrorLaunchFailure, and the context is
// unusable afterwards); on the CPU it goes to stderr, then std::abort().
//
// STM_CHECKS selects the checks that cost more than one predictable branch
// (the state they need, and a printf in the kernel): 1 in debug builds (NDEBUG
// not defined), 0 in release builds (NDEBUG, as CMake's Release defines it);
// -DSTM_CHECKS=0|1 overrides it. It changes the layout of stm::transaction
// (a flag), so every translation unit of a program must see the same value,
// as with _GLIBCXX_DEBUG. Why not always: a printf anywhere in a kernel puts
// a block-scope barrier in front of every fence of its commits
// (results/FINDINGS.md, "backoff and gpustm per attempt").
//
// The rules and where each is caught (README, "Helper functions, and the mistakes the forms catch"):
//   composed-table  a container operation on a transaction of another lock
//                   table: with STM_CHECKS a stop, else the operation returns
//                   op_status::rejected and changes nothing (always checked);
//   nested-form     a form started inside a running form on the same
//                   descriptor: a compile error when it is written inside a
//                   body (of any descriptor: nested transactions are not
//                   supported), with STM_CHECKS a stop when a function the
//                   body called does it;
//   thread-id       a descriptor's thread id at or above lock_word::max_threads:
//                   the CPU throws usage_error; the GPU traps (with STM_CHECKS
//                   after the message);
//   left-form       a TX_FOR_THEN clause left by break, return or goto: with
//                   STM_CHECKS a stop (a body cannot be left: compile error);
//   snapshot-clock  a snapshot_transaction on a table without the commit
//                   clock: the CPU throws usage_error, the GPU traps.
// The compile-time rules (a body left by break, continue, return or goto; a
// form inside a body; a TX_ macro outside a body or closing another form)
// are in stm/tx_macros.hpp.
#pragma once

#include "stm/platform.hpp"

#if !defined(STM_CHECKS)
#if defined(NDEBUG)
#define STM_CHECKS 0
#else
#define STM_CHECKS 1
#endif
#endif

#include <cstdio>   // printf on the device, fprintf on the host
#include <cstdlib>  // std::abort

namespace stm::detail {

/// Stop the program: `rule` broken at file:line (see the header comment).
/// `what` says what the rule asks of the caller.
[[noreturn]] STM_HD inline void check_failed(const char* rule, const char* what, const char* file, int line) {
#if STM_ON_DEVICE
  printf("prstm: rule %s broken: %s (%s:%d; block %u,%u,%u thread %u,%u,%u)\n", rule, what, file, line, blockIdx.x,
         blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z);
  __trap();
  __builtin_unreachable();
#else
  std::fprintf(stderr, "prstm: rule %s broken: %s (%s:%d)\n", rule, what, file, line);
  std::fflush(stderr);
  std::abort();
#endif
}

}  // namespace stm::detail

/// With STM_CHECKS: stop with rule `rule` unless `cond` holds (nothing otherwise).
#if STM_CHECKS
#define STM_CHECK(cond, rule, what)                                                     \
  do {                                                                                  \
    if (!(cond)) ::stm::detail::check_failed((rule), (what), __FILE__, __LINE__);       \
  } while (0)
#else
#define STM_CHECK(cond, rule, what) \
  do {                              \
  } while (0)
#endif
