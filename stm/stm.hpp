// SPDX-License-Identifier: Apache-2.0
// stm/stm.hpp - everything a kernel needs to run PR-STM transactions, with
// PR-STM's priority rule as the contention manager (stm/prstm.hpp; named
// stm::prstm and stm::cm::prstm). The other managers are in cmp/ (namespace
// stm::cm; cmp/registry.hpp has them all).
//
//   stm::transaction<> tx(locks, tid);              // stm/tx.hpp
//   stm::transaction<stm::cm::prstm> same(locks, tid);  // the default manager, by its name in cmp/
//   TX_BEGIN(tx) { ... TX_READ / TX_WRITE ... } TX_END(tx);  // stm/tx_macros.hpp
//   stm::snapshot_transaction big(locks, tid);     // long read-only scans: stm/snapshot_tx.hpp
#pragma once

#include "stm/buffer.hpp"
#include "stm/lock_table.hpp"
#include "stm/lock_word.hpp"
#include "stm/manager.hpp"
#include "stm/prstm.hpp"
#include "stm/snapshot_tx.hpp"
#include "stm/stats.hpp"
#include "stm/tx.hpp"
#include "stm/tx_macros.hpp"
