// SPDX-License-Identifier: Apache-2.0
// containers/stack/common.hpp - what every stack of containers/stack/ shares:
// the operation kind and value encoding (the status is stm::op_status,
// containers/status.hpp).
//
// Values: any trivially copyable 4- or 8-byte type. Stacks that reserve bit
// patterns (scan) say so in their header and refuse them with
// op_status::rejected; nothing reserved is ever stored.
//
// Warp cooperation: every native stack's exec() is warp-cooperative. The lanes
// of a warp that call exec() together (the active mask at the call) pair their
// pushes with their pops (warp elimination) and send the surplus to the shared
// structure as one batch. push() and pop() are exec() with a fixed kind, so
// lanes that push and lanes that pop in different branches of one warp do not
// meet; call exec() from converged code to get elimination. On the CPU backend
// a warp is one thread and exec() is the plain operation.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "containers/status.hpp"
#include "stm/platform.hpp"

namespace stm::stack {

enum class op_kind : std::uint32_t { push = 0, pop = 1 };

template <class T>
inline constexpr bool is_stack_value = std::is_trivially_copyable_v<T> && (sizeof(T) == 4 || sizeof(T) == 8);

namespace detail {

/// The unsigned word a value's bits are stored in.
template <class T>
using word_t = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;

template <class T>
STM_HD inline word_t<T> bits_of(const T& v) {
  word_t<T> w;
  std::memcpy(&w, &v, sizeof(T));
  return w;
}
template <class T>
STM_HD inline T value_of(word_t<T> w) {
  T v;
  std::memcpy(&v, &w, sizeof(T));
  return v;
}

}  // namespace detail
}  // namespace stm::stack
