// stm/stm.hpp - everything a kernel needs to run PR-STM transactions, with
// PR-STM's priority rule as the contention manager (stm/prstm.hpp). The other
// managers are in cmp/ (namespace stm::cm; cmp/registry.hpp has them all).
#pragma once

#include "stm/buffer.hpp"
#include "stm/lock_table.hpp"
#include "stm/lock_word.hpp"
#include "stm/manager.hpp"
#include "stm/prstm.hpp"
#include "stm/stats.hpp"
#include "stm/tx.hpp"
#include "stm/tx_macros.hpp"
