// SPDX-License-Identifier: Apache-2.0
// stm/detail/admission.hpp - admission control: when attempts keep aborting,
// fewer of them run against each other.
//
// Why. At full occupancy a GPU runs some 270,000 transactions at once. Every
// conflict costs a whole attempt, and a long attempt (many reads) meets more
// commits while it runs, re-validates its reads more often (the commit clock
// moves between most of its reads, unless the lock stamps spare it) and
// escalates after enough aborts, and escalated updates run one at a time per
// table. Nothing else in the runtime
// limits how many attempts run against each other, so past a few thousand
// threads more threads mean less throughput.
//
// The rule (after adaptive transaction scheduling, Yoo and Lee, SPAA 2008,
// with one queue per SM instead of one per machine and an AIMD window instead
// of a fixed one):
//  - Each descriptor keeps its heat, an exponential average of whether its
//    attempts aborted on a conflict: heat += (aborted - heat) / 8, in units
//    of 1/1024. A commit, a semantic conflict or a set overflow counts as
//    not aborted.
//  - A retry (an attempt after a conflict of the same transaction), and any
//    attempt of a descriptor whose heat is at least the table's
//    admission_heat (by default half: more than about half of its recent
//    attempts aborted), enters its SM's gate first: a
//    counting semaphore of `limit` slots per SM (per table), taken by
//    fetch_add and given back at the attempt's end (commit or abort); a full
//    gate is retried after a jittered back-off of 128 ns doubling up to
//    the throttle's longest pause (16 us by default).
//    First attempts of cool descriptors (nearly all attempts wherever
//    conflicts are rare) never touch the gate: the cost there is a few
//    register operations per attempt.
//  - The limit adapts: an attempt that held a slot and committed raises its
//    SM's limit by one (up to 2,048, an SM's threads); one that aborted
//    lowers it by a sixteenth (down to 16). It settles where about 16 /
//    (limit + 16) of the gated attempts abort.
// Waits: a full gate is looked at max_tries times (about 30 us of back-off),
// then the attempt runs without a slot, so no wait for the gate is unbounded
// whatever the caller holds (a slot taken by tx.begin() long before the body
// runs, a warp collective its lanes wait at). A descriptor enters the gate
// before it waits for the escalation token (docs/stm-core.md#escalation).
// All of it is relaxed: the gate orders no data, it only spaces attempts.
// Under the drivers (TX_FOR, TX_BEGIN/TX_END's loop, the transaction table)
// the decision is taken at the lane's turn instead (try_enter): a refused
// lane pauses like a retry while the other lanes of its warp go on, at most
// the throttle's admission_patience turns in a row (by default 8, as the
// wait above; 0: as long as the gate is full). Unbounded patience is safe
// only there: under a driver a slot reserved at a lane's turn is taken by
// the attempt that opens in the same pass and given back at its end, before
// the lane meets its warp again, so no slot holder waits for a refused lane;
// a caller's own tx.begin() before a warp collective keeps the bounded wait
// above. The three numbers are the table's throttle (stm::throttle_config,
// read from the environment when the table is built) so that an A/B needs
// no rebuild.
// On by default; off for a lock table built with admission = false, or with
// the default and the environment variable STM_ADMISSION=0. What it buys and
// costs: docs/design-decisions.md#admission-control.
// STM_ADMISSION=0 at compile time removes the code.
//
// The footprint gate (footprint_gate below), a second gate under the loop
// forms (TX_FOR, TX_BEGIN/TX_END's loop), decided per warp and pass: sets of
// more than 8 entries do not fit in registers and live in each thread's
// stack frame, which local memory caches in its SM's L1. At full occupancy
// the resident threads' sets can outgrow L1, the sets' loads and stores
// then go to L2, and throughput falls as threads are added although nothing
// conflicts more. So the lanes of a warp
// that attempt in a pass enter their SM's footprint gate together, with the
// (weighted, below) bytes their sets took in their last attempts (the set capacity before the
// first), while at most the throttle's footprint_kib KiB are inside (a warp
// alone on its SM always enters, and one whose bytes are within the budget
// enters beside fewer than footprint_min_warps others: two warps of 64-read
// sets, not one; docs/design-decisions.md#footprint-floor); a refused warp pauses all its attempting
// lanes like a retry, sleeps, and asks again. The bytes are given back at
// the warp's next pass, when every attempt of this one has ended. One
// fetch_add and one fetch_sub per warp and pass (a per-attempt gate cost
// more than the misses it saved: docs/design-decisions.md#footprint-admission).
// Waiting is safe there: a warp inside ends its pass whatever the refused
// warps do (no attempt waits for an attempt that has not opened); a warp
// refused `patience` passes in a row (some milliseconds) runs anyway.
// A hot lane (heat above admission_heat) weighs more than its bytes, up to
// 1 + footprint_heat_weight (16) x (heat - admission_heat) / 1024 times them
// (footprint_charge): where most attempts abort (an array of 32k words read
// 16 at a time) fewer long attempts run at once, while a warp of cool lanes
// (2M words, 15-25% aborts) keeps the whole budget
// (docs/design-decisions.md#footprint-heat).
// A warp whose sets cannot fit the budget at all (32 times its largest
// lane's demand: the unweighted bytes of the lane's last committed
// transaction, or of a larger attempt since) enters only an
// empty gate, one such warp per SM at a time: faster with a few warps per
// SM, but in a launch of at least footprint_open_warps (16) warps per SM the
// others wait idle, so there it does not enter (footprint_opens;
// docs/design-decisions.md#footprint-open).
// Sets in registers never enter. Not under the transaction table: its
// workloads (vacation) chase pointers, want every warp resident, and lost
// throughput behind the same gate. STM_FOOTPRINT_KIB=0 (or footprint_kib = 0)
// turns it off; the budget and what it buys and costs:
// docs/design-decisions.md#footprint-gate.
#pragma once

