// stm/tx_macros.hpp - the transaction forms of a kernel, and the accessors
// that leave the body at the first conflict.
//
// Many transactions per thread (the common kernel): TX_FOR.
//
//   TX_FOR(tx, i, n) {                // transactions i = 0..n-1 of this thread
//     long a = TX_READ(tx, &x[i]);    // leaves the body on a conflict
//     TX_WRITE(tx, &x[i], a + 1);
//     if (a < 0) TX_SEMANTIC_ABORT(tx);
//   } TX_FOR_END(tx);
//
//   TX_FOR(tx, i, n) { ... } TX_FOR_THEN(tx) {
//     // once per transaction i, when it has ended: tx.status() is committed,
//     // semantic, or aborted (capacity)
//     if (tx.committed()) out[i] = 1;
//   }
//
// Each transaction is retried until it commits, declares a semantic conflict
// (then it is not retried: the loop goes on with i + 1) or overflows a set.
// A lane whose attempt aborted pauses as its contention manager asks
// (tx.pause_ns()) while the other lanes of its warp go on with their next
// transactions, so a warp does not wait for its unluckiest lane at every
// transaction (stm/detail/tx_loop.hpp). Transactions run in order of i; the
// body reads its transaction from i (and the thread's own data).
//
// One transaction: TX_BEGIN / TX_END.
//
//   TX_BEGIN(tx) {
//     long a = TX_READ(tx, &x);
//     TX_WRITE(tx, &x, a + 1);
//   } TX_END(tx);
//   // here: tx.status() is committed, semantic, or aborted (capacity)
//
// The same retry rules. The lanes of a warp that entered TX_BEGIN together
// leave TX_END only when each has its outcome; their retries take turns by
// deadline as in TX_FOR (STM_TX_END_SCHEDULE=0 at build time: each lane
// sleeps its pause in place, as before). A per-thread loop of TX_BEGIN/TX_END
// is correct but waits for the slowest lane of the warp at every transaction:
// write it as TX_FOR.
//
// Both work in __global__/__device__ code and on the CPU backend. TX_READ is
// a GNU statement expression (nvcc, GCC and Clang all accept it); a body that
// calls helper functions passes the descriptor to them and uses
// tx.read()/tx.write() there, returning early when !tx.active(). A body must
// not leave its form by break, continue, return or goto, nor use warp-
// collective operations across lanes (the lanes of a warp are in different
// transactions). One form per block scope; forms may follow one another.
//
// TX_ATTEMPT / TX_ATTEMPT_END run the body once: one attempt, then the commit.
// Afterwards tx.status() is committed, semantic, or aborted; tx.retryable()
// says whether the abort was a concurrent conflict, and then the next
// TX_ATTEMPT on the same descriptor is the next attempt of the same
// transaction (its attempt count goes on; tx.pause_ns() is how long the
// contention manager wants to wait first); call tx.begin() first to start a
// different transaction instead. It is for drivers that schedule
// retries themselves: the transaction table (stm/txtable.hpp) keeps the lanes
// of a warp running attempts side by side, as TX_FOR does.
#pragma once

#include <cstdint>
#include <type_traits>

#include "stm/detail/tx_loop.hpp"
#include "stm/tx.hpp"

/// 1 (default): TX_BEGIN/TX_END schedule their retries as TX_FOR does. 0: each
/// lane sleeps its pause in place (transaction::retry) and retries at once.
#ifndef STM_TX_END_SCHEDULE
#define STM_TX_END_SCHEDULE 1
#endif

#define TX_FOR(tx, i, n)                                                                          \
  for (::stm::detail::tx_loop<::std::remove_reference_t<decltype(tx)>, true> stm_tx_loop_((tx), (n)); \
       stm_tx_loop_.next();)                                                                      \
    if (const ::std::uint32_t i = stm_tx_loop_.index(); ((void)i, stm_tx_loop_.attempting())) {  \
      __label__ stm_tx_abort_;                                                                    \
      stm_tx_loop_.start_attempt();                                                               \
      {

#define TX_FOR_THEN(tx)                   \
      }                                   \
      if (false) goto stm_tx_abort_;      \
      (tx).commit();                      \
    stm_tx_abort_:;                       \
    } else

#define TX_FOR_END(tx) TX_FOR_THEN(tx) (void)0

#if STM_TX_END_SCHEDULE
#define TX_BEGIN(tx)                                                                               \
  for (::stm::detail::tx_loop<::std::remove_reference_t<decltype(tx)>, false> stm_tx_loop_((tx), 1u); \
       stm_tx_loop_.next();) {                                                                     \
    __label__ stm_tx_abort_;                                                                       \
    stm_tx_loop_.start_attempt();                                                                  \
    {

#define TX_END(tx)                        \
    }                                     \
    if (false) goto stm_tx_abort_;        \
    (tx).commit();                        \
  stm_tx_abort_:;                         \
  }
#else
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
#endif

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
