// SPDX-License-Identifier: Apache-2.0
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
// a GNU statement expression (nvcc, GCC and Clang all accept it). A body must
// not use warp-collective operations across lanes (the lanes of a warp are in
// different transactions). Forms may follow one another.
//
// Helper functions. A function the body calls works inside the caller's
// transaction: it takes the descriptor, reads and writes with TX_READ_IN and
// TX_WRITE_IN, which on a conflict return their last argument from the
// helper (nothing for a void helper), and the body calls it through TX_CALL,
// which leaves the body when the transaction aborted inside the call (or
// TX_CHECK after a call whose value it does not need):
//
//   template <class Tx>
//   STM_HD bool take(Tx& tx, int* from, int amount) {   // false: not enough (or aborted)
//     const int a = TX_READ_IN(tx, from, false);
//     if (a < amount) return false;
//     TX_WRITE_IN(tx, from, a - amount, false);
//     return true;
//   }
//   TX_BEGIN(tx) { if (!TX_CALL(tx, take(tx, &x, 10))) TX_SEMANTIC_ABORT(tx); } TX_END(tx);
//
// Mistakes caught (stm/detail/check.hpp has the rules):
//  - The body is the body of a lambda that the form calls once per attempt
//    (always inlined). So `break` and
//    `continue` outside a loop of the body, `return` and `goto` out of it do
//    not compile (the lambda's return type, whose name says so, takes no
//    value of the user's; TX_READ leaves by returning one of its own).
//  - A form written inside a body or a TX_FOR_THEN clause does not compile
//    (static_assert: rule nested-form; a clause runs while the other lanes
//    of the warp attempt their transactions, and a form's warp-wide steps
//    would meet the loop's); TX_READ, TX_WRITE, TX_SEMANTIC_ABORT, TX_CALL, TX_CHECK
//    outside a body do not compile (in a helper: TX_READ_IN, TX_WRITE_IN);
//    an end macro that does not match its form does not compile (e.g.
//    TX_FOR_END after TX_FOR_THEN's clause, which already ends the loop).
//  - At run time with STM_CHECKS (debug builds): a form started on a
//    descriptor whose own form runs (through a function the body called), and
//    a TX_FOR_THEN clause left by break, return or goto, stop the program
//    with the rule's message (a then-clause is a plain block: the macros have
//    no end to put a lambda's closing brace after it). Without STM_CHECKS a
//    `break` there ends the clause, and the loop goes on. (A function called
//    from a clause that starts a form on another descriptor is not caught.)
// Cost: a release build runs no check of its own here (the lambda is
// inlined, the guards are empty), but the body's new shape can move register
// allocation, mostly in kernels with a long TX_ATTEMPT body
// (docs/design-decisions.md#lambda-forms). STM_CHECKS adds a flag to the
// descriptor, a test per form and a printf to the kernel.
// One limit of the lambda: C++17 does not capture structured bindings, so a
// body cannot name one declared outside it (declare it inside the body).
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

#include "stm/detail/check.hpp"
#include "stm/detail/tx_loop.hpp"
#include "stm/tx.hpp"

/// 1 (default): TX_BEGIN/TX_END schedule their retries as TX_FOR does. 0: each
/// lane sleeps its pause in place (transaction::retry) and retries at once.
#ifndef STM_TX_END_SCHEDULE
#define STM_TX_END_SCHEDULE 1
#endif

namespace stm::detail {

/// Which form a body belongs to (so that an end macro can check it closes its own).
enum class form_kind { for_loop, begin, attempt };

/// The type of the marker a body's lambda takes as its parameter,
/// `stm_tx_body_marker_`; outside every body that name is the function
/// declared below, so the macros can tell at compile time whether they are
/// inside a body, and of which form.
template <form_kind K>
struct in_body {};
struct outside_body {};
template <class T>
inline constexpr bool is_body_v = false;
template <form_kind K>
inline constexpr bool is_body_v<in_body<K>> = true;
template <class T, form_kind K>
inline constexpr bool is_body_of_v = false;
template <form_kind K>
inline constexpr bool is_body_of_v<in_body<K>, K> = true;
/// Inside a body or a TX_FOR_THEN clause (its then_once is named
/// stm_tx_body_marker_): no form may start there.
template <class T>
inline constexpr bool in_form_v = is_body_v<T> || std::is_same_v<T, then_once>;

/// The return type of a body's lambda. Only the macros make one, so a
/// `return` in a body (with or without a value) does not compile, and the
/// error names the rule. It says whether the body ran to its end (then the
/// form commits) or left it at a conflict or a semantic abort (then the
/// form skips the commit, as a jump past it would).
class no_return_break_continue_or_goto_in_a_transaction_body {
 public:
  STM_HD static no_return_break_continue_or_goto_in_a_transaction_body end() { return {key{}, true}; }
  STM_HD static no_return_break_continue_or_goto_in_a_transaction_body left() { return {key{}, false}; }
  STM_HD bool reached_end() const { return reached_end_; }

