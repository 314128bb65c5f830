// stm/detail/txtable_drain.hpp - the driver loop of Algorithm 3 and the audit
// of the state words. Included by stm/txtable.hpp only (after its types).
//
// Synchronization: none inside a launch. Entries are written before the launch
// and only read during it; the state word of entry i is read and written only
// by the thread that owns i's block. The kernel boundary (or thread join on the
// CPU) orders the launch's state words before the audit and the host reads, so
// every access below is relaxed.
#pragma once

#include <cstdint>

#include "stm/platform.hpp"

namespace stm::detail {

// Entry j of thread tid is at txtable_index(tid, j, threads) (interleaved blocks).
// The entry and state word after the current one are loaded before the current
// transaction runs: they come from DRAM on a large table, and the load is then
// in flight during the transaction instead of in front of the next one.
template <class Entry, class Run>
STM_HD void drain_block(const Entry* entries, std::uint32_t* state, std::uint32_t tid, std::uint32_t threads,
                        std::uint32_t count, Run& run, const txtable_policy& p) {
  auto at = [=](std::uint32_t j) { return txtable_index(tid, j, threads); };
  std::uint32_t start = 0;  // entries before `start` are all finished (Algorithm 3, line 14)
  std::uint32_t idle = 0;   // consecutive passes that committed nothing
  while (start < count) {
    bool any_pending = false, progress = false;
    // Owner-only words: see the file comment.
    std::uint32_t next_state = atomic_ref<std::uint32_t>(state[at(start)]).load(memory_order_relaxed);
    Entry next = entries[at(start)];
    for (std::uint32_t j = start; j < count; ++j) {
      const std::uint32_t s = next_state;
      const Entry e = next;
      if (j + 1 < count) {
        next_state = atomic_ref<std::uint32_t>(state[at(j + 1)]).load(memory_order_relaxed);
        next = entries[at(j + 1)];
      }
      if (txstate::status(s) == txstate::pending) {
        std::uint32_t conflicts = txstate::conflicts(s);
        tx_outcome r = run(e);
        // A manager without postponement retries a semantic conflict at once.
        while (r == tx_outcome::semantic && conflicts < p.semantic_retries) {
          ++conflicts;
          r = run(e);
        }
        std::uint32_t w;
        if (r == tx_outcome::committed) {
          w = txstate::make(txstate::committed, conflicts);
          progress = true;
        } else if (r == tx_outcome::semantic && p.semantic_retries == 0 && conflicts + 1 < p.max_postpones &&
                   conflicts + 1 < txstate::max_conflicts) {
          w = txstate::make(txstate::pending, conflicts + 1);  // postponed: revisited next pass
          any_pending = true;
        } else {
          w = txstate::make(txstate::unresolved, r == tx_outcome::semantic ? conflicts + 1 : conflicts);
        }
        atomic_ref<std::uint32_t>(state[at(j)]).store(w, memory_order_relaxed);
      }
      if (!any_pending) start = j + 1;
    }
    if (any_pending && !progress) {
      // Only postponed entries are left and none resolved: give other threads
      // time to commit what they need (deposits) before the next pass.
      const std::uint32_t shift = idle < 10 ? idle : 10;
      std::uint32_t ns = 32u << shift;
      if (ns > p.idle_backoff_max_ns) ns = p.idle_backoff_max_ns;
      platform::backoff_ns(ns);
      ++idle;
    } else {
      idle = 0;
    }
  }
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
