// SPDX-License-Identifier: Apache-2.0
// workloads/detail/random.hpp - counter-based random numbers for generated
// inputs: item i of a data set is a pure function of (seed, i), so the host
// (reference) and any backend or launch shape build the same data.
#pragma once

#include <cstdint>

#include "stm/platform.hpp"

namespace stm::workloads::detail {

/// splitmix64's finalizer (Steele, Lea and Flood, "Fast splittable
/// pseudorandom number generators", OOPSLA 2014): a bijection on 64 bits
/// whose outputs for consecutive inputs pass BigCrush.
STM_HD inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// A stream of numbers for item `i` of stream `stream` under `seed`.
struct counter_rng {
  std::uint64_t s;
  STM_HD counter_rng(std::uint64_t seed, std::uint64_t stream, std::uint64_t i)
      : s(splitmix64(splitmix64(seed ^ (stream << 56)) + i)) {}
  STM_HD std::uint64_t next() { return s = splitmix64(s); }
  /// Uniform in [0, n) (Lemire's multiply-shift; n < 2^32).
  STM_HD std::uint32_t below(std::uint32_t n) { return static_cast<std::uint32_t>(((next() >> 32) * n) >> 32); }
  /// Uniform in [0, 1).
  STM_HD double unit() { return double(next() >> 11) * (1.0 / 9007199254740992.0); }
};

}  // namespace stm::workloads::detail