 private:
  struct key {};  // no value of the user's converts to this type
  STM_HD no_return_break_continue_or_goto_in_a_transaction_body(key, bool reached) : reached_end_(reached) {}
  bool reached_end_;
};

}  // namespace stm::detail

/// Outside every transaction body, the name the macros' compile-time checks
/// look up (a body's lambda parameter of the same name hides it). Declared
/// only: never defined, never called.
::stm::detail::outside_body stm_tx_body_marker_();

// The pieces of the forms. A body is the lambda
//   [&](in_body<K> stm_tx_body_marker_) -> no_return_..._body { { user } return ...::end(); }
// called at once, and the form commits when it ran to its end:
//   const bool stm_tx_reached_end_ = <lambda>(in_body<K>{}).reached_end();
//   if (stm_tx_reached_end_) tx.commit();
// always_inline keeps it inline; a body that leaves early skips the commit,
// as the jump past it of the macros' form before the lambda did.
#define STM_DETAIL_BODY_(kind)                                                                              \
  const bool stm_tx_reached_end_ =                                                                          \
      [&]([[maybe_unused]] ::stm::detail::in_body<::stm::detail::form_kind::kind> stm_tx_body_marker_)      \
          __attribute__((always_inline)) -> ::stm::detail::no_return_break_continue_or_goto_in_a_transaction_body {
#define STM_DETAIL_BODY_END_(kind)                                                                          \
    return ::stm::detail::no_return_break_continue_or_goto_in_a_transaction_body::end();                   \
  }(::stm::detail::in_body<::stm::detail::form_kind::kind>{}).reached_end();                               \
  if (stm_tx_reached_end_)
#define STM_DETAIL_NOT_NESTED_                                                                              \
  static_assert(!::stm::detail::in_form_v<decltype(stm_tx_body_marker_)>,                                   \
                "prstm rule nested-form: a transaction form (TX_FOR, TX_BEGIN, TX_ATTEMPT) inside a transaction " \
                "body or a TX_FOR_THEN clause; nested transactions are not supported (a helper works on the " \
                "body's transaction: TX_READ_IN, TX_CALL), and a clause runs beside the warp's other lanes' " \
                "attempts, whose warp-wide steps a form's would meet (start it after the TX_FOR)")
#define STM_DETAIL_CLOSES_(kind, msg) \
  static_assert(::stm::detail::is_body_of_v<decltype(stm_tx_body_marker_), ::stm::detail::form_kind::kind>, msg)
#define STM_DETAIL_IN_BODY_(macro)                                                                          \
  static_assert(::stm::detail::is_body_v<decltype(stm_tx_body_marker_)>,                                    \
                "prstm: " #macro " is used outside a transaction body (in a helper function that takes the " \
                "caller's transaction use TX_READ_IN / TX_WRITE_IN, stm/tx_macros.hpp)")
/// Leave the body: the attempt ended (the form's end commits or retries it).
#define STM_DETAIL_LEAVE_BODY_ return ::stm::detail::no_return_break_continue_or_goto_in_a_transaction_body::left()

// The forms' own variables take a name unique in the translation unit
// (__COUNTER__, expanded once per form): forms that follow one another in one
// scope never shadow each other's (-Wshadow).
#define STM_DETAIL_CAT2_(a, b) a##b
#define STM_DETAIL_CAT_(a, b) STM_DETAIL_CAT2_(a, b)

#define TX_FOR(tx, i, n) STM_DETAIL_FOR_(tx, i, n, STM_DETAIL_CAT_(stm_tx_loop_, __COUNTER__))
#define STM_DETAIL_FOR_(tx, i, n, loop)                                                                     \
  for (::stm::detail::tx_loop<::std::remove_reference_t<decltype(tx)>, true> loop((tx), (n), __FILE__, __LINE__); \
       loop.next();)                                                                                        \
    if (const ::std::uint32_t i = loop.index(); ((void)i, loop.attempting())) {                            \
      STM_DETAIL_NOT_NESTED_;                                                                               \
      loop.start_attempt();                                                                                 \
      STM_DETAIL_BODY_(for_loop)

#define TX_FOR_THEN(tx)                                                                                     \
      STM_DETAIL_CLOSES_(for_loop, "prstm: TX_FOR_THEN / TX_FOR_END must close a TX_FOR body (TX_FOR(tx, i, n) { ... } " \
                                   "TX_FOR_THEN(tx) { ... } already ends the loop: no TX_FOR_END after it)"); \
      STM_DETAIL_BODY_END_(for_loop)                                                                    \
      (tx).commit();                                                                                        \
    } else                                                                                                  \
      for (::stm::detail::then_once stm_tx_body_marker_(__FILE__, __LINE__); stm_tx_body_marker_.next();)

#define TX_FOR_END(tx) TX_FOR_THEN(tx) (void)0

