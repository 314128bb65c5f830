// SPDX-License-Identifier: Apache-2.0
// stm/txtable.hpp - the global transaction table of PR-STM (Shen et al.,
// JPDC 2020, sections 3.3-3.4, Algorithm 3): semantic conflicts are postponed, not spun on.
//
//   stm::txtable<my_tx> table(backend, threads, per_thread);   // owner
//   ... fill table.data(): thread t's j-th transaction at table.index(t, j)
//   table.presort<Exec>();                // optional: higher priority tag first
//   Exec::run(threads, [=] STM_HD (std::uint32_t tid) {
//     stm::transaction<CM, Cfg> tx(locks, tid, cm);
//     ref.drain(tx, [&](const my_tx& e) { TX_ATTEMPT(tx) { ...body... } TX_ATTEMPT_END(tx); }, policy);
//   });
//   auto a = table.audit<Exec>(value_of_committed_entry);   // what happened
//
// The table holds one block of `per_thread` transactions per logical thread and
// a state word per transaction (its finish flag, plus how often it met a
// semantic conflict). Blocks are interleaved: thread t's j-th transaction is
// entry j * threads + t (index(t, j)), so the 32 threads of a warp that run
// their j-th transactions load one contiguous run of entries and of state
// words instead of 32 scattered ones (contiguous blocks made the table-driven
// bank markedly slower than drawing the transactions in the kernel; with
// drain_blocks() only the first blocks of a warp's lanes are adjacent, the
// later ones come in whatever order the lanes finish). drain() is the
// driver loop of Algorithm 3: the thread
// runs its block in order; a transaction that commits gets its finish flag; one
// that meets a semantic conflict (TX_SEMANTIC_ABORT: e.g. a withdrawal that
// finds no money) is skipped and revisited when the scan wraps around; the
// thread is done when every transaction of its block is committed or
// unresolved. A concurrent conflict is retried at once (after the contention
// manager's pause), as the paper does (Algorithm 3, lines 9-10).
//
// One attempt at a time. The run functor runs the entry's body; with
// TX_ATTEMPT/TX_ATTEMPT_END that is one attempt, and drain() schedules the
// retry: it asks the manager for its pause (transaction::pause_ns) and keeps
// the other lanes of the warp running their own transactions meanwhile. A
// body in TX_BEGIN/TX_END retries in place instead, and the lanes of a warp
// then wait at the end of its retry loop for the lane that needs the most
// attempts (BENCHMARKS.md compares the two drivers on the bank). Some
// lanes of a warp run the functor while others pause, so it must not use
// warp-collective operations (__syncwarp, shuffles, votes) across lanes.
//
// Unresolvable transactions. A transaction that no other transaction will ever
// help (no deposit ever covers the withdrawal) must not keep its thread forever:
// after `max_postpones` semantic conflicts (default 4096) it is marked
// unresolved and reported as such, never counted as committed. A pass over the
// block that commits nothing backs off (32 ns doubling up to
// idle_backoff_max_ns, default 32 us on the GPU; a yield on the CPU), so a
// thread that only waits gives up after at most max_postpones passes, about
// max_postpones x idle_backoff_max_ns (~134 ms with the defaults) of waiting.
//
// Managers that do not postpone. A contention manager type that declares
// `static constexpr std::uint32_t semantic_retries = N;` (GPU-STM's treatment in
// the paper's evaluation: N = 100) gets no postponement: a semantic conflict is
// retried at once up to N times, then the transaction is unresolved.
// semantic_retries_v<CM> reads the property (0 = postpone, PR-STM's rule).
//
// Guarantees
//  - Every transaction of the table ends committed exactly once or unresolved
//    (audit() recounts both from the state words after the launch).
//  - drain() never waits on another thread (it only backs off), so it needs no
//    co-residency: launch it with progress::any.
//  - Entries are read-only during a launch; each state word is written only by
//    the thread that drains its block (each block is drained by one thread).
//  - presort() is a stable sort of each block by descending priority() of the
//    entries (CUB/Thrust on the GPU, std::stable_sort on the CPU): the paper's
//    "pre-sorted" table, where a deposit (tag 1) precedes the withdrawals
//    (tag 0) of the same thread.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "stm/buffer.hpp"
#include "stm/detail/manager_traits.hpp"
#include "stm/error.hpp"
#include "stm/tx.hpp"

