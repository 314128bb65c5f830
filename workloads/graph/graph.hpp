// SPDX-License-Identifier: Apache-2.0
// workloads/graph/graph.hpp - minimum-value propagation over a directed CSR
// graph, the PR-STM paper's graph workload: every vertex holds a value
// (uniform in [1, max_value]); a vertex sends its value along its out-edges and
// lowers every neighbour whose value is greater; only vertices lowered in a
// round send again in the next (a frontier of flags), until no vertex changes.
// Finally every vertex holds the least initial value of the vertices that can
// reach it (itself included).
//
//   tx      the paper's transaction: a vertex reads its value and up to
//           `chunk` neighbours' values and writes the lower ones, in one
//           transaction (a vertex of higher degree runs one per chunk);
//   tx-filtered
//           the same transaction over the neighbours that a plain load shows
//           greater than the sender's value (also loaded plainly), as a user
//           would write it: values only fall, so a neighbour seen not greater
//           stays so, and if the sender's own value falls meanwhile, whoever
//           lowered it flagged it to send again in the next round; the fixpoint
//           is the same. A chunk without such a neighbour runs no transaction;
//   tx-lower
//           tx-filtered's transaction without the sender's value in it: the
//           sender sends the value its plain load saw, and the transaction
//           reads and writes only the neighbours (each lowered to that value,
//           or written back unchanged when it fell meanwhile), so every read
//           is of a location it writes: no read of a hot sender to conflict
//           on, the commit's cheaper path (no seq_cst fence, no separate read
//           validation), and sets of at most `chunk` entries, which the core
//           keeps in registers (tx's chunk + 1 reads put its descriptor in
//           local memory). A thread's chunks run as one TX_FOR loop, so
//           the lanes of a warp go on with their own next chunks while a lane
//           pauses after an abort, instead of meeting at every transaction
//           (round_tx_lower_kernel says why the fixpoint is the same);
//   native  the same frontier, each neighbour lowered with an atomic fetch_min
//           (also after a plain load shows it greater).
//
// Written once over an execution policy and a contention manager; the graph
// (generate_csr, load_csr) and the verification are host code (detail/csr.hpp).
// Verification after every run: every final value equals reference_minima(),
// a sequential pass (vertices in increasing initial value each flood what they
// reach and is not yet labelled); no edge (u, v) has value[v] > value[u]; every
// lock word free.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stm/buffer.hpp"
#include "stm/lock_table.hpp"
#include "stm/stats.hpp"
#include "stm/tx_macros.hpp"
#include "workloads/detail/warp.hpp"
#include "workloads/graph/detail/csr.hpp"

