// stm/tx_macros.hpp - TX_BEGIN / TX_END and the accessors that leave the body
// at the first conflict.
//
//   TX_BEGIN(tx) {
//     long a = TX_READ(tx, &x);      // leaves the body on a conflict
//     TX_WRITE(tx, &x, a + 1);
//     if (a < 0) TX_SEMANTIC_ABORT(tx);
//   } TX_END(tx);
//   // here: tx.status() is committed, semantic, or aborted (capacity)
//
// The body is retried until it commits, declares a semantic conflict, or
// overflows a set. Works in __global__/__device__ code and on the CPU backend.
// TX_READ is a GNU statement expression (nvcc, GCC and Clang all accept it);
// a body that calls helper functions passes the descriptor to them and uses
// tx.read()/tx.write() there, returning early when !tx.active().
// One TX_BEGIN/TX_END pair per block scope; pairs may follow one another.
//
// TX_ATTEMPT / TX_ATTEMPT_END run the body once: one attempt, then the commit.
// Afterwards tx.status() is committed, semantic, or aborted; tx.retryable()
// says whether the abort was a concurrent conflict, and then the next
// TX_ATTEMPT on the same descriptor is the next attempt of the same
// transaction (its attempt count goes on; tx.pause_ns() is how long the
// contention manager wants to wait first); call tx.begin() first to start a
// different transaction instead. It is for drivers that schedule
// retries themselves: the transaction table (stm/txtable.hpp) keeps the lanes
// of a warp running attempts side by side instead of letting every lane wait
// at the end of TX_END's loop for the lane that retries longest.
#pragma once

#include "stm/tx.hpp"

#define TX_BEGIN(tx)                      \
  for ((tx).begin();; ) {                 \
    __label__ stm_tx_abort_;              \
    {

#define TX_END(tx)                        \
    }                                     \
    if (false) goto stm_tx_abort_;        \
    if ((tx).commit()) break;             \
  stm_tx_abort_:                          \
    if (!(tx).retry()) break;             \
  }

#define TX_ATTEMPT(tx)                    \
  {                                       \
    __label__ stm_tx_abort_;              \
    (tx).start_attempt();                 \
    {

#define TX_ATTEMPT_END(tx)                \
    }                                     \
    if (false) goto stm_tx_abort_;        \
    (tx).commit();                        \
  stm_tx_abort_:;                         \
  }

#define TX_READ(tx, addr)                 \
  __extension__({                         \
    auto stm_tx_value_ = (tx).read(addr); \
    if (!(tx).active()) goto stm_tx_abort_; \
    stm_tx_value_;                        \
  })

#define TX_WRITE(tx, addr, value)         \
  do {                                    \
    (tx).write((addr), (value));          \
    if (!(tx).active()) goto stm_tx_abort_; \
  } while (0)

#define TX_SEMANTIC_ABORT(tx)             \
  do {                                    \
    (tx).semantic_conflict();             \
    goto stm_tx_abort_;                   \
  } while (0)