namespace stm {

/// What running one table entry came to: drain() reads it from the
/// transaction after the run functor (outcome_of), which returns nothing.
enum class tx_outcome : std::uint32_t {
  committed,  ///< the transaction committed
  semantic,   ///< the body declared a semantic conflict: postpone it
  failed,     ///< a final failure other than a semantic conflict (set overflow): unresolved
  retry       ///< one attempt (TX_ATTEMPT) aborted on a concurrent conflict: run it again
};

/// The outcome of the attempt or transaction `tx` has just ended (after
/// TX_ATTEMPT_END or TX_END; the latter never gives retry).
template <class Tx>
STM_HD inline tx_outcome outcome_of(const Tx& tx) {
  if (tx.committed()) return tx_outcome::committed;
  if (tx.status() == tx_status::semantic) return tx_outcome::semantic;
  return tx.retryable() ? tx_outcome::retry : tx_outcome::failed;
}

/// How drain() treats semantic conflicts.
struct txtable_policy {
  std::uint32_t max_postpones = 4096;        ///< semantic conflicts before a transaction is unresolved
  std::uint32_t idle_backoff_max_ns = 32768; ///< cap of the back-off after a pass that committed nothing
  std::uint32_t semantic_retries = 0;        ///< > 0: retry at once this often, never postpone (GPU-STM)
};

/// Where one thread's drain() time went, as drain() returns it (diagnosis:
/// how long an attempt takes against how long the thread pauses).
struct txtable_drain_times {
  std::uint64_t attempt_ticks = 0;  ///< inside the run functor, in platform::ticks (SM cycles on the GPU, ns on the CPU)
  /// Pauses asked for: the manager's after aborts, admission's refusals, idle passes' back-off.
  std::uint64_t pause_ns = 0;
  std::uint64_t ticks = 0;          ///< the whole drain of the block, in platform::ticks
  std::uint64_t ns = 0;             ///< the same on the device-wide clock (platform::global_ns)
};

/// Hands the blocks of a table to the lanes of a launch with fewer hardware
/// threads (`workers`) than the table has blocks (its `threads`): worker w drains
/// block w first, then whichever block is next when it is done (one atomic
/// increment of *counter, which must be 0 at the launch). Hardware launches
/// more threads than stay resident in waves of whole thread blocks, and a
/// thread block holds its place until its slowest thread is done; with one
/// resident worker per place the places never wait for that. Priorities stay
/// those of the blocks (transaction::set_thread_id), and every block is
/// drained exactly once.
/// Precondition: the launch has exactly `workers` threads (worker w < workers).
struct txtable_blocks {
  std::uint32_t* counter = nullptr;  ///< blocks handed out after the first `workers`; null: none (workers == threads)
  std::uint32_t workers = 0;
};

/// Retries a manager gives a semantic conflict (0: postpone, PR-STM's rule).
template <class CM>
inline constexpr std::uint32_t semantic_retries_v = detail::semantic_retries_of<CM>::value;

/// The policy for contention manager CM: its semantic_retries, the rest from `base`.
template <class CM>
inline txtable_policy policy_for(txtable_policy base = {}) {
  base.semantic_retries = semantic_retries_v<CM>;
  return base;
}

/// Position of thread t's j-th transaction in a table of `threads` blocks: the
/// blocks are interleaved (see the file comment).
STM_HD inline constexpr std::uint64_t txtable_index(std::uint32_t t, std::uint32_t j, std::uint32_t threads) {
  return std::uint64_t(j) * threads + t;
}

/// State word of an entry: bits 0-1 status, bits 2-31 semantic conflicts met.
namespace txstate {
inline constexpr std::uint32_t pending = 0, committed = 1, unresolved = 2;
STM_HD inline constexpr std::uint32_t status(std::uint32_t w) { return w & 3u; }
STM_HD inline constexpr std::uint32_t conflicts(std::uint32_t w) { return w >> 2; }
STM_HD inline constexpr std::uint32_t make(std::uint32_t status, std::uint32_t conflicts) {
  return (conflicts << 2) | status;
}
inline constexpr std::uint32_t max_conflicts = (1u << 30) - 1;
}  // namespace txstate


/// Trivially copyable view of a table, passed by value into kernels.
template <class Entry>
struct txtable_ref {
  const Entry* entries = nullptr;
  std::uint32_t* state = nullptr;
  std::uint32_t threads = 0;
  std::uint32_t per_thread = 0;

