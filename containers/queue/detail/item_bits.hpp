// SPDX-License-Identifier: Apache-2.0
// containers/queue/detail/item_bits.hpp - items travel through the queues as
// 32- or 64-bit words (the width of the item), copied bit for bit.
#pragma once

#include <cstdint>
#include <type_traits>

#include <cuda/std/bit>

#include "stm/platform.hpp"

namespace stm::queue::detail {

template <class T>
inline constexpr bool is_queue_item =
    std::is_trivially_copyable_v<T> && (sizeof(T) == 4 || sizeof(T) == 8) && alignof(T) <= sizeof(T);

/// The unsigned word an item of type T is stored in.
template <class T>
using item_word_t = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;

template <class W, class T>
STM_HD inline W item_to_word(const T& v) {
  static_assert(sizeof(W) == sizeof(T));
  return cuda::std::bit_cast<W>(v);
}

template <class T, class W>
STM_HD inline T word_to_item(W w) {
  static_assert(sizeof(W) == sizeof(T));
  return cuda::std::bit_cast<T>(w);
}

}  // namespace stm::queue::detail