#include <cstdint>

#include "stm/backoff.hpp"
#include "stm/lock_table.hpp"
#include "stm/platform.hpp"

#ifndef STM_ADMISSION
#define STM_ADMISSION 1
#endif

namespace stm::detail {

/// The pause after `refused` refusals in a row (admission's gate or the
/// footprint gate): 128 ns doubling per refusal, up to 128 ns << the
/// throttle's admission_pause_log2 (16 us by default), jittered by the
/// clock's low bits so that lanes refused together spread.
STM_HD inline std::uint32_t refusal_pause_ns(const lock_table_ref& t, std::uint32_t refused) {
  const std::uint32_t cap = t.throttle.admission_pause_log2;
  const std::uint32_t base = 128u << (refused < cap ? refused : cap);
  return base + static_cast<std::uint32_t>((platform::ticks() * 2654435761u) >> 24) % base;
}

/// A descriptor's admission state (a few registers).
struct admission_state {
  static constexpr std::uint32_t one = 1024;      // heat of an attempt that aborted
  static constexpr std::uint32_t min_limit = 16, max_limit = 2048;
  /// Looks at a full gate before the attempt runs anyway, about 30 us of
  /// back-off in all. The wait must be bounded: a descriptor may open an
  /// attempt (tx.begin()) well before it runs it, and a driver's lane that
  /// holds a slot so may wait at a warp collective for a lane of its warp
  /// that waits here (the transaction table does exactly that): an unbounded
  /// wait was seen to stall the bank at 4,096 accounts at full occupancy.
  static constexpr std::uint32_t max_tries = 8;

  std::uint16_t heat = 0;
  std::uint8_t held = 0;       // this attempt holds a slot of gate `group`
  std::uint8_t reserved = 0;   // by_driver: a slot taken at the lane's turn for the attempt about to open
  std::uint8_t by_driver = 0;  // a driver (tx_loop, the table) decides admission at its lanes' turns
  std::uint32_t refused = 0;   // by_driver: turns refused in a row (at most the table's patience)
  std::uint32_t group = 0;

