// SPDX-License-Identifier: Apache-2.0
// stm/detail/tx_loop.hpp - the driver behind TX_FOR and TX_BEGIN/TX_END
// (stm/tx_macros.hpp): one lane runs transactions 0..n-1 one attempt at a
// time, and the lanes of a warp take turns the way the transaction table
// does (stm/detail/txtable_drain.hpp, sharing lane_pause.hpp with it).
//
// The macros expand to
//   for (tx_loop<Tx> loop(tx, n); loop.next();)
//     if (loop.attempting()) { loop.start_attempt(); <body>; tx.commit(); }
//     else <the then-clause of transaction loop.index()>
// next() reads what the attempt came to and decides what this lane does in
// the next pass of the for loop:
//  - a retryable abort (a concurrent conflict): the same transaction again
//    after the manager's pause (transaction::pause_ns), kept as a deadline:
//    the lane skips passes until then while the other lanes of its warp go on
//    with their own transactions (TX_FOR) or retries (TX_BEGIN/TX_END);
//  - a final outcome (committed, semantic conflict, set overflow): one pass
//    for the then-clause (Report = true), and the lane's next transaction.
// Nothing in a pass loops until a transaction commits, so a warp never waits
// for its unluckiest lane before the others start their next transactions.
//
// Collectives. `live` holds the lanes that entered the loop together
// (__activemask at construction) and have not finished; each of them calls
// the ballot, lane_turn's minimum and the footprint gate's ballot, sum,
// broadcasts and, in crowded launches, maximum (footprint_gate::enter) at
// their one call sites inside next(), once per pass, and a lane leaves
// `live` by the ballot that sees it done.
// The body and the then-clause run between those calls, some lanes in them
// and some not, so they must not use warp-collective operations across lanes,
// and must not leave the loop (break, return, goto): the other lanes would
// wait for the leaver at the next ballot. The body cannot (it is a lambda:
// stm/tx_macros.hpp); a then-clause left early stops the program with
// STM_CHECKS (then_once, rule left-form), as does a second form started on
// the descriptor while this one runs (form_guard, rule nested-form).
//
// Warp-serial escalation (STM_TX_WARP_SERIAL = N > 0, default 8): a lane
// whose transaction has aborted N times in a row takes the warp's token for
// the passes in which it is ready: while some ready lane holds it, only the
// holder with the most aborts in a row (the lowest lane on a tie) attempts,
// and the other lanes of the warp skip the pass (they do not pause). Serving
// the longest loser first matters: with the lowest holder first, a high lane
// whose warp-mates keep aborting among themselves would never be served. Its lanes can then no longer defeat it, whatever their
// priorities: under prstm a low-priority lane otherwise loses every pass to a
// higher-priority lane of its own warp that starts its next transaction at
// once, and the no-steal managers can collide in lock-step pass after pass.
// It is the warp-wide counterpart of libitm's serial-irrevocable mode (the
// token is per warp: transactions of other warps still run beside it).
// STM_TX_WARP_SERIAL=0 turns it off.
#pragma once

#include <cstdint>
#if STM_CHECKS && !STM_ON_DEVICE
#include <exception>  // std::uncaught_exceptions: no check while an exception unwinds a form
#endif

#include "stm/detail/admission.hpp"
#include "stm/detail/check.hpp"
#include "stm/detail/lane_pause.hpp"
#include "stm/platform.hpp"

#ifndef STM_TX_WARP_SERIAL
#define STM_TX_WARP_SERIAL 8
#endif