namespace stm::workloads::graph {

enum class impl { tx, tx_filtered, tx_lower, native };
inline const char* name_of(impl i) {
  return i == impl::tx ? "tx" : i == impl::tx_filtered ? "tx-filtered" : i == impl::tx_lower ? "tx-lower" : "native";
}
inline bool transactional(impl i) { return i != impl::native; }

/// Neighbours a transaction lowers at most (its write set; reads: one more).
inline constexpr std::uint32_t chunk = 8;

struct config {
  std::uint32_t threads = 1536;  // logical threads (each runs vertices t, t + threads, ...)
  std::uint32_t hash = 1;        // lock coverage: values per lock
  impl variant = impl::tx;
};

struct outcome {
  stm::tx_stats stats;
  double seconds = 0;       // all rounds (kernel time)
  std::uint32_t rounds = 0;  // the last one lowers nothing
  std::uint64_t sent = 0;    // vertices that sent their value, all rounds
  std::uint64_t lowered = 0;  // values lowered (committed writes that lowered, successful fetch_mins), all rounds
  std::vector<double> round_seconds;  // kernel time of every round
  std::uint32_t lock_spread = 1;
  bool locks_free = true;
  std::vector<std::int32_t> values;  // final
  bool verified = false;
  std::string message;
};

/// One round: every flagged vertex sends its value; a lowered neighbour is
/// flagged for the next round (after the transaction that lowered it committed).
template <class CM>
struct round_tx_kernel {
  CM cm;
  stm::lock_table_ref locks;
  stm::stats_ref stats;
  const std::uint32_t* offsets;
  const std::uint32_t* targets;
  std::int32_t* value;
  std::uint32_t* cur;   // flags of this round's senders (each cleared by its sender)
  std::uint32_t* next;  // flags of the next round's
  unsigned long long* sent;  // [0]: senders, [2]: values lowered
  std::uint32_t vertices, workers;
  bool filtered;  // impl::tx_filtered
  STM_HD void operator()(std::uint32_t w) const {
    stm::transaction<CM, stm::tx_config<chunk + 1, chunk, false>> tx(locks, w, cm);
    unsigned long long n_sent = 0, n_lowered = 0;
    for (std::uint64_t v = w; v < vertices; v += workers) {
      if (stm::atomic_ref<std::uint32_t>(cur[v]).load(stm::memory_order_relaxed) == 0) continue;
      stm::atomic_ref<std::uint32_t>(cur[v]).store(0, stm::memory_order_relaxed);
      ++n_sent;
      const std::uint32_t end = offsets[v + 1];
      for (std::uint32_t e0 = offsets[v]; e0 < end; e0 += chunk) {
        const std::uint32_t e1 = end - e0 < chunk ? end : e0 + chunk;
        // bit j: targets[e0 + j] takes part (tx: all; tx-filtered: seen greater)
        std::uint32_t part = e1 - e0 == 32 ? ~0u : (1u << (e1 - e0)) - 1u;
        if (filtered) {
          const std::int32_t seen = stm::atomic_ref<std::int32_t>(value[v]).load(stm::memory_order_relaxed);
          part = 0;
          for (std::uint32_t e = e0; e < e1; ++e)
            if (stm::atomic_ref<std::int32_t>(value[targets[e]]).load(stm::memory_order_relaxed) > seen)
              part |= 1u << (e - e0);
          if (part == 0) continue;
        }
        std::uint32_t lowered = 0;  // bit j: targets[e0 + j] was lowered
        TX_BEGIN(tx) {
          lowered = 0;
          const std::int32_t mine = TX_READ(tx, &value[v]);
          for (std::uint32_t e = e0; e < e1; ++e) {
            if (!(part >> (e - e0) & 1u)) continue;
            std::int32_t* t = &value[targets[e]];
            if (TX_READ(tx, t) > mine) {
              TX_WRITE(tx, t, mine);
              lowered |= 1u << (e - e0);
            }
          }
        }
        TX_END(tx);
        n_lowered += stm::platform::popc(lowered);
        for (; lowered; lowered &= lowered - 1)
          stm::atomic_ref<std::uint32_t>(next[targets[e0 + stm::platform::lowest_bit(lowered)]])
              .store(1, stm::memory_order_relaxed);
      }
    }
    detail::add_warp_total(&sent[0], n_sent, w, workers);
    detail::add_warp_total(&sent[2], n_lowered, w, workers);
    stats.add(tx.counters());
  }
};

/// One round of tx-lower. A logical thread's work is the chunks of its
/// flagged vertices, in order; it counts them first, then runs them as the
/// transactions of one TX_FOR loop, a cursor (v, e0) naming the chunk of
/// transaction i (advanced in the then-clause, once transaction i has ended).
///
/// The body loads the sender's value and each neighbour's plainly and takes
/// part only for the neighbours seen greater (as tx-filtered); for each, it
/// reads it in the transaction and writes min(read, sent): the sent value
/// when the neighbour is still greater, else the value read, unchanged (a
/// neighbour that fell meanwhile; rare), so the write set covers the read set.
/// A retry loads again, so it drops neighbours that fell in between. A chunk
/// with no neighbour seen greater runs an empty transaction, which commits
/// without touching shared memory and is not counted among the commits.
///
/// Same fixpoint as tx. Safety: a value only falls (a write stores at most
/// what the transaction read there), and what it falls to is a value the
/// sender held, hence the initial value of a vertex that reaches the sender
/// and so the neighbour. Completeness: take an edge (u, t) and u's final value
/// x, written by a transaction of round r (or initial: r = 0, and every vertex
/// sends in round 1). That transaction's thread flags u for round r + 1 after
/// it committed, so round r + 1 runs, and it starts after round r has ended:
/// u's sender loads x there (nothing lowers u after x). If its load of t shows
/// t <= x, t stays so (values only fall); else its transaction leaves t at
/// min(t, x) <= x. So at the end value[t] <= value[u] on every edge, which
/// with safety is the least value that reaches t.
template <class CM>
struct round_tx_lower_kernel {
  CM cm;
  stm::lock_table_ref locks;
  stm::stats_ref stats;
  const std::uint32_t* offsets;
  const std::uint32_t* targets;
  std::int32_t* value;
  std::uint32_t* cur;
  std::uint32_t* next;
  unsigned long long* sent;  // [0]: senders, [2]: values lowered
  std::uint32_t vertices, workers;

  // The first flagged vertex from v on (w's stride) with an out-edge; clears
  // the flags it passes. `vertices` when none is left.
  STM_HD std::uint64_t seek(std::uint64_t v) const {
    for (; v < vertices; v += workers)
      if (stm::atomic_ref<std::uint32_t>(cur[v]).load(stm::memory_order_relaxed) != 0) {
        stm::atomic_ref<std::uint32_t>(cur[v]).store(0, stm::memory_order_relaxed);
        if (offsets[v + 1] > offsets[v]) return v;
      }
    return vertices;
  }

