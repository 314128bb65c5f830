// SPDX-License-Identifier: Apache-2.0
// stm/history.hpp - recorded histories: what a transaction descriptor of a
// recording configuration logs, and the log's owner (host) and ref (kernels).
//
//   using cfg = stm::tx_config<16, 8, true, /*Record=*/true>;
//   stm::history hist(backend::gpu, locks, commits, ops);       // host
//   ... in the kernel:                                        // stm/stm.hpp
//   stm::transaction<stm::prstm, cfg> tx(locks_ref, tid);
//   tx.record_into(hist_ref);                                  // before the first TX_BEGIN
//   ...
//   stm::recorded_history h = hist.read();                     // host, after the kernel
//   stm::history_report r = stm::check_history(h, initial);    // stm/history_check.hpp
//
// Recording is opt-in at compile time (tx_config's Record): a descriptor of a
// configuration without it has no recording state and executes no recording
// code. A recording descriptor logs
//  - each committed transaction: its thread id and attempt number, each read
//    (address, bits read, the lock's commit sequence it observed) and each
//    write (address, bits written, the sequence it installed);
//  - each aborted attempt (conflict, semantic, capacity): the reads whose
//    values the body saw. With Opaque = true they must form one consistent
//    snapshot; with Opaque = false nothing promises that, and the checker
//    only looks at them when asked (a test that the checker catches it).
// Both logs are bounded; an attempt that does not fit is counted (dropped_*),
// never silently lost. A history with dropped commits cannot be checked (a
// read may claim a write that is not in the log): check_history refuses it.
//
// The order of writes. The lock word's version is 11 bits and wraps, so it
// cannot order the writers of a location. While recording, each lock has a
// 64-bit commit sequence beside the table (seq[lock], from 0). A committer
// bumps it in publish(), for every lock it writes under, while it holds that
// final lock: after fence (A), before the write-back (stm/detail/tx_core.hpp).
// Why that order is the real one:
//  - Only the holder of the final lock on L bumps seq[L] (an atomic
//    increment, so the sequences of a lock are 1, 2, 3, ... without repeats
//    whatever happens), and final locks on L are held one at a time. Each
//    holder took L by an RMW chain that reads the previous holder's unlock
//    store and then executed an acquire fence ((P)/(C) of the manager, or
//    gpustm's acquire CAS); that store follows the previous holder's fence
//    (B), which follows its bump. So each bump comes after the previous
//    holder's: the sequences of L follow the order in which the commits held
//    L, which is the order of their write-backs (each write-back happens while
//    its lock is held).
//  - A read loads seq[L] between its acquire load of the lock word (w1) and
//    its data load, all before fence (R). If the read is accepted (w1 and the
//    re-load w2 unlocked at one version), the data load saw the write-back of
//    the commit that released w1 and no later one (that is the core's (R)/(A)
//    argument). The sequence load saw that commit's bump (w1 is an acquire
//    load that reads the unlock store after its (B)), and no later bump: a
//    later bump follows that committer's (A), so a sequence load that read it
//    would, through (R), make w2 see the final lock. So the sequence a read
//    records names exactly the last commit under L whose values it saw; the
//    location's value is that of the last writer of the location with a
//    sequence at most that one (or its initial value), which the checker
//    verifies read by read.
//  - With Opaque = false a recording read makes the same three loads in that
//    order (the non-recording read does not order them). If the opaque read
//    would not accept them (a final lock in w1 or w2, or their versions
//    differ), the claim is not exact: the read is marked uncertain and noted
//    as one that met a final lock, so that the commit fails (read_locked) and
//    the transaction is retried. (Without that, a commit whose validation
//    accepts such a read would keep an inexact claim: gpustm's value-based
//    validation after a moved version, or a final lock given back unwritten.)
//    A committed transaction thus keeps exact claims only; the checker
//    reports any uncertain read it finds in one.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "stm/backend.hpp"
#include "stm/buffer.hpp"
#include "stm/error.hpp"
#include "stm/lock_table.hpp"
#include "stm/platform.hpp"

