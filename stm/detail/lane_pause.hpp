// SPDX-License-Identifier: Apache-2.0
// stm/detail/lane_pause.hpp - a lane's pause as a deadline, and the turn-taking
// of the lanes of a warp that pause at different times. Shared by the drivers
// that run one attempt at a time: the transaction table (txtable_drain.hpp)
// and the loop forms TX_FOR and TX_BEGIN/TX_END (tx_loop.hpp).
//
// On the GPU a pause is a deadline on the lane's clock (platform::ticks): the
// lane skips its turns until then while the other lanes of its warp go on,
// and the warp sleeps only when every lane that takes part pauses, until the
// first deadline. On the CPU a warp is one thread, which sleeps its pause at
// once (start()).
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "stm/platform.hpp"

namespace stm::detail {

struct lane_pause {
  std::uint64_t until = 0;  // no turn before this tick; 0: not pausing
  std::uint32_t span = 0;   // length of the current pause in ticks (bounds a clock that jumped)

  /// Pause `ns` nanoseconds from now.
  STM_HD void start(std::uint32_t ns) {
#if STM_ON_DEVICE
    span = ns * platform::ticks_per_ns();
    until = platform::ticks() + span;
#else
    platform::backoff_ns(ns);
#endif
  }
  /// Forget the pause (a new block of work).
  STM_HD void clear() { until = 0; }

  /// Ticks this lane still pauses; 0 once the deadline has passed.
  STM_HD std::uint32_t left() {
    if (until == 0) return 0;
    const std::uint64_t now = platform::ticks();
    if (now < until && until - now <= span) return static_cast<std::uint32_t>(until - now);
    until = 0;
    return 0;
  }
};

/// Whether a driver's descriptor type takes part in admission control
/// (stm::transaction: drive_admission, admit); the
/// drivers also run descriptors without it (a workload's native baseline).
template <class Tx, class = void>
struct drives_admission : std::false_type {};
template <class Tx>
struct drives_admission<Tx, std::void_t<decltype(std::declval<Tx&>().admit(std::declval<std::uint32_t&>()))>>
    : std::true_type {};

/// The driver's side of admission control (stm/detail/admission.hpp): on for
/// the lifetime of a form or a drain on descriptor tx.
template <class Tx>
STM_HD inline void drive_admission(Tx& tx, bool on) {
  if constexpr (drives_admission<Tx>::value) tx.drive_admission(on);
}
/// A lane's turn: true when its next attempt may open now; false when its
/// gate is full, with the pause to take in `pause_ns`.
template <class Tx>
STM_HD inline bool admitted(Tx& tx, std::uint32_t& pause_ns) {
  if constexpr (drives_admission<Tx>::value) {
    return tx.admit(pause_ns);
  } else {
    return true;
  }
}

/// What a descriptor enters the footprint gate with after its last attempt
/// (stm::transaction::footprint_bytes; 0 for one without admission control).
template <class Tx>
STM_HD inline std::uint32_t footprint_bytes(const Tx& tx) {
  if constexpr (drives_admission<Tx>::value) {
    return tx.footprint_bytes();
  } else {
    return 0;
  }
}
/// The same unweighted (stm::transaction::set_bytes).
template <class Tx>
STM_HD inline std::uint32_t set_bytes(const Tx& tx) {
  if constexpr (drives_admission<Tx>::value) {
    return tx.set_bytes();
  } else {
    return 0;
  }
}
template <class Tx>
STM_HD inline constexpr std::uint32_t set_capacity_bytes() {
  if constexpr (drives_admission<Tx>::value) {
    return Tx::set_capacity_bytes;
  } else {
    return 0;
  }
}

/// One turn of the lanes of `live` (every one of them calls it, at the same
/// call site): true when this lane's pause is over and it may run now. When
/// every lane of `live` pauses, the warp sleeps until the first deadline and
/// every lane gets false (call again).
STM_HD inline bool lane_turn(std::uint32_t live, lane_pause& p) {
  const std::uint32_t left = p.left();
  const std::uint32_t first = platform::reduce_min(live, left);
  if (first != 0) {
    platform::backoff_ns(first / platform::ticks_per_ns());
    return false;
  }
  return left == 0;
}

}  // namespace stm::detail
