// SPDX-License-Identifier: Apache-2.0
// containers/stack/detail/warp.hpp - warp elimination shared by the native
// stacks.
//
// The lanes of `mask` (the active mask at a warp-cooperative call; every lane
// of it executes every collective below, in the same order) each carry one
// push or one pop. The k-th pushing lane (by lane order) hands its value to the
// k-th popping lane; those pairs complete at once: a push immediately followed
// by the pop that takes its value, linearized together while both calls are
// in progress. No shared memory is touched. On the CPU a warp is one lane and
// nothing is eliminated.
#pragma once

#include <cstdint>

#include "stm/platform.hpp"

namespace stm::stack::detail {

/// Lane of the n-th (0-based) set bit of x; x must have more than n bits set.
STM_HD inline std::uint32_t nth_set_bit(std::uint32_t x, std::uint32_t n) {
#if STM_ON_DEVICE
  return static_cast<std::uint32_t>(__fns(x, 0, static_cast<int>(n + 1)));
#else
  for (std::uint32_t i = 0; i < n; ++i) x &= x - 1;
  return platform::lowest_bit(x);
#endif
}

/// Rank of `lane` among the set bits of x (bits below it).
STM_HD inline std::uint32_t rank_in(std::uint32_t x, std::uint32_t lane) {
  return platform::popc(x & ((1u << lane) - 1u));
}

/// What warp elimination leaves to do: the lanes whose operation still has to
/// go to the shared structure, all pushing or all popping.
struct warp_plan {
  std::uint32_t mask;      // lanes taking part
  std::uint32_t pushers;   // lanes pushing (before elimination)
  std::uint32_t poppers;   // lanes popping (before elimination)
  std::uint32_t pairs;     // eliminated pairs
  std::uint32_t rest;      // lanes left for the shared structure (all of one kind)
  bool rest_push;          // kind of the rest
  std::uint32_t leader;    // lowest lane of mask
  std::uint32_t lane;
  bool eliminated;         // this lane's operation is complete
};

/// Pair pushes with pops inside the warp. `bits` is the value of a pushing
/// lane (ignored for pops); an eliminated popping lane receives its value in
/// `bits`. Returns the plan; collective over `mask`.
template <class W>
STM_HD inline warp_plan warp_eliminate(std::uint32_t mask, bool is_push, W& bits) {
  warp_plan p;
  p.mask = mask;
  p.lane = platform::lane_id();
  p.leader = platform::lowest_bit(mask);
  p.pushers = platform::ballot(mask, is_push);
  p.poppers = mask & ~p.pushers;
  const std::uint32_t np = platform::popc(p.pushers), nq = platform::popc(p.poppers);
  p.pairs = np < nq ? np : nq;
  p.rest_push = np > nq;
  p.rest = p.rest_push ? np - nq : nq - np;
  const std::uint32_t r = rank_in(is_push ? p.pushers : p.poppers, p.lane);
  p.eliminated = r < p.pairs;
  if (p.pairs > 0) {
    // Every lane executes the shuffle; a popping lane of rank r < pairs reads
    // the pushing lane of the same rank (the source of the others is unused).
    const std::uint32_t partner = nth_set_bit(p.pushers, r < p.pairs && !is_push ? r : 0);
    const W got = platform::shfl(mask, bits, partner);
    if (!is_push && p.eliminated) bits = got;
  }
  return p;
}

/// Among the lanes not eliminated, the rank of this lane (0 = first), i.e. its
/// position in the batch the leader sends to the shared structure.
STM_HD inline std::uint32_t batch_rank(const warp_plan& p, bool is_push) {
  return rank_in(is_push ? p.pushers : p.poppers, p.lane) - p.pairs;
}

/// Lane of batch position j (the (pairs + j)-th lane of the rest's kind).
STM_HD inline std::uint32_t batch_lane(const warp_plan& p, std::uint32_t j) {
  return nth_set_bit(p.rest_push ? p.pushers : p.poppers, p.pairs + j);
}

}  // namespace stm::stack::detail