namespace stm {

/// One logged access. A read's seq is the commit sequence of its lock that it
/// observed (bit 63: uncertain, see above); a write's seq is the one it
/// installed.
struct history_op {
  std::uint64_t addr;
  std::uint64_t value;  // the bits (4-byte values zero-extended)
  std::uint64_t seq;
  static constexpr std::uint64_t uncertain_bit = std::uint64_t(1) << 63;
};

/// One logged attempt: its accesses are ops[first_op, first_op + n_reads)
/// (reads, in program order), then n_writes writes.
struct history_attempt {
  std::uint64_t first_op;
  std::uint32_t tid;
  std::uint32_t attempt;    // attempt number within its transaction (0 = first)
  std::uint32_t n_reads;
  std::uint32_t n_writes;
  std::uint32_t flags;      // committed_flag | opaque_flag
  std::uint32_t pad;
  static constexpr std::uint32_t committed_flag = 1, opaque_flag = 2;
  STM_HD bool committed() const { return (flags & committed_flag) != 0; }
  STM_HD bool opaque() const { return (flags & opaque_flag) != 0; }
};

namespace detail {
/// One bounded log (commits, or aborted attempts): slots are reserved by
/// fetch_add; counters[0] attempts reserved, [1] ops reserved, [2] dropped.
struct history_pool_ref {
  history_attempt* attempts = nullptr;
  history_op* ops = nullptr;
  std::uint64_t* counters = nullptr;
  std::uint64_t attempt_cap = 0, op_cap = 0;

  /// Reserve room for one attempt of n ops; false (and counted) when full
  /// (a pool of no capacity only counts).
  STM_HD bool reserve(std::uint32_t n, std::uint64_t& slot, std::uint64_t& first) const {
    first = atomic_ref<std::uint64_t>(counters[1]).fetch_add(n, memory_order_relaxed);
    if (first + n <= op_cap) {
      slot = platform::claim_index(counters[0]);
      if (slot < attempt_cap) return true;
    }
    atomic_ref<std::uint64_t>(counters[2]).fetch_add(1, memory_order_relaxed);
    return false;
  }
};
}  // namespace detail

/// Trivially copyable view of a history, passed by value into kernels and
/// given to each recording descriptor (transaction::record_into).
struct history_ref {
  std::uint64_t* seq = nullptr;   // one 64-bit commit sequence per lock
  detail::history_pool_ref commits, aborts;

  STM_HD atomic_ref<std::uint64_t> lock_seq(std::uint32_t lock) const { return atomic_ref<std::uint64_t>(seq[lock]); }
};
static_assert(std::is_trivially_copyable_v<history_ref>);

/// A history brought back to the host.
struct recorded_history {
  lock_table_ref table;                 // for the address -> lock mapping (host arithmetic only)
  std::vector<history_attempt> commits, aborts;
  std::vector<history_op> commit_ops, abort_ops;
  std::uint64_t dropped_commits = 0, dropped_aborts = 0;
};

/// Owner of a history's buffers, on the lock table's backend.
class history {
 public:
  /// Room for `commits` committed transactions with `commit_ops` accesses in
  /// all, and `aborts` aborted attempts with `abort_ops` reads (0: none kept,
  /// only counted). Throws usage_error when it does not fit in memory.
  history(const lock_table& locks, std::uint64_t commits, std::uint64_t commit_ops, std::uint64_t aborts = 0,
          std::uint64_t abort_ops = 0)
      : table_(locks.ref()),
        seq_(locks.where(), locks.size()),
        counters_(locks.where(), 6),
        commit_attempts_(locks.where(), commits),
        commit_ops_(locks.where(), commit_ops),
        abort_attempts_(locks.where(), aborts),
        abort_ops_(locks.where(), abort_ops) {
    if (commits == 0 || commit_ops == 0) throw usage_error("a history needs room for at least one commit");
    ref_.seq = seq_.data();
    ref_.commits = {commit_attempts_.data(), commit_ops_.data(), counters_.data(), commits, commit_ops};
    ref_.aborts = {abort_attempts_.data(), abort_ops_.data(), counters_.data() + 3, aborts, abort_ops};
    if (aborts == 0 || abort_ops == 0) ref_.aborts.attempt_cap = ref_.aborts.op_cap = 0;  // counted, never written
  }

  history_ref ref() const { return ref_; }

  /// Copy the logs to the host (after the kernels that record have finished).
  recorded_history read() const {
    recorded_history h;
    h.table = table_;
    const std::vector<std::uint64_t> c = counters_.to_vector();
    const auto take = [](const auto& buf, std::uint64_t n, auto& out) {
      n = n < buf.size() ? n : buf.size();
      out.resize(n);
      if (n) buf.download(out.data(), n);
    };
    take(commit_attempts_, c[0], h.commits);
    take(commit_ops_, c[1], h.commit_ops);
    take(abort_attempts_, c[3], h.aborts);
    take(abort_ops_, c[4], h.abort_ops);
    h.dropped_commits = c[2];
    h.dropped_aborts = c[5];
    return h;
  }

 private:
  lock_table_ref table_;
  buffer<std::uint64_t> seq_, counters_;
  buffer<history_attempt> commit_attempts_;
  buffer<history_op> commit_ops_;
  buffer<history_attempt> abort_attempts_;
  buffer<history_op> abort_ops_;
  history_ref ref_{};
};

}  // namespace stm
