// SPDX-License-Identifier: Apache-2.0
// stm/detail/manager_traits.hpp - what the core asks of a contention manager
// type beyond the required interface: the optional members of stm/manager.hpp
// (pause_ns, fences_final_locks, dooms_read, semantic_retries), each read
// through a trait so that a manager without it gets the documented default.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "stm/platform.hpp"
#include "stm/tx_config.hpp"

namespace stm::detail {

/// CM has `std::uint32_t pause_ns(tid, attempt, cause) const`.
template <class CM, class = void>
struct has_pause_ns : std::false_type {};
template <class CM>
struct has_pause_ns<CM, std::void_t<decltype(std::declval<const CM&>().pause_ns(0u, 0u, abort_cause::read_locked))>>
    : std::true_type {};

/// CM::fences_final_locks: the manager's acquire() ends with fence (A) of
/// stm/detail/tx_core.hpp, so publish() does not repeat it.
template <class CM, class = void>
struct fences_final_locks : std::false_type {};
template <class CM>
struct fences_final_locks<CM, std::enable_if_t<CM::fences_final_locks>> : std::true_type {};

/// cm.dooms_read(word, tid), or false for a manager without it (see
/// stm/manager.hpp).
template <class CM, class = void>
struct has_dooms_read : std::false_type {};
template <class CM>
struct has_dooms_read<CM, std::void_t<decltype(std::declval<const CM&>().dooms_read(0u, 0u))>> : std::true_type {};
template <class CM>
STM_HD bool dooms_read(const CM& cm, std::uint32_t word, std::uint32_t tid) {
  if constexpr (has_dooms_read<CM>::value) return cm.dooms_read(word, tid);
  else return false;
}

/// cm.on_attempt(tid, attempt): called before every attempt of a transaction
/// (attempt 0 the first), for a manager whose priorities change between
/// attempts (cmp/prstm_aging.hpp); nothing for the others.
template <class CM, class = void>
struct has_on_attempt : std::false_type {};
template <class CM>
struct has_on_attempt<CM, std::void_t<decltype(std::declval<const CM&>().on_attempt(0u, 0u))>> : std::true_type {};
template <class CM>
STM_HD void on_attempt(const CM& cm, std::uint32_t tid, std::uint32_t attempt) {
  if constexpr (has_on_attempt<CM>::value) cm.on_attempt(tid, attempt);
}

/// CM::semantic_retries, or 0 (postpone semantic conflicts: PR-STM's rule).
template <class CM, class = void>
struct semantic_retries_of {
  static constexpr std::uint32_t value = 0;
};
template <class CM>
struct semantic_retries_of<CM, std::void_t<decltype(CM::semantic_retries)>> {
  static constexpr std::uint32_t value = static_cast<std::uint32_t>(CM::semantic_retries);
};

}  // namespace stm::detail
