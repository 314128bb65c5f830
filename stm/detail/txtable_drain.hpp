// SPDX-License-Identifier: Apache-2.0
// stm/detail/txtable_drain.hpp - the driver loop of Algorithm 3 and the audit
// of the state words. Included by stm/txtable.hpp only (after its types).
//
// Synchronization: none inside a launch. Entries are written before the launch
// and only read during it; the state word of entry i is read and written only
// by the thread that drains i's block (one thread per block and launch). The
// kernel boundary (or thread join on the CPU) orders the launch's state words
// before the audit and the host reads, so every access below is relaxed.
#pragma once

#include <cstdint>

#include "stm/backoff.hpp"
#include "stm/detail/lane_pause.hpp"
#include "stm/platform.hpp"

namespace stm::detail {

// Entry j of thread tid is at txtable_index(tid, j, threads) (interleaved blocks).
//
// One flat loop, one step per iteration: take the next pending entry (the
// entry and state word after it are loaded then, so that they are in flight
// during the transaction instead of in front of the next one), or run one
// attempt of the current entry, or wait. Nothing inside an iteration loops
// until a transaction commits, so the lanes of a warp meet again at the top
// of every iteration: a lane whose transaction committed starts its next one
// while another lane is still pausing before its retry. (With the retry loop
// inside TX_BEGIN/TX_END, a warp moves on only when its unluckiest lane has
// committed.)
//
// Pauses are deadlines on the lane's clock (lane_pause, lane_turn of
// lane_pause.hpp): a pausing lane skips its turn while other lanes attempt,
// and the warp sleeps only when every lane still draining is pausing, until
// the first deadline. `live` holds the lanes still draining; every lane of it
// takes part in the ballot and the minimum at the top of the loop. On the CPU
// a warp is one thread, which sleeps its pauses at once.
//
// The lane's time is accounted as it goes (two clock reads per attempt): the
// ticks spent in attempts and the pauses asked for. What is left of its drain
// time went to waiting for the other lanes' attempts and to the loop itself.
//
// Blocks after blocks. A lane drains the blocks that blocks.next() hands it
// (the first one included), one after the other, each under its own logical
// thread id (tx.set_thread_id: the block's owner and the transactions'
// priority), until next() returns an id >= threads; blocks.finished(t, times)
// after each. A lane whose block is done takes the next one at once, while
// the other lanes of its warp go on with theirs.
//
// The steps, each a member of drainer below: begin_block() and end_block()
// around each block, next_entry() (the next pending entry of the pass, or the
// pass's end: end_pass()), attempt() (one attempt of the current entry) and
// record() (its outcome into the state word).
template <class Entry, class Tx, class Run, class Blocks>
struct drainer {
  const Entry* entries;
  std::uint32_t* state;
  std::uint32_t threads, count;
  Tx& tx;
  Run& run;
  const txtable_policy& p;
  Blocks& blocks;

  std::uint32_t tid = 0;        // the block being drained (its logical thread)
  txtable_drain_times times{};  // of this block
  std::uint64_t block_ns = 0, block_ticks = 0;
  std::uint32_t start = 0;      // entries before `start` are all finished (Algorithm 3, line 14)
  std::uint32_t j = 0;          // the pass's position; the current entry when `have`
  bool any_pending = false, progress = false, have = false;
  Entry e{};
  std::uint32_t conflicts = 0;  // semantic conflicts of the current entry so far
  Entry next_e{};
  std::uint32_t next_s = 0, next_j = 0;  // prefetched entry next_j and its state word
  lane_pause waiting;           // no step before its deadline
  exp_backoff idle{0, 0};       // the pause after a pass that committed nothing

  STM_HD drainer(const Entry* entries_, std::uint32_t* state_, std::uint32_t threads_, std::uint32_t count_, Tx& tx_,
                 Run& run_, const txtable_policy& p_, Blocks& blocks_)
      : entries(entries_), state(state_), threads(threads_), count(count_), tx(tx_), run(run_), p(p_),
        blocks(blocks_) {}

  STM_HD std::uint64_t at(std::uint32_t i) const { return txtable_index(tid, i, threads); }
  STM_HD std::uint32_t state_of(std::uint32_t i) const {  // owner-only words: see the file comment
    return atomic_ref<std::uint32_t>(state[at(i)]).load(memory_order_relaxed);
  }
  STM_HD void pause(std::uint32_t ns) {
    times.pause_ns += ns;
    waiting.start(ns);
  }
  /// Idle passes back off from 32 ns, doubling up to idle_backoff_max_ns.
  STM_HD void reset_idle() {
    idle = exp_backoff(p.idle_backoff_max_ns < 32u ? p.idle_backoff_max_ns : 32u, p.idle_backoff_max_ns);
  }

  /// Start draining block `t`: its clock, its thread id, entry 0 prefetched.
  STM_HD void begin_block(std::uint32_t t) {
    tid = t;
    times = txtable_drain_times{};
    block_ns = platform::global_ns();
    block_ticks = platform::ticks();
    tx.set_thread_id(tid);
    start = j = 0;
    any_pending = progress = false;
    reset_idle();
    waiting.clear();
    next_e = entries[at(0)];
    next_s = state_of(0);
    next_j = 0;
  }

  /// The block is done: report it and take the next one. False when none is left.
  STM_HD bool end_block() {
    times.ns = platform::global_ns() - block_ns;
    times.ticks = platform::ticks() - block_ticks;
    blocks.finished(tid, times);
    const std::uint32_t t = blocks.next();
    if (t >= threads) return false;
    begin_block(t);
    return true;
  }

