// SPDX-License-Identifier: Apache-2.0
// containers/queue/detail/lane_group.hpp - the lanes of a warp that call one
// operation on one queue together (tx_queue's combined one-shot calls).
//
// A call's active mask may hold lanes that work on different queues (a kernel
// may hand each lane its own ref): only lanes of the same queue may share a
// transaction, so the mask is split by a key (the queue's storage address).
// Every lane of the active mask calls group_of; each leaves with its own
// group, lanes in lane order, led by its lowest lane. On the CPU a warp is
// one thread: every group is that thread alone.
#pragma once

#include <cstdint>

#include "stm/platform.hpp"

namespace stm::queue::detail {

/// This lane's group: the lanes of the active mask with the same key.
struct lane_group {
  std::uint32_t mask = 1;    ///< lanes of the group
  std::uint32_t lane = 0;    ///< this lane
  std::uint32_t leader = 0;  ///< lowest lane of mask: runs the group's transaction
  std::uint32_t size = 1;    ///< lanes in mask
  std::uint32_t rank = 0;    ///< position of this lane among them (lane order)
  STM_HD bool leads() const { return lane == leader; }
};

/// Rank of `lane` among the set bits of x (set bits below it).
STM_HD inline std::uint32_t rank_in(std::uint32_t x, std::uint32_t lane) {
  return platform::popc(x & ((1u << lane) - 1u));
}

/// Collective over the active mask: splits it by `key`. Each round the lowest
/// remaining lane's key is broadcast; the lanes that hold it leave as one
/// group, the others go round again with a smaller mask (only lanes still in
/// it take part in its shuffle and ballot).
STM_HD inline lane_group group_of(std::uint64_t key) {
  lane_group g;
  g.lane = platform::lane_id();
  std::uint32_t rest = platform::active_mask();
  for (;;) {
    const std::uint64_t first = platform::shfl(rest, key, platform::lowest_bit(rest));
    const std::uint32_t same = platform::ballot(rest, first == key);
    if (first == key) {
      g.mask = same;
      break;
    }
    rest &= ~same;
  }
  g.leader = platform::lowest_bit(g.mask);
  g.size = platform::popc(g.mask);
  g.rank = rank_in(g.mask, g.lane);
  return g;
}

}  // namespace stm::queue::detail