  /// Before an attempt (before the escalation token). Under a driver the
  /// decision was made at the lane's turn (try_enter): the attempt takes the
  /// slot reserved then, if any, and never waits here.
  STM_HD void enter(const lock_table_ref& t, std::uint32_t tid, std::uint32_t attempt) {
#if STM_ADMISSION
    if (by_driver) {
      held = reserved;
      reserved = 0;
      return;
    }
    if (t.admission == nullptr || (attempt == 0 && heat < t.throttle.admission_heat)) return;
    group = platform::sm_id() % t.admission_groups;
    const auto active = t.admission_active(group);
    const auto limit = t.admission_limit(group);
    exp_backoff b = exp_backoff::jittered(128, 16384, tid);
    for (std::uint32_t tries = 0; tries < max_tries; ++tries, b.wait()) {
      if (active.load(memory_order_relaxed) < limit.load(memory_order_relaxed)) {
        if (active.fetch_add(1, memory_order_relaxed) < limit.load(memory_order_relaxed)) {
          held = 1;
          return;
        }
        active.fetch_sub(1, memory_order_relaxed);
      }
    }
    // Still full: the attempt runs without a slot (see max_tries).
#else
    (void)t;
    (void)tid;
    (void)attempt;
#endif
  }

  /// A driver's turn for a lane whose next attempt is a retry (retry) or a
  /// new transaction: one look at the gate, no wait. True: the attempt may
  /// open now (with a reserved slot, or none needed, or after the
  /// throttle's admission_patience refusals in a row: the bound, unless 0);
  /// false: the gate is full, the lane pauses
  /// refusal_pause_ns() while the other lanes of its warp go on, and asks
  /// again. Unlike a wait inside the attempt's start, no lane of the warp
  /// ever waits at a collective for a lane that waits for a slot: the pause
  /// is one of the driver's deadlines (stm/detail/lane_pause.hpp).
  STM_HD bool try_enter(const lock_table_ref& t, bool retry) {
#if STM_ADMISSION
    if (reserved || t.admission == nullptr || (!retry && heat < t.throttle.admission_heat)) return true;
    group = platform::sm_id() % t.admission_groups;
    const auto active = t.admission_active(group);
    const auto limit = t.admission_limit(group);
    if (active.load(memory_order_relaxed) < limit.load(memory_order_relaxed)) {
      if (active.fetch_add(1, memory_order_relaxed) < limit.load(memory_order_relaxed)) {
        reserved = 1;
        refused = 0;
        return true;
      }
      active.fetch_sub(1, memory_order_relaxed);
    }
    ++refused;
    if (t.throttle.admission_patience == 0 || refused < t.throttle.admission_patience) return false;
    refused = 0;  // the bound: this attempt runs without a slot
    return true;
#else
    (void)t;
    (void)retry;
    return true;
#endif
  }
  /// The pause after a refused turn (refusal_pause_ns above).
  STM_HD std::uint32_t refusal_pause_ns(const lock_table_ref& t) const { return detail::refusal_pause_ns(t, refused); }

  /// At an attempt's end: conflict = it aborted on a conflict (retryable).
  STM_HD void leave(const lock_table_ref& t, bool conflict) {
#if STM_ADMISSION
    heat = static_cast<std::uint16_t>(heat - (heat >> 3) + (conflict ? one >> 3 : 0u));
    if (!held) return;
    held = 0;
    t.admission_active(group).fetch_sub(1, memory_order_relaxed);
    const auto limit = t.admission_limit(group);
    std::uint32_t lim = limit.load(memory_order_relaxed);
    const std::uint32_t next = conflict ? (lim - lim / 16 > min_limit ? lim - lim / 16 : min_limit)
                                        : (lim < max_limit ? lim + 1 : max_limit);
    // One try: a lost race drops this step of the window, which the next
    // attempt's step makes up for.
    if (next != lim) limit.compare_exchange_strong(lim, next, memory_order_relaxed);
#else
    (void)t;
    (void)conflict;
#endif
  }

