// SPDX-License-Identifier: Apache-2.0
// cmp/contention_manager.hpp - namespace stm::cm: the contention managers a
// run can choose by name, and the names they share.
//
// stm::cm is the one name of this folder, chosen once: every manager of cmp/
// is stm::cm::NAME (prstm, gpustm, backoff, delay), and cmp/registry.hpp turns
// a manager's name into its type. The interface a manager meets, its shared
// base and its tuning are part of the core, so that the core can default a
// transaction's manager without depending on this folder: they are documented
// in stm/manager.hpp (the extension point a user's own manager is written
// against) and named here under stm::cm as well. PR-STM's priority rule, the
// default, is stm/prstm.hpp (stm::cm::prstm, cmp/prstm.hpp). cmp/prstm_aging.hpp
// is prstm with an aging priority; it needs a table of ranks per launch, so
// the registry does not build it by name (stm_bench's vacation and skiplist
// select it with --priority aging, tools/stm_bench/priority.hpp).
#pragma once

#include "stm/manager.hpp"

namespace stm::cm {

/// Runtime knobs every built-in manager takes (stm/manager.hpp).
using tuning = manager_tuning;
/// The tuning, the wait rule for final locks and no per-access bookkeeping.
using stm::manager_base;
/// A manager of type CM with the given tuning.
using stm::with_tuning;

}  // namespace stm::cm
