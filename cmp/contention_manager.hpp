// SPDX-License-Identifier: Apache-2.0
// cmp/contention_manager.hpp - namespace stm::cm: the contention managers a
// run can choose by name, and the names they share.
//
// stm::cm is the one name of this folder, chosen once: every manager of cmp/
// is stm::cm::NAME (prstm, gpustm, backoff, delay), and cmp/registry.hpp turns
// a manager's name into its type. The interface a manager meets, its shared
// base and its tuning (stm::manager_tuning) are part of the core, so that the
// core can default a transaction's manager without depending on this folder:
// they are documented in stm/manager.hpp (the extension point a user's own
// manager is written against); the base and with_tuning are named here under
// stm::cm as well. PR-STM's priority rule, the
// default, is stm/prstm.hpp (stm::cm::prstm, cmp/prstm.hpp). cmp/prstm_aging.hpp
// is prstm with an aging priority; it needs a table of ranks per launch, so
// the registry does not build it by name (stm_bench's vacation and skiplist
// select it with --priority aging, tools/stm_bench/priority.hpp).
#pragma once

#include <cstdint>
#include <type_traits>

#include "stm/manager.hpp"

namespace stm::cm {

/// The tuning, the wait rule for final locks and no per-access bookkeeping.
using stm::manager_base;
/// A manager of type CM with the given tuning.
using stm::with_tuning;

/// Distinct locks one transaction may touch under a manager of type CM:
/// CM::log_capacity for a manager that logs every lock it takes (gpustm),
/// else 0 (no bound). A larger transaction aborts for capacity on every
/// attempt, so a driver refuses such a configuration before it runs it.
template <class CM, class = void>
struct log_capacity : std::integral_constant<std::uint32_t, 0> {};
template <class CM>
struct log_capacity<CM, std::void_t<decltype(CM::log_capacity)>>
    : std::integral_constant<std::uint32_t, static_cast<std::uint32_t>(CM::log_capacity)> {};

}  // namespace stm::cm