  STM_HD void operator()(std::uint32_t w) const {
    unsigned long long n_sent = 0, n_lowered = 0, n_empty = 0;
    std::uint32_t n = 0;  // chunks of w's flagged vertices
    for (std::uint64_t v = w; v < vertices; v += workers)
      if (stm::atomic_ref<std::uint32_t>(cur[v]).load(stm::memory_order_relaxed) != 0) {
        ++n_sent;
        n += (offsets[v + 1] - offsets[v] + chunk - 1) / chunk;
      }
    std::uint64_t v = seek(w);
    std::uint32_t e0 = v < vertices ? offsets[v] : 0;
    std::uint32_t lowered = 0;  // bit j: targets[e0 + j] was lowered (the last attempt)
    bool empty = true;          // the last attempt saw no neighbour greater
    stm::transaction<CM, stm::tx_config<chunk, chunk, false>> tx(locks, w, cm);
    TX_FOR(tx, i, n) {
      lowered = 0;
      const std::uint32_t end = offsets[v + 1], e1 = end - e0 < chunk ? end : e0 + chunk;
      const std::int32_t sent_value = stm::atomic_ref<std::int32_t>(value[v]).load(stm::memory_order_relaxed);
      std::uint32_t part = 0;
      for (std::uint32_t e = e0; e < e1; ++e)
        if (stm::atomic_ref<std::int32_t>(value[targets[e]]).load(stm::memory_order_relaxed) > sent_value)
          part |= 1u << (e - e0);
      empty = part == 0;
      for (std::uint32_t e = e0; e < e1; ++e) {
        if (!(part >> (e - e0) & 1u)) continue;
        std::int32_t* t = &value[targets[e]];
        const std::int32_t old = TX_READ(tx, t);
        TX_WRITE(tx, t, old > sent_value ? sent_value : old);
        if (old > sent_value) lowered |= 1u << (e - e0);
      }
    }
    TX_FOR_THEN(tx) {
      // Transaction i has ended. Flag what it lowered, then on to the next chunk.
      if (tx.committed()) {
        n_empty += empty;
        n_lowered += stm::platform::popc(lowered);
        for (; lowered; lowered &= lowered - 1)
          stm::atomic_ref<std::uint32_t>(next[targets[e0 + stm::platform::lowest_bit(lowered)]])
              .store(1, stm::memory_order_relaxed);
      }
      if (offsets[v + 1] - e0 > chunk) {
        e0 += chunk;
      } else if (i + 1 < n) {
        v = seek(v + workers);
        e0 = offsets[v];
      }
    }
    if (v < vertices) seek(v + workers);  // clears the flags of vertices without out-edges behind the last chunk
    detail::add_warp_total(&sent[0], n_sent, w, workers);
    detail::add_warp_total(&sent[2], n_lowered, w, workers);
    stm::tx_counters k = tx.counters();
    k.commits -= n_empty;
    stats.add(k);
  }
};

/// The same round with atomic fetch_min (no STM).
struct round_native_kernel {
  const std::uint32_t* offsets;
  const std::uint32_t* targets;
  std::int32_t* value;
  std::uint32_t* cur;
  std::uint32_t* next;
  unsigned long long* sent;  // [0]: senders, [2]: values lowered
  std::uint32_t vertices, workers;
  STM_HD void operator()(std::uint32_t w) const {
    unsigned long long n_sent = 0, n_lowered = 0;
    for (std::uint64_t v = w; v < vertices; v += workers) {
      if (stm::atomic_ref<std::uint32_t>(cur[v]).load(stm::memory_order_relaxed) == 0) continue;
      stm::atomic_ref<std::uint32_t>(cur[v]).store(0, stm::memory_order_relaxed);
      ++n_sent;
      const std::int32_t mine = stm::atomic_ref<std::int32_t>(value[v]).load(stm::memory_order_relaxed);
      for (std::uint32_t e = offsets[v], end = offsets[v + 1]; e < end; ++e) {
        stm::atomic_ref<std::int32_t> t(value[targets[e]]);
        // Read first: most neighbours are already low enough, and a load is cheaper than an atomic.
        if (t.load(stm::memory_order_relaxed) > mine && t.fetch_min(mine, stm::memory_order_relaxed) > mine) {
          stm::atomic_ref<std::uint32_t>(next[targets[e]]).store(1, stm::memory_order_relaxed);
          ++n_lowered;
        }
      }
    }
    detail::add_warp_total(&sent[0], n_sent, w, workers);
    detail::add_warp_total(&sent[2], n_lowered, w, workers);
  }
};

/// Counts the flags of the next round (one logical thread per 32-vertex slice).
struct count_flags_kernel {
  const std::uint32_t* flags;
  std::uint32_t vertices;
  unsigned long long* count;
  STM_HD void operator()(std::uint32_t s) const {
    unsigned long long n = 0;
    for (std::uint64_t v = std::uint64_t(s) * 32; v < vertices && v < std::uint64_t(s) * 32 + 32; ++v) n += flags[v] != 0;
    detail::add_warp_total(count, n, s, (vertices + 31) / 32);  // the launch's logical threads: one per slice
  }
};

inline void check(const config& c) {
  if (c.threads == 0) throw stm::usage_error("--threads must be at least 1");
  if (c.hash == 0 || (c.hash & (c.hash - 1)) != 0)
    throw stm::usage_error("--hash must be a power of two, got " + std::to_string(c.hash));
  if (transactional(c.variant)) stm::require_priorities(c.threads);
}

/// Propagates `initial` over g until nothing changes, then verifies against
/// `reference` (reference_minima(g, initial); computed here when null).
template <class Exec, class CM>
outcome run(const config& c, const csr& g, const std::vector<std::int32_t>& initial, const CM& cm,
            const std::vector<std::int32_t>* reference = nullptr) {
  check(c);
  if (initial.size() != g.vertices) throw stm::usage_error("one initial value per vertex is needed");
  const stm::backend where = Exec::where;
  outcome out;
  const std::uint32_t V = g.vertices;
  stm::buffer<std::uint32_t> offsets(where, std::size_t(V) + 1), targets(where, g.targets.size());
  offsets.upload(g.offsets);
  targets.upload(g.targets);
  stm::buffer<std::int32_t> value(where, V);
  value.upload(initial);
  stm::buffer<std::uint32_t> flags_a(where, V), flags_b(where, V);
  flags_a.fill(1);  // every vertex sends in the first round
  stm::buffer<unsigned long long> counters(where, 3);  // [0]: senders, [1]: flags of the next round, [2]: lowered
  const std::uint64_t num_locks = V == 0 ? 1 : (std::uint64_t(V) + c.hash - 1) / c.hash;
  out.lock_spread = stm::lock_table::auto_spread(num_locks);
  stm::lock_table locks(where, num_locks, value.data(), 4ull * c.hash, out.lock_spread);
  stm::stats_block stats(where);
  const std::uint32_t workers = V == 0 ? 0 : c.threads < V ? c.threads : V;

  std::uint32_t* cur = flags_a.data();
  std::uint32_t* nxt = flags_b.data();
  for (unsigned long long flagged = V; flagged != 0;) {
    double s = 0;
    if (c.variant == impl::tx_lower)
      s = Exec::run(workers, round_tx_lower_kernel<CM>{cm, locks.ref(), stats.ref(), offsets.data(), targets.data(),
                                                       value.data(), cur, nxt, counters.data(), V, workers});
    else if (transactional(c.variant))
      s = Exec::run(workers, round_tx_kernel<CM>{cm, locks.ref(), stats.ref(), offsets.data(), targets.data(),
                                                 value.data(), cur, nxt, counters.data(), V, workers,
                                                 c.variant == impl::tx_filtered});
    else
      s = Exec::run(workers, round_native_kernel{offsets.data(), targets.data(), value.data(), cur, nxt,
                                                  counters.data(), V, workers});
    out.seconds += s;
    out.round_seconds.push_back(s);
    ++out.rounds;
    // Not timed: how many vertices send next (the host decides whether to go on).
    Exec::run((V + 31) / 32, count_flags_kernel{nxt, V, counters.data() + 1});
    std::vector<unsigned long long> cnt = counters.to_vector();
    flagged = cnt[1];
    out.sent = cnt[0];
    out.lowered = cnt[2];
    cnt[1] = 0;
    counters.upload(cnt);
    std::swap(cur, nxt);
  }

  out.stats = stats.read();
  out.values = value.to_vector();
  for (std::uint32_t w : locks.snapshot()) out.locks_free &= stm::lock_word::is_free(w);
  const std::string diff =
      verify(g, initial, reference ? *reference : reference_minima(g, initial), out.values);
  out.verified = diff.empty() && out.locks_free;
  out.message = std::string(diff.empty() ? "every vertex holds the least value that reaches it, no edge descends"
                                         : "MISMATCH: " + diff) +
                "; " + std::to_string(out.rounds) + " rounds, " + std::to_string(out.sent) + " sends, " +
                std::to_string(out.lowered) + " lowered, " +
                std::to_string(out.stats.commits) + " commits, lock table " + (out.locks_free ? "free" : "NOT free");
  return out;
}

}  // namespace stm::workloads::graph
