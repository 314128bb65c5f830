// containers/stack/stack.hpp - every stack of containers/stack/.
//
//   treiber  lock-free linked-list stack of seed 000 (+ back-off, warp batching, batch elimination)
//   scan     Scan Stack of seed 001 (array, lowest-area scan, elimination)
//   sharded  the fast stack: warp elimination + locked array shards (relaxed LIFO)
//   tx       STM-backed array stack (any contention manager)
#pragma once

#include "containers/stack/scan.hpp"
#include "containers/stack/sharded.hpp"
#include "containers/stack/treiber.hpp"
#include "containers/stack/tx.hpp"