  /// Position of thread t's j-th transaction (blocks are interleaved).
  STM_HD std::uint64_t index(std::uint32_t t, std::uint32_t j) const { return txtable_index(t, j, threads); }

  /// Algorithm 3 for the thread of descriptor tx (tx.thread_id() is the
  /// block): run(entry) runs the entry's body on tx, for every unfinished entry
  /// of the block until none is pending; the outcome is read from tx. Entry
  /// must be default-constructible. See the file comment. Returns where the
  /// thread's time went (ignore it unless diagnosing).
  template <class Tx, class Run>
  STM_HD txtable_drain_times drain(Tx& tx, Run&& run, const txtable_policy& p) const;

  /// drain() for worker `w` of a launch of `blocks.workers` threads: block w,
  /// then the blocks `blocks` hands out, each under its own thread id (the
  /// descriptor's id changes); on_block(t, times) after block t is done.
  template <class Tx, class Run, class OnBlock>
  STM_HD void drain_blocks(Tx& tx, Run&& run, const txtable_policy& p, std::uint32_t w, const txtable_blocks& blocks,
                           OnBlock&& on_block) const;
};

/// What a table's state words say after a launch (audit()).
struct txtable_audit {
  std::uint64_t committed = 0;               ///< entries committed
  std::uint64_t unresolved = 0;              ///< entries given up (bound reached, or a final failure)
  std::uint64_t pending = 0;                 ///< entries never finished (must be 0 after drain)
  std::uint64_t committed_after_conflict = 0;///< committed entries that met a semantic conflict first
  std::uint64_t conflicts = 0;               ///< semantic conflicts met, all entries together
  long long value = 0;                       ///< sum of value(entry) over committed entries
};

/// Owner of a table on a backend (move-only).
template <class Entry>
class txtable {
  static_assert(std::is_trivially_copyable_v<Entry>, "table entries are trivially copyable");

 public:
  /// threads >= 1 blocks of per_thread >= 1 entries, all state words pending.
  txtable(backend where, std::uint32_t threads, std::uint32_t per_thread)
      : entries_(where, checked(threads, per_thread)), state_(where, entries_.size()), audit_(where, 5ull * threads),
        threads_(threads), per_thread_(per_thread) {}

  backend where() const { return entries_.where(); }
  std::uint32_t threads() const { return threads_; }
  std::uint32_t per_thread() const { return per_thread_; }
  /// Position of thread t's j-th transaction in data() and states().
  std::uint64_t index(std::uint32_t t, std::uint32_t j) const { return txtable_index(t, j, threads_); }
  std::size_t size() const { return entries_.size(); }
  Entry* data() { return entries_.data(); }
  const Entry* data() const { return entries_.data(); }
  buffer<Entry>& entries() { return entries_; }

  txtable_ref<Entry> ref() const { return {entries_.data(), state_.data(), threads_, per_thread_}; }

  /// Every entry pending again (before a launch over a refilled table).
  void reset() { state_.fill(0); }

  std::vector<std::uint32_t> states() const { return state_.to_vector(); }

  /// Stable sort of each block by descending Entry::priority() (0-255).
  template <class Exec>
  void presort();

  /// Recount the state words (and sum value(entry), a trivially copyable STM_HD
  /// functor returning long long, over the committed entries) on the backend.
  template <class Exec, class Value>
  txtable_audit audit(Value value) const;

 private:
  const Entry* ref_entries() const { return entries_.data(); }
  static std::size_t checked(std::uint32_t threads, std::uint32_t per_thread) {
    if (threads == 0) throw usage_error("a transaction table needs at least one thread");
    if (per_thread == 0) throw usage_error("a transaction table needs at least one transaction per thread");
    return std::size_t(threads) * per_thread;
  }

  buffer<Entry> entries_;
  buffer<std::uint32_t> state_;
  mutable buffer<long long> audit_;  // per-thread partial counts of audit(): 5 arrays of `threads`
  std::uint32_t threads_ = 0, per_thread_ = 0;
};

static_assert(std::is_trivially_copyable_v<txtable_ref<int>>);

}  // namespace stm

#include "stm/detail/txtable.inl"