  /// An attempt abandoned without an outcome (a new one starts): give the slot back.
  STM_HD void abandon(const lock_table_ref& t) {
#if STM_ADMISSION
    if (!held) return;
    held = 0;
    t.admission_active(group).fetch_sub(1, memory_order_relaxed);
#else
    (void)t;
#endif
  }
};

/// What a lane's sets of `bytes` weigh in the footprint gate at `heat`: their
/// bytes, and while the lane is hot (heat above the throttle's admission_heat)
/// 1 + footprint_heat_weight x (heat - admission_heat) / 1024 times that (by
/// default up to 9 times, at a heat of 1024), at most a field of the gate's word.
STM_HD inline std::uint32_t footprint_charge(const lock_table_ref& t, std::uint32_t bytes, std::uint32_t heat) {
  const std::uint32_t w = t.throttle.footprint_heat_weight, from = t.throttle.admission_heat;
  if (w == 0 || heat <= from) return bytes;
  const std::uint64_t c = bytes + std::uint64_t{bytes} * w * (heat - from) / admission_state::one;
  return c < lock_table_ref::footprint_bytes_mask ? static_cast<std::uint32_t>(c) : lock_table_ref::footprint_bytes_mask;
}

/// Whether a warp whose lanes' largest demand (the unweighted bytes of a
/// lane's sets: its last committed transaction's, or a larger attempt since;
/// the capacity before the first) is `demand`, in a launch of
/// `warps_per_sm` warps per SM, skips the footprint gate: when `lanes` such
/// sets exceed the budget, so that the gate would run one such warp per SM
/// at a time, and the launch has at least footprint_open_warps warps per SM
/// (0: never). With few warps resident one such warp at a time is faster; in
/// a crowded SM the others wait idle, and running them all hides more latency
/// than one at a time saves L1 (docs/design-decisions.md#footprint-open).
/// Decided from the warp's largest lane, not from the lanes attempting in a
/// pass: a warp down to a few retrying lanes that entered the gate again
/// while its sibling warps ran outside it measured slower than both rules.
STM_HD inline bool footprint_opens(const lock_table_ref& t, std::uint32_t demand, std::uint32_t lanes,
                                   std::uint32_t warps_per_sm) {
  const std::uint32_t from = t.throttle.footprint_open_warps;
  return from != 0 && warps_per_sm >= from &&
         std::uint64_t{demand} * lanes > (std::uint64_t{t.throttle.footprint_kib} << 10);
}

/// The footprint gate of a loop form's warp (the rule: the head of this
/// file). `held` and `refused` are the same in every lane of the warp;
/// `holder` and `group` matter in the holder only.
struct footprint_gate {
  /// Passes refused in a row after which a warp runs without entering.
  static constexpr std::uint32_t patience = 256;

  std::uint32_t held = 0;     // what the warp added to gate `group`'s word (its bytes and one warp)
  std::uint32_t holder = 0;   // the lane that added them (it gives them back)
  std::uint32_t group = 0;
  std::uint32_t refused = 0;  // passes refused in a row