  /// The pass reached the end of the block with entries left: the next pass
  /// starts at `start`, after a pause when this one resolved none of them.
  STM_HD void end_pass() {
    if (any_pending && !progress) {
      // Only postponed entries are left and none resolved: give other
      // threads time to commit what they need (deposits) first.
      pause(idle.next_ns());
    } else {
      reset_idle();
    }
    j = start;
    next_j = count;  // the prefetched state word may have changed since (we wrote it)
    any_pending = progress = false;
  }

  /// Move to the next pending entry of the pass and begin its transaction
  /// (have = true); at the pass's end, end_pass() (have stays false); at the
  /// block's end, the next block. False when no block is left.
  STM_HD bool next_entry() {
    for (;;) {
      if (j == count) {
        if (start >= count) {  // this block is done: the next one, if any
          if (!end_block()) return false;
          continue;
        }
        end_pass();
        return true;  // the pass starts after the pause
      }
      std::uint32_t s;
      if (next_j == j) {
        s = next_s;
        e = next_e;
      } else {
        s = state_of(j);
        e = entries[at(j)];
      }
      if (txstate::status(s) == txstate::pending) {
        if (j + 1 < count) {  // in flight during this transaction
          next_j = j + 1;
          next_s = state_of(j + 1);
          next_e = entries[at(j + 1)];
        }
        conflicts = txstate::conflicts(s);
        have = true;
        tx.begin();
        return true;
      }
      if (!any_pending) start = j + 1;
      ++j;
    }
  }

  /// One attempt of the current entry (or until its final outcome, under
  /// TX_BEGIN/TX_END): a retry pauses as the manager says, a semantic
  /// conflict under a manager without postponement runs again at once, any
  /// other outcome is recorded.
  STM_HD void attempt() {
    const std::uint64_t t0 = platform::ticks();
    run(e);
    times.attempt_ticks += platform::ticks() - t0;
    const tx_outcome r = outcome_of(tx);
    if (r == tx_outcome::retry) {  // a concurrent conflict: the same entry again, after the manager's pause
      pause(tx.pause_ns());
      return;
    }
    if (r == tx_outcome::semantic && conflicts < p.semantic_retries) {
      ++conflicts;  // a manager without postponement retries a semantic conflict at once
      tx.begin();
      return;
    }
    record(r);
  }

  /// The entry's state word after outcome r: committed; postponed (pending,
  /// one more conflict), revisited by the next pass; or unresolved.
  STM_HD void record(tx_outcome r) {
    std::uint32_t w;
    if (r == tx_outcome::committed) {
      w = txstate::make(txstate::committed, conflicts);
      progress = true;
    } else if (r == tx_outcome::semantic && p.semantic_retries == 0 && conflicts + 1 < p.max_postpones &&
               conflicts + 1 < txstate::max_conflicts) {
      w = txstate::make(txstate::pending, conflicts + 1);
      any_pending = true;
    } else {
      w = txstate::make(txstate::unresolved, r == tx_outcome::semantic ? conflicts + 1 : conflicts);
    }
    atomic_ref<std::uint32_t>(state[at(j)]).store(w, memory_order_relaxed);
    if (!any_pending) start = j + 1;
    ++j;
    have = false;
  }
};

template <class Entry, class Tx, class Run, class Blocks>
STM_HD void drain_blocks(const Entry* entries, std::uint32_t* state, std::uint32_t threads, std::uint32_t count,
                         Tx& tx, Run& run, const txtable_policy& p, Blocks& blocks) {
  std::uint32_t tid = blocks.next();
  if (count == 0 || tid >= threads) {  // nothing to drain (and no entry 0 to prefetch)
    for (; tid < threads; tid = blocks.next()) blocks.finished(tid, txtable_drain_times{});
    return;
  }
  drainer<Entry, Tx, Run, Blocks> d(entries, state, threads, count, tx, run, p, blocks);
  drive_admission(tx, true);
  d.begin_block(tid);
  std::uint32_t live = platform::active_mask();
  for (;;) {
    const bool done = !d.have && !d.next_entry();
    live = platform::ballot(live, !done);
    if (done) break;
    // Pausing while other lanes attempt (or every lane pauses: the warp slept
    // until the first deadline), or a new pass after its pause.
    if (!lane_turn(live, d.waiting) || !d.have) continue;
    if (std::uint32_t ns = 0; !admitted(tx, ns)) {  // admission control: a full gate pauses the lane like a retry
      d.pause(ns);
      continue;
    }
    d.attempt();
  }
  drive_admission(tx, false);
}

/// Per-thread partial counts of txtable::audit(): five arrays of `threads`
/// long longs (committed, unresolved, committed after a conflict, conflicts,
/// value of the committed entries).
template <class Entry, class Value>
struct audit_kernel {
  const Entry* entries;
  const std::uint32_t* state;
  long long* out;
  std::uint32_t threads;
  std::uint32_t per_thread;
  Value value;

  STM_HD void operator()(std::uint32_t tid) const {
    long long c = 0, u = 0, cc = 0, k = 0, v = 0;
    for (std::uint32_t j = 0; j < per_thread; ++j) {
      const std::uint64_t i = txtable_index(tid, j, threads);
      const std::uint32_t s = state[i];  // written by the previous launch: the kernel boundary orders it
      k += txstate::conflicts(s);
      if (txstate::status(s) == txstate::committed) {
        ++c;
        if (txstate::conflicts(s) > 0) ++cc;
        v += value(entries[i]);
      } else if (txstate::status(s) == txstate::unresolved) {
        ++u;
      }
    }
    out[0ull * threads + tid] = c;
    out[1ull * threads + tid] = u;
    out[2ull * threads + tid] = cc;
    out[3ull * threads + tid] = k;
    out[4ull * threads + tid] = v;
  }
};

}  // namespace stm::detail
