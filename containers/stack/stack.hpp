// SPDX-License-Identifier: Apache-2.0
// containers/stack/stack.hpp - every stack of containers/stack/.
//
//   treiber  Treiber's lock-free linked-list stack (+ back-off, warp batching, batch elimination)
//   scan     South's Scan Stack (array, lowest-area scan, elimination)
//   sharded  the fast stack: warp elimination + locked array shards (relaxed LIFO)
//   tx       STM-backed array stack (any contention manager)
#pragma once

#include "containers/stack/scan.hpp"
#include "containers/stack/sharded.hpp"
#include "containers/stack/treiber.hpp"
#include "containers/stack/tx.hpp"