namespace stm::detail {

/// True while an exception unwinds the stack (host): a form's destructor then
/// checks nothing (the exception is the error to report, not the early exit).
STM_HD inline bool unwinding() {
#if STM_CHECKS && !STM_ON_DEVICE
  return std::uncaught_exceptions() != 0;
#else
  return false;
#endif
}

/// The descriptor's flag "a form runs on it" (stm::transaction, STM_CHECKS).
struct form_access {
#if STM_CHECKS
  template <class Tx>
  STM_HD static bool& in_form(Tx& tx) { return tx.in_form_; }
#endif
};

/// Held by a form (TX_FOR, TX_BEGIN, TX_ATTEMPT) while it runs on descriptor
/// tx, opened at file:line. With STM_CHECKS: a second form on the same
/// descriptor meanwhile stops the program (rule nested-form: it would restart
/// the running transaction, whose reads and writes are lost, and its end would
/// commit or retry the outer one's attempt). Without: empty, no code.
template <class Tx>
class form_guard {
 public:
#if STM_CHECKS
  STM_HD form_guard(Tx& tx, const char* file, int line) : tx_(tx) {
    if (form_access::in_form(tx))
      check_failed("nested-form",
                   "a transaction form (TX_FOR, TX_BEGIN, TX_ATTEMPT) started on a descriptor whose own form is "
                   "still running (a called function must use the caller's transaction: TX_READ_IN, TX_CALL)",
                   file, line);
    form_access::in_form(tx) = true;
  }
  STM_HD ~form_guard() { form_access::in_form(tx_) = false; }
  form_guard(const form_guard&) = delete;
  form_guard& operator=(const form_guard&) = delete;

 private:
  Tx& tx_;
#else
  STM_HD form_guard(Tx&, const char*, int) {}
#endif
};

/// The then-clause of TX_FOR_THEN runs as `for (then_once g; g.next();) {...}`
/// (g is named stm_tx_body_marker_: a form written in the clause does not
/// compile, stm/tx_macros.hpp); next() is true once. A clause that ends (or `continue`s) calls it again;
/// one left by break, return or goto does not, which the destructor reports
/// with STM_CHECKS (rule left-form: on the GPU the other lanes of the warp
/// would wait for the leaver at the loop's next ballot). Without STM_CHECKS a
/// `break` ends the clause only: the loop goes on with the next transaction.
class then_once {
 public:
#if STM_CHECKS
  STM_HD then_once(const char* file, int line) : file_(file), line_(line) {}
  STM_HD ~then_once() {
    if (passes_ == 1 && !unwinding())
      check_failed("left-form",
                   "a TX_FOR_THEN clause must not be left by break, return or goto (the TX_FOR runs every "
                   "transaction; `continue` ends the clause)",
                   file_, line_);
  }
  then_once(const then_once&) = delete;
  then_once& operator=(const then_once&) = delete;
#else
  STM_HD then_once(const char*, int) {}
#endif
  STM_HD bool next() { return passes_++ == 0; }

 private:
#if STM_CHECKS
  const char* file_;
  int line_;
#endif
  std::uint32_t passes_ = 0;
};

template <class Tx, bool Report>
class tx_loop {
 public:
  /// file, line: where the form is (for the checks' messages).
  STM_HD tx_loop(Tx& tx, std::uint32_t n, const char* file, int line)
      : tx_(tx), n_(n), live_(platform::active_mask()), guard_(tx, file, line) {
    drive_admission(tx_, true);
  }
  /// Gives back what the warp holds in the footprint gate if this lane added
  /// it and the loop was left early (an exception on the host): no collective.
  STM_HD ~tx_loop() {
    leave_footprint();
    drive_admission(tx_, false);
  }
  tx_loop(const tx_loop&) = delete;
  tx_loop& operator=(const tx_loop&) = delete;

