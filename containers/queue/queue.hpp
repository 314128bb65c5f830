// SPDX-License-Identifier: Apache-2.0
// containers/queue/queue.hpp - every queue of the library (namespace stm::queue):
//   ticket_queue<T>  Scogland-Feng fetch-and-add ticket queue (fast; blocking,
//                    non-waiting and status interfaces; close)
//   ms_queue<T>      Michael-Scott lock-free queue (the classic baseline)
//   tx_queue<T>      bounded queue on the STM API (any contention manager; composes;
//                    one-shot calls combined per warp)
#pragma once

#include "containers/queue/ms.hpp"
#include "containers/queue/ticket.hpp"
#include "containers/queue/tx.hpp"
#include "containers/status.hpp"
