// SPDX-License-Identifier: Apache-2.0
// containers/list/detail/value_index.hpp - the value -> node map of
// indexed_seq: an open-addressing hash table (linear probing) of 64-bit slots,
// written only by CAS from empty, so a slot never changes once set (until the
// host rebuilds the table at a quiescent point).
//
//   slot word: bit 63..32 value, bit 31..0 node index; 0 = empty (node 0 is
//   the head sentinel, never indexed, so no set slot is 0).
//
// The table has at least twice as many slots as the pool has nodes, and each
// pool node is published at most once per rebuild, so it is at most half
// full: a probe always ends at the value's slot or at an empty one.
//
// Synchronization table:
//   slot load          acquire  pairs with the release of the CAS that set it:
//                               whoever finds node i through the slot also sees
//                               the node word written before the CAS
//   slot CAS           acq_rel  release: see above; acquire: on failure the
//                               winner's node is read next
#pragma once

#include <cstdint>
#include <type_traits>

#include "stm/platform.hpp"

namespace stm::list::detail {

struct value_index_ref {
  std::uint64_t* slots = nullptr;
  std::uint64_t mask = 0;  // slots - 1 (a power of two)
  std::uint32_t shift = 64;  // 64 - log2(slots)

  STM_HD static constexpr std::uint64_t make(std::uint32_t value, std::uint32_t node) {
    return (std::uint64_t(value) << 32) | node;
  }
  STM_HD static constexpr std::uint32_t value_of(std::uint64_t s) { return static_cast<std::uint32_t>(s >> 32); }
  STM_HD static constexpr std::uint32_t node_of(std::uint64_t s) { return static_cast<std::uint32_t>(s); }
  STM_HD std::uint64_t home(std::uint32_t value) const {
    return shift >= 64 ? 0 : (std::uint64_t(value) * 0x9E3779B97F4A7C15ull) >> shift;  // Fibonacci hashing
  }

  /// The node published for value, or 0 when none.
  STM_HD std::uint32_t find(std::uint32_t value) const {
    for (std::uint64_t i = home(value);; i = (i + 1) & mask) {
      const std::uint64_t s = atomic_ref<std::uint64_t>(slots[i]).load(memory_order_acquire);  // see table
      if (s == 0) return 0;
      if (value_of(s) == value) return node_of(s);
    }
  }

  /// Publish value -> node unless value already has a slot. Returns the node
  /// the value's slot holds afterwards (== node when this call or an earlier
  /// call for the same node set it).
  STM_HD std::uint32_t publish(std::uint32_t value, std::uint32_t node) const {
    for (std::uint64_t i = home(value);; i = (i + 1) & mask) {
      std::uint64_t s = atomic_ref<std::uint64_t>(slots[i]).load(memory_order_acquire);  // see table
      if (s == 0) {
        if (atomic_ref<std::uint64_t>(slots[i]).compare_exchange_strong(s, make(value, node), memory_order_acq_rel,
                                                                        memory_order_acquire))  // see table
          return node;
        // s is now the winner's slot: fall through and look at it
      }
      if (value_of(s) == value) return node_of(s);
    }
  }
};
static_assert(std::is_trivially_copyable_v<value_index_ref>);

}  // namespace stm::list::detail
