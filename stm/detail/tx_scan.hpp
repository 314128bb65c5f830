// SPDX-License-Identifier: Apache-2.0
// stm/detail/tx_scan.hpp - how the descriptor (stm/detail/tx_core.hpp) and the
// contention managers walk its read, write and lock sets, and the bit casts
// of transactional words. The managers reach these as Core::each,
// Core::each_loaded, Core::put, Core::get and Core::unrolled (stm/manager.hpp).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "stm/platform.hpp"

namespace stm::detail {

template <class T>
inline constexpr bool is_tx_word = std::is_trivially_copyable_v<T> && (sizeof(T) == 4 || sizeof(T) == 8);

template <class T>
STM_HD inline std::uint64_t to_bits(const T& v) {
  if constexpr (sizeof(T) == 4) {
    std::uint32_t u;
    std::memcpy(&u, &v, 4);
    return u;
  } else {
    std::uint64_t u;
    std::memcpy(&u, &v, 8);
    return u;
  }
}
template <class T>
STM_HD inline T from_bits(std::uint64_t u) {
  T v;
  if constexpr (sizeof(T) == 4) {
    const std::uint32_t w = static_cast<std::uint32_t>(u);
    std::memcpy(&v, &w, 4);
  } else {
    std::memcpy(&v, &u, 8);
  }
  return v;
}

/// Relaxed atomic store of a 4- or 8-byte word at addr (size in bytes).
STM_HD inline void store_word(void* addr, std::uint32_t size, std::uint64_t v) {
  if (size == 4)
    atomic_ref<std::uint32_t>(*static_cast<std::uint32_t*>(addr)).store(static_cast<std::uint32_t>(v), memory_order_relaxed);
  else
    atomic_ref<std::uint64_t>(*static_cast<std::uint64_t*>(addr)).store(v, memory_order_relaxed);
}

/// Scans of sets of fixed capacity.
/// Small sets are scanned with fully unrolled loops, so that the loads of
/// independent entries are in flight together, and every index into the
/// sets is a compile-time constant: the sets (and the counters) then live in
/// registers instead of local memory, which at full occupancy does not fit
/// in L1 (docs/design-decisions.md#descriptor-in-registers).
template <bool Unrolled>
struct set_scan {
  static constexpr bool unrolled = Unrolled;

  /// f(i) for every i < n of a set of capacity N, in order; stops when f returns
  /// false and returns false then.
  template <std::uint32_t N, class F>
  STM_HD static bool each(std::uint32_t n, F&& f) {
    if constexpr (unrolled) {
      bool go = true;
      STM_UNROLL
      for (std::uint32_t i = 0; i < N; ++i)
        if (go && i < n) go = f(i);
      return go;
    } else {
      for (std::uint32_t i = 0; i < n; ++i)
        if (!f(i)) return false;
      return true;
    }
  }
  /// The lock word and the value of read entry i, loaded together.
  struct read_look {
    std::uint32_t word;
    std::uint64_t value;
  };
  /// f(i, look(i)) for every i < n of a set of capacity N, in order; stops
  /// when f returns false and returns false then. The loads of a batch of
  /// entries are issued before any of them is tested: a loop whose every
  /// iteration ends in a branch on its own load waits a memory round trip per
  /// entry (the compiler cannot move a load above an earlier exit), and a
  /// long read set's re-checks at full occupancy were mostly that wait
  /// (docs/design-decisions.md#batched-validation). The loads are relaxed and
  /// independent, each ordered after the caller's fence as before: issuing
  /// them together changes no pairing. Small sets are unrolled whole by each().
  template <std::uint32_t N, class L, class F>
  STM_HD static bool each_loaded(std::uint32_t n, L&& look, F&& f) {
    if constexpr (unrolled) {
      return each<N>(n, [&](std::uint32_t i) { return f(i, look(i)); });
    } else {
      constexpr std::uint32_t batch = 8;
      using V = decltype(look(0u));
      for (std::uint32_t base = 0; base < n; base += batch) {
        V v[batch]{};  // entries past n stay unread (initialized for -Wmaybe-uninitialized)
        STM_UNROLL
        for (std::uint32_t j = 0; j < batch; ++j)
          if (base + j < n) v[j] = look(base + j);
        bool go = true;
        STM_UNROLL
        for (std::uint32_t j = 0; j < batch; ++j)
          if (go && base + j < n) go = f(base + j, v[j]);
        if (!go) return false;
      }
      return true;
    }
  }

  /// set[at] = v, by constant indices when the sets are small.
  template <std::uint32_t N, class E>
  STM_HD static void put(E (&set)[N], std::uint32_t at, const E& v) {
    if constexpr (unrolled) {
      STM_UNROLL
      for (std::uint32_t i = 0; i < N; ++i)
        if (i == at) set[i] = v;
    } else {
      set[at] = v;
    }
  }

  /// set[at], by constant indices when the sets are small.
  template <std::uint32_t N, class E>
  STM_HD static E get(const E (&set)[N], std::uint32_t at) {
    if constexpr (unrolled) {
      E v = set[0];
      STM_UNROLL
      for (std::uint32_t i = 1; i < N; ++i)
        if (i == at) v = set[i];
      return v;
    } else {
      return set[at];
    }
  }
};

}  // namespace stm::detail