  /// The next pass: false when this lane has run all its transactions.
  STM_HD bool next() {
    if (reporting_) {  // the then-clause ran: on to the next transaction
      reporting_ = false;
      advance();
    } else if (ran_) {
      ran_ = false;
      bytes_ = footprint_bytes(tx_);
      // The demand: a committed transaction's bytes, or the largest attempt
      // since (an aborted attempt, retried or not, may stop early).
      const std::uint32_t b = set_bytes(tx_);
      demand_ = !tx_.committed() && demand_ > b ? demand_ : b;
      if (tx_.retryable()) {
        pause_.start(tx_.pause_ns());
      } else if (Report) {
        reporting_ = true;  // a pass of its own for the then-clause
        return true;
      } else {
        advance();
      }
    }
    for (;;) {
      const bool done = i_ >= n_;
      live_ = platform::ballot(live_, !done);
      leave_footprint();  // every attempt of the warp's last pass has ended
      if (done) return false;
      bool go = lane_turn(live_, pause_);
#if STM_TX_WARP_SERIAL > 0
      const bool escalated = go && !fresh_ && tx_.attempts() + 1u >= static_cast<std::uint32_t>(STM_TX_WARP_SERIAL);
      if (platform::ballot(live_, escalated) != 0) {  // warp-uniform: every lane of live_ takes the reduce
        // The token goes to the ready lane with the most aborts in a row, the
        // lowest lane on a tie: a count that only a commit resets keeps
        // growing, so every lane that keeps losing is served in turn.
        constexpr std::uint32_t most = (1u << 27) - 1u;
        const std::uint32_t a = tx_.attempts() < most ? tx_.attempts() : most;
        const std::uint32_t key = escalated ? ((most - a) << 5) | platform::lane_id() : ~0u;
        const std::uint32_t first = platform::reduce_min(live_, key);  // every lane of live_, not only holders
        go = escalated && first == key;
      }
#endif
      // The footprint gate: the lanes that attempt in this pass enter
      // together, or all pause (stm/detail/admission.hpp).
      if (std::uint32_t ns = 0; !enter_footprint(go, ns)) {
        if (go) pause_.start(ns);
        go = false;
      }
      // Admission control: a lane whose gate is full pauses like a retry
      // (the other lanes go on) and asks again at its next turn.
      if (std::uint32_t ns = 0; go && !admitted(tx_, ns)) {
        pause_.start(ns);
        go = false;
      }
      if (go) {
        ran_ = true;
        return true;
      }
    }
  }

  /// This pass runs an attempt (else the then-clause of index()).
  STM_HD bool attempting() const { return !reporting_; }
  /// The transaction this pass is about (0..n-1).
  STM_HD std::uint32_t index() const { return i_; }
  /// Before the body: a new transaction, or the next attempt of this one.
  STM_HD void start_attempt() {
    if (fresh_) {
      fresh_ = false;
      tx_.begin();
    } else {
      tx_.start_attempt();
    }
  }

 private:
  STM_HD void advance() {
    ++i_;
    fresh_ = true;
  }
  // The footprint gate, for descriptors under admission control; every lane
  // of live_ calls both at the same call sites.
  STM_HD bool enter_footprint(bool go, std::uint32_t& pause_ns) {
    // Sets in registers never enter: decided by the type, the same in every
    // lane at this call site, so no collective runs for them.
    if constexpr (drives_admission<Tx>::value && set_capacity_bytes<Tx>() != 0) {
      if (footprint_.enter(tx_.locks(), live_, go, bytes_, demand_)) return true;
      pause_ns = footprint_.pause_ns(tx_.locks());
      return false;
    } else {
      (void)go;
      (void)pause_ns;
      return true;
    }
  }
  STM_HD void leave_footprint() {
    if constexpr (drives_admission<Tx>::value) footprint_.leave(tx_.locks());
  }

  Tx& tx_;
  std::uint32_t n_;
  std::uint32_t i_ = 0;
  std::uint32_t live_;
  lane_pause pause_;
  footprint_gate footprint_;                       // the warp's, the same in every lane
  std::uint32_t bytes_ = set_capacity_bytes<Tx>();  // what the lane enters the footprint gate with
  std::uint32_t demand_ = set_capacity_bytes<Tx>(); // and its demand, unweighted (footprint_opens)
  form_guard<Tx> guard_;  // nested-form (STM_CHECKS)
  bool ran_ = false;        // next() handed out an attempt: its outcome is in tx_
  bool reporting_ = false;  // this pass is the then-clause of transaction i_
  bool fresh_ = true;       // transaction i_ has not started yet
};

/// TX_BEGIN/TX_END with STM_TX_END_SCHEDULE=0: each attempt right after the
/// last one's pause (transaction::retry), in place.
template <class Tx>
class retry_loop {
 public:
  STM_HD retry_loop(Tx& tx, const char* file, int line) : tx_(tx), guard_(tx, file, line) {}
  /// The next attempt: false once the transaction has its outcome.
  STM_HD bool next() {
    if (first_) {
      first_ = false;
      tx_.begin();
      return true;
    }
    return tx_.retry();
  }

 private:
  Tx& tx_;
  form_guard<Tx> guard_;
  bool first_ = true;
};

}  // namespace stm::detail
