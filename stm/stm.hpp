// stm/stm.hpp - everything a kernel needs to run PR-STM transactions.
#pragma once

#include "cmp/prstm.hpp"
#include "stm/buffer.hpp"
#include "stm/lock_table.hpp"
#include "stm/lock_word.hpp"
#include "stm/stats.hpp"
#include "stm/tx.hpp"
#include "stm/tx_macros.hpp"