#define TX_BEGIN(tx) STM_DETAIL_BEGIN_(tx, STM_DETAIL_CAT_(stm_tx_loop_, __COUNTER__))
#if STM_TX_END_SCHEDULE
#define STM_DETAIL_BEGIN_(tx, loop)                                                                         \
  for (::stm::detail::tx_loop<::std::remove_reference_t<decltype(tx)>, false> loop((tx), 1u, __FILE__, __LINE__); \
       loop.next();) {                                                                                      \
    STM_DETAIL_NOT_NESTED_;                                                                                 \
    loop.start_attempt();                                                                                   \
    STM_DETAIL_BODY_(begin)
#else
#define STM_DETAIL_BEGIN_(tx, loop)                                                                         \
  for (::stm::detail::retry_loop<::std::remove_reference_t<decltype(tx)>> loop((tx), __FILE__, __LINE__);  \
       loop.next();) {                                                                                      \
    STM_DETAIL_NOT_NESTED_;                                                                                 \
    STM_DETAIL_BODY_(begin)
#endif

#define TX_END(tx)                                                                                          \
    STM_DETAIL_CLOSES_(begin, "prstm: TX_END must close a TX_BEGIN body (a TX_FOR ends with TX_FOR_END or "  \
                              "TX_FOR_THEN, a TX_ATTEMPT with TX_ATTEMPT_END)");                            \
    STM_DETAIL_BODY_END_(begin)                                                                         \
    (tx).commit();                                                                                          \
  }

#define TX_ATTEMPT(tx) STM_DETAIL_ATTEMPT_(tx, STM_DETAIL_CAT_(stm_tx_guard_, __COUNTER__))
#define STM_DETAIL_ATTEMPT_(tx, guard)                                                                      \
  {                                                                                                         \
    STM_DETAIL_NOT_NESTED_;                                                                                 \
    const ::stm::detail::form_guard<::std::remove_reference_t<decltype(tx)>> guard((tx), __FILE__, __LINE__); \
    (tx).start_attempt();                                                                                   \
    STM_DETAIL_BODY_(attempt)

#define TX_ATTEMPT_END(tx)                                                                                  \
    STM_DETAIL_CLOSES_(attempt, "prstm: TX_ATTEMPT_END must close a TX_ATTEMPT body");                      \
    STM_DETAIL_BODY_END_(attempt)                                                                       \
    (tx).commit();                                                                                          \
  }

#define TX_READ(tx, addr)                                                                                   \
  __extension__({                                                                                           \
    STM_DETAIL_IN_BODY_(TX_READ);                                                                           \
    auto stm_tx_value_ = (tx).read(addr);                                                                   \
    if (!(tx).active()) STM_DETAIL_LEAVE_BODY_;                                                             \
    stm_tx_value_;                                                                                          \
  })

#define TX_WRITE(tx, addr, value)                                                                           \
  do {                                                                                                      \
    STM_DETAIL_IN_BODY_(TX_WRITE);                                                                          \
    (tx).write((addr), (value));                                                                            \
    if (!(tx).active()) STM_DETAIL_LEAVE_BODY_;                                                             \
  } while (0)

#define TX_SEMANTIC_ABORT(tx)                                                                               \
  do {                                                                                                      \
    STM_DETAIL_IN_BODY_(TX_SEMANTIC_ABORT);                                                                 \
    (tx).semantic_conflict();                                                                               \
    STM_DETAIL_LEAVE_BODY_;                                                                                 \
  } while (0)

/// In a body: the value of a call of a helper on the body's transaction (not
/// void), leaving the body when the transaction aborted inside it.
#define TX_CALL(tx, ...)                                                                                    \
  __extension__({                                                                                           \
    STM_DETAIL_IN_BODY_(TX_CALL);                                                                           \
    auto stm_tx_value_ = (__VA_ARGS__);                                                                     \
    if (!(tx).active()) STM_DETAIL_LEAVE_BODY_;                                                             \
    stm_tx_value_;                                                                                          \
  })

/// In a body: leave it when the transaction aborted (after a helper's call).
#define TX_CHECK(tx)                                                                                        \
  do {                                                                                                      \
    STM_DETAIL_IN_BODY_(TX_CHECK);                                                                          \
    if (!(tx).active()) STM_DETAIL_LEAVE_BODY_;                                                             \
  } while (0)

/// In a helper function that takes the caller's transaction: the value read;
/// on a conflict the helper returns the arguments after addr (a value of its
/// return type; none for a void helper).
#define TX_READ_IN(tx, addr, ...)                                                                           \
  __extension__({                                                                                           \
    auto stm_tx_value_ = (tx).read(addr);                                                                   \
    if (!(tx).active()) return __VA_ARGS__;                                                                 \
    stm_tx_value_;                                                                                          \
  })

/// In a helper: buffer *addr = value; on a conflict the helper returns the
/// arguments after value (none for a void helper).
#define TX_WRITE_IN(tx, addr, value, ...)                                                                   \
  do {                                                                                                      \
    (tx).write((addr), (value));                                                                            \
    if (!(tx).active()) return __VA_ARGS__;                                                                 \
  } while (0)