  /// The lanes of `live` that attempt this pass (go) enter with their sets' weighted
  /// bytes; every lane of live calls it, with its demand (footprint_opens).
  /// True: the pass runs; false: every
  /// lane with go pauses pause_ns() and asks again at its next turn. Lanes
  /// whose table has no gate (admission off, or footprint_kib 0) take part
  /// with nothing; the warp is charged to the table of its lowest lane that
  /// has one (the lanes of a warp normally share one table).
  STM_HD bool enter(const lock_table_ref& t, std::uint32_t live, bool go, std::uint32_t bytes, std::uint32_t demand) {
#if STM_ADMISSION
    const bool on = t.admission != nullptr && t.throttle.footprint_kib != 0;
    const std::uint32_t gated = platform::ballot(live, on);
    if (gated == 0) return true;
    const std::uint32_t want = platform::reduce_add(live, on && go ? bytes : 0u);
    if (want == 0) return true;
    const std::uint32_t leader = platform::lowest_bit(gated);
    // Sets that cannot fit (footprint_opens), decided with the leader's table
    // so that every lane takes the same branch: the launch's geometry first,
    // so that the warp's demand is gathered only in crowded launches. A pass
    // that skips the gate runs: it ends a run of refusals.
    const std::uint32_t from = platform::shfl(live, std::uint32_t{t.throttle.footprint_open_warps}, leader);
    if (from != 0) {
      const std::uint32_t wps = platform::launch_warps_per_sm();
      if (wps >= from) {
        const std::uint32_t most = platform::reduce_max(live, on ? demand : 0u);
        if (platform::shfl(live, footprint_opens(t, most, platform::warp_size(), wps) ? 1u : 0u, leader) != 0) {
          refused = 0;
          return true;
        }
      }
    }
    // The warp's share of the gate's word: its bytes and one warp (the
    // fields: lock_table_ref::admission_footprint).
    using T = lock_table_ref;
    const std::uint32_t own = want < T::footprint_bytes_mask ? want : T::footprint_bytes_mask;
    const std::uint32_t add = own + T::footprint_warp;
    std::uint32_t ok = 1;
    if (platform::lane_id() == leader) {
      group = platform::sm_id() % t.admission_groups;
      const auto inside = t.admission_footprint(group);
      const std::uint32_t budget = std::uint32_t(t.throttle.footprint_kib) << 10;
      const std::uint32_t min_warps = t.throttle.footprint_min_warps > 1 ? t.throttle.footprint_min_warps : 1u;
      // Never so that a field overflows into the next (on the CPU backend a
      // warp is one thread, and hundreds of small ones may fit the budget).
      const auto room = [&](std::uint32_t w) {
        return (w >> T::footprint_warp_shift) < 255u && (w & T::footprint_bytes_mask) + own <= T::footprint_bytes_mask;
      };
      // Enters: into an empty gate; beside fewer than min_warps warps if its
      // own bytes are within the budget; or while its bytes fit.
      const auto fits = [&](std::uint32_t w) {
        const std::uint32_t warps = w >> T::footprint_warp_shift;
        return room(w) &&
               (warps == 0 || (warps < min_warps && own <= budget) || (w & T::footprint_bytes_mask) + own <= budget);
      };
      if (refused < patience) {
        ok = fits(inside.load(memory_order_relaxed));
        if (ok && !(ok = fits(inside.fetch_add(add, memory_order_relaxed)))) inside.fetch_sub(add, memory_order_relaxed);
      } else if (!room(inside.fetch_add(add, memory_order_relaxed))) {
        inside.fetch_sub(add, memory_order_relaxed);
        ok = 2;  // past its patience the warp runs anyway; uncounted where a field has no room
      }
    }
    ok = platform::shfl(live, ok, leader);
    if (!ok) {
      ++refused;
      return false;
    }
    held = ok == 1 ? add : 0u;
    holder = leader;
    refused = 0;
#else
    (void)t;
    (void)live;
    (void)go;
    (void)bytes;
    (void)demand;
#endif
    return true;
  }

  /// At the warp's next pass (every lane of it calls it): the bytes back.
  STM_HD void leave(const lock_table_ref& t) {
#if STM_ADMISSION
    if (held == 0) return;
    if (platform::lane_id() == holder) t.admission_footprint(group).fetch_sub(held, memory_order_relaxed);
    held = 0;
#else
    (void)t;
#endif
  }

  /// The pause of a refused pass (refusal_pause_ns above; the other warps'
  /// passes take microseconds).
  STM_HD std::uint32_t pause_ns(const lock_table_ref& t) const { return refusal_pause_ns(t, refused); }
};

}  // namespace stm::detail
