// SPDX-License-Identifier: Apache-2.0
// workloads/kmeans/kmeans.hpp - k-means clustering (Lloyd's algorithm) as in
// STAMP's kmeans (Cao Minh et al., "STAMP: Stanford Transactional Applications
// for Multi-Processing", IISWC 2008) and the PR-STM paper's data-parallel
// evaluation: integer 2-D points, K centres, a fixed number of iterations of
//   assignment  every point takes its nearest centre (no transaction: the
//               centres are read-only in this stage);
//   update      every point is added to its cluster's accumulator
//               (count, sum x, sum y), K hot spots shared by every thread;
//   centres     centre k = accumulator sums / count (integer division; a
//               cluster left empty keeps its centre).
// The update stage comes in four implementations (`impl`):
//   tx             STAMP's: one transaction per point (reads and writes the
//                  three words of its cluster's accumulator);
//   tx_aggregated  each logical thread sums its points per cluster locally, the
//                  warp sums its threads' sums, and one lane commits one
//                  transaction per cluster the warp touched;
//   tx_block       the warps' sums are summed again over an aggregation block
//                  of `block` consecutive logical threads (atomic adds into
//                  the block's own K accumulators, off the hot spots), and the
//                  last warp of the block to add commits one transaction per
//                  cluster the block touched: commits fall by block / 32;
//   native         the same thread-local sums, summed over the warp and added
//                  with one atomic fetch_add per word and warp (warp-aggregated
//                  atomics, no STM).
// Written once over an execution policy (cpu_exec / gpu_exec) and a contention
// manager. Logical thread t handles points t, t + threads, ... (coalesced).
//
// Points are integers in [0, coord_range): sums and distances are exact, so
// every implementation, backend and interleaving computes the same clustering,
// which the verifier recomputes sequentially on the host from the same
// initial centres (the first K points, as STAMP) and compares word for word:
// memberships, accumulators of the last iteration, final centres; every point
// in exactly one cluster (counts sum to the points, and equal the membership
// histogram); transactions committed == the count the variant implies; every
// lock word free.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "stm/buffer.hpp"
#include "stm/lock_table.hpp"
#include "stm/stats.hpp"
#include "stm/tx_macros.hpp"
#include "workloads/detail/random.hpp"
#include "workloads/detail/warp.hpp"

namespace stm::workloads::kmeans {

enum class impl { tx, tx_aggregated, tx_block, native };
inline const char* name_of(impl i) {
  return i == impl::tx              ? "tx"
         : i == impl::tx_aggregated ? "tx-aggregated"
         : i == impl::tx_block      ? "tx-block"
                                    : "native";
}

/// Most clusters (the aggregated variants keep K sums per logical thread).
inline constexpr std::uint32_t max_clusters = 64;
/// Coordinates lie in [0, coord_range): sums of 2^32 points fit in 64 bits.
inline constexpr std::int32_t coord_range = 1 << 20;
/// Most points (indices and counts are 32-bit).
inline constexpr std::uint64_t max_points = 0xFFFFFFFFull;

struct config {
  std::uint32_t points = 1000000;
  std::uint32_t clusters = 16;
  std::uint32_t iterations = 5;
  std::uint32_t threads = 6720;  // logical threads of every stage
  std::uint32_t hash = 1;        // lock coverage: 4-byte words per lock
  std::uint32_t block = 1024;    // tx_block: logical threads per aggregation block (a multiple of 32)
  std::uint64_t seed = 1;
  impl variant = impl::tx;
};

/// Per cluster: count, sum x, sum y (24 bytes; one lock per word at hash 1).
struct accumulator {
  long long count, sx, sy;
  bool operator==(const accumulator& o) const { return count == o.count && sx == o.sx && sy == o.sy; }
};
struct centre {
  std::int32_t x, y;
  bool operator==(const centre& o) const { return x == o.x && y == o.y; }
};

/// What a run leaves, on the host (the verifier's input).
struct state {
  std::vector<std::int32_t> membership;  // cluster of every point
  std::vector<accumulator> acc;          // last iteration's update stage
  std::vector<centre> centres;           // after the last iteration
};

struct outcome {
  stm::tx_stats stats;
  std::uint64_t expected_commits = 0;  // points x iterations (tx), touched (warp or block, cluster) pairs (tx-aggregated, tx-block)
  double seconds = 0;                  // all stages, all iterations (kernel time)
  double update_seconds = 0;           // the update stage alone
  double assign_seconds = 0;
  std::uint32_t lock_spread = 1;
  bool locks_free = true;
  state result;
  bool verified = false;
  std::string message;
};

/// Point i: near one of 16 generated "true" centres (a sum of two uniforms per
/// coordinate), clamped to [0, coord_range). A pure function of (seed, i).
struct point_gen {
  std::uint64_t seed;
  STM_HD centre operator()(std::uint32_t i) const {
    detail::counter_rng r(seed, 1, i);
    detail::counter_rng g(seed, 2, r.below(16));
    const std::int32_t cx = static_cast<std::int32_t>(g.below(coord_range)), cy = static_cast<std::int32_t>(g.below(coord_range));
    const std::int32_t spread = coord_range / 16;
    auto around = [&](std::int32_t c) {
      std::int32_t v = c + static_cast<std::int32_t>(r.below(spread)) + static_cast<std::int32_t>(r.below(spread)) - spread;
      return v < 0 ? 0 : v >= coord_range ? coord_range - 1 : v;
    };
    const std::int32_t x = around(cx);
    return centre{x, around(cy)};
  }
};

/// Index of the centre nearest to (x, y), squared Euclidean distance, ties to
/// the lower index (as STAMP's common_findNearestPoint).
STM_HD inline std::int32_t nearest(std::int32_t x, std::int32_t y, const centre* c, std::uint32_t k) {
  std::int32_t best = 0;
  long long best_d = -1;
  for (std::uint32_t j = 0; j < k; ++j) {
    const long long dx = x - c[j].x, dy = y - c[j].y, d = dx * dx + dy * dy;
    if (best_d < 0 || d < best_d) best_d = d, best = static_cast<std::int32_t>(j);
  }
  return best;
}

/// New centre from an accumulator (an empty cluster keeps `old`).
STM_HD inline centre centre_of(const accumulator& a, centre old) {
  if (a.count == 0) return old;
  return centre{static_cast<std::int32_t>(a.sx / a.count), static_cast<std::int32_t>(a.sy / a.count)};
}

struct generate_kernel {
  centre* points;
  std::uint32_t n, workers;
  point_gen gen;
  STM_HD void operator()(std::uint32_t w) const {
    for (std::uint64_t i = w; i < n; i += workers) points[i] = gen(static_cast<std::uint32_t>(i));
  }
};

/// Assignment stage; also clears the accumulators for the update stage (and
/// tx-block's block sums and arrival counts: `blocks` blocks, none for the
/// other variants).
struct assign_kernel {
  const centre* points;
  const centre* centres;
  std::int32_t* membership;
  accumulator* acc;
  accumulator* block_acc;   // blocks x k
  std::uint32_t* arrived;   // blocks
  std::uint32_t n, k, workers, blocks;
  STM_HD void operator()(std::uint32_t w) const {
    for (std::uint32_t j = w; j < k; j += workers) acc[j] = accumulator{0, 0, 0};
    for (std::uint64_t j = w; j < std::uint64_t(blocks) * k; j += workers) block_acc[j] = accumulator{0, 0, 0};
    for (std::uint64_t j = w; j < blocks; j += workers) arrived[j] = 0;
    for (std::uint64_t i = w; i < n; i += workers) membership[i] = nearest(points[i].x, points[i].y, centres, k);
  }
};

/// Centre stage: one logical thread per cluster.
struct centre_kernel {
  const accumulator* acc;
  centre* centres;
  STM_HD void operator()(std::uint32_t j) const { centres[j] = centre_of(acc[j], centres[j]); }
};

/// Thread-local sums over points w, w + workers, ... (the aggregated variants).
struct local_sums {
  accumulator a[max_clusters];
  STM_HD void gather(const centre* points, const std::int32_t* membership, std::uint32_t n, std::uint32_t w,
                     std::uint32_t workers, std::uint32_t k) {
    for (std::uint32_t j = 0; j < k; ++j) a[j] = accumulator{0, 0, 0};
    for (std::uint64_t i = w; i < n; i += workers) {
      const std::int32_t m = membership[i];
      a[m].count += 1;
      a[m].sx += points[i].x;
      a[m].sy += points[i].y;
    }
  }
};

/// Each cluster's sums of `s`, summed over the lanes of `mask` (which must all
/// call it), added to to[0..k) by the warp's leader with relaxed atomic adds
/// (clusters no lane touched are skipped).
STM_HD inline void add_warp_sums(const local_sums& s, std::uint32_t mask, bool leader, accumulator* to,
                                 std::uint32_t k) {
  for (std::uint32_t j = 0; j < k; ++j) {
    const long long count = detail::warp_sum(mask, s.a[j].count);
    const long long sx = detail::warp_sum(mask, s.a[j].sx), sy = detail::warp_sum(mask, s.a[j].sy);
    if (!leader || count == 0) continue;
    stm::atomic_ref<long long>(to[j].count).fetch_add(count, stm::memory_order_relaxed);
    stm::atomic_ref<long long>(to[j].sx).fetch_add(sx, stm::memory_order_relaxed);
    stm::atomic_ref<long long>(to[j].sy).fetch_add(sy, stm::memory_order_relaxed);
  }
}

/// One transaction per cluster j with d[j].count != 0, adding d[j] to acc[j],
/// in the order first, first + 1, ..., k - 1, 0, ..., first - 1: were every
/// committer to start at cluster 0, then 1, ..., all would queue on one
/// accumulator's lock at a time instead of spreading over the k.
template <class Tx>
STM_HD void commit_sums(Tx& tx, accumulator* acc, const accumulator* d, std::uint32_t k, std::uint32_t first) {
  for (std::uint32_t jj = 0; jj < k; ++jj) {
    const std::uint32_t j = first + jj < k ? first + jj : first + jj - k;
    const accumulator dj = d[j];
    if (dj.count == 0) continue;
    accumulator& a = acc[j];
    TX_BEGIN(tx) {
      const long long c = TX_READ(tx, &a.count);
      const long long sx = TX_READ(tx, &a.sx);
      const long long sy = TX_READ(tx, &a.sy);
      TX_WRITE(tx, &a.count, c + dj.count);
      TX_WRITE(tx, &a.sx, sx + dj.sx);
      TX_WRITE(tx, &a.sy, sy + dj.sy);
    }
    TX_END(tx);
  }
}

/// Update stage, STAMP's transaction: one per point. Opaque = false: the body
/// only adds, a stale value can never make it misbehave, and commit-time
/// validation rejects it. A loop of TX_BEGIN/TX_END, not one TX_FOR over the
/// thread's points: the loop holds every lane of a warp at each point until
/// its slowest lane committed, which on the K hot accumulators throttles the
/// contenders; as one TX_FOR, where a lane goes on to its next point at once,
/// it measured slower (docs/design-decisions.md#kmeans-per-point).
template <class CM>
struct update_tx_kernel {
  CM cm;
  stm::lock_table_ref locks;
  stm::stats_ref stats;
  const centre* points;
  const std::int32_t* membership;
  accumulator* acc;
  std::uint32_t n, workers;
  STM_HD void operator()(std::uint32_t w) const {
    stm::transaction<CM, stm::tx_config<3, 3, false>> tx(locks, w, cm);
    for (std::uint64_t i = w; i < n; i += workers) {
      accumulator& a = acc[membership[i]];
      const centre p = points[i];
      TX_BEGIN(tx) {
        const long long c = TX_READ(tx, &a.count);
        const long long sx = TX_READ(tx, &a.sx);
        const long long sy = TX_READ(tx, &a.sy);
        TX_WRITE(tx, &a.count, c + 1);
        TX_WRITE(tx, &a.sx, sx + p.x);
        TX_WRITE(tx, &a.sy, sy + p.y);
      }
      TX_END(tx);
    }
    stats.add(tx.counters());
  }
};

/// Update stage, one transaction per cluster a warp touched: the thread-local
/// sums, summed over the warp, committed by one lane (a warp of 32 logical
/// threads commits as often as one thread). On the CPU, per thread. Each warp
/// starts at its own cluster (its index modulo k) and goes round (commit_sums).
template <class CM>
struct update_tx_aggregated_kernel {
  CM cm;
  stm::lock_table_ref locks;
  stm::stats_ref stats;
  const centre* points;
  const std::int32_t* membership;
  accumulator* acc;
  std::uint32_t n, k, workers;
  STM_HD void operator()(std::uint32_t w) const {
    const std::uint32_t mask = detail::launch_warp_mask(w, workers);
    const bool leader = stm::platform::lane_id() == stm::platform::lowest_bit(mask);
    local_sums s;
    s.gather(points, membership, n, w, workers, k);
    for (std::uint32_t j = 0; j < k; ++j) {
      s.a[j].count = detail::warp_sum(mask, s.a[j].count);
      s.a[j].sx = detail::warp_sum(mask, s.a[j].sx);
      s.a[j].sy = detail::warp_sum(mask, s.a[j].sy);
    }
    if (!leader) return;
    stm::transaction<CM, stm::tx_config<3, 3, false>> tx(locks, w, cm);
#if STM_ON_DEVICE
    const std::uint32_t first = (w / 32) % k;  // the warp's index
#else
    const std::uint32_t first = w % k;  // on the CPU a thread is its own warp
#endif
    commit_sums(tx, acc, s.a, k, first);
    stats.add(tx.counters());
  }
};

/// Update stage, one transaction per cluster an aggregation block touched.
/// Block b holds the logical threads b x block .. b x block + block - 1 (those
/// below `workers` run); `block` is a multiple of 32, so a warp lies in one
/// block. Each warp sums its threads' sums by shuffles (warp_sum), its first
/// live lane adds them into the block's own accumulators block_acc[b x k ..]
/// with relaxed atomic adds (k hot words per block instead of k for the whole
/// launch, and no transaction), then counts its lanes into arrived[b]. The
/// lane whose count completes the block's members commits the block's sums,
/// one transaction per touched cluster, starting at cluster b mod k
/// (commit_sums); no lane waits for another, so blocks larger than what runs
/// at once are fine. On the CPU a thread is its own warp: the same blocks of
/// `block` logical threads, the same commits.
///
/// Ordering: the count is an acq_rel fetch_add. Each adder's release orders
/// its adds before its count; the last adder's acquire reads the end of the
/// release sequence of every earlier count (all later operations on arrived[b]
/// are read-modify-writes), so every add happens before its loads of the sums.
/// The assignment stage zeroes block_acc and arrived before every update stage.
template <class CM>
struct update_tx_block_kernel {
  CM cm;
  stm::lock_table_ref locks;
  stm::stats_ref stats;
  const centre* points;
  const std::int32_t* membership;
  accumulator* acc;
  accumulator* block_acc;  // ceil(workers / block) x k
  std::uint32_t* arrived;  // ceil(workers / block)
  std::uint32_t n, k, workers, block;
  STM_HD void operator()(std::uint32_t w) const {
    const std::uint32_t mask = detail::launch_warp_mask(w, workers);
    const bool leader = stm::platform::lane_id() == stm::platform::lowest_bit(mask);
    local_sums s;
    s.gather(points, membership, n, w, workers, k);
    const std::uint32_t b = w / block;
    accumulator* mine = block_acc + std::uint64_t(b) * k;
    add_warp_sums(s, mask, leader, mine, k);
    if (!leader) return;
    const std::uint64_t start = std::uint64_t(b) * block;
    const std::uint32_t members = workers - start < block ? static_cast<std::uint32_t>(workers - start) : block;
    const std::uint32_t lanes = stm::platform::popc(mask);
    if (stm::atomic_ref<std::uint32_t>(arrived[b]).fetch_add(lanes, stm::memory_order_acq_rel) + lanes != members)
      return;
    for (std::uint32_t j = 0; j < k; ++j)  // the last to arrive: the block's sums are complete
      s.a[j] = accumulator{stm::atomic_ref<long long>(mine[j].count).load(stm::memory_order_relaxed),
                           stm::atomic_ref<long long>(mine[j].sx).load(stm::memory_order_relaxed),
                           stm::atomic_ref<long long>(mine[j].sy).load(stm::memory_order_relaxed)};
    stm::transaction<CM, stm::tx_config<3, 3, false>> tx(locks, w, cm);
    commit_sums(tx, acc, s.a, k, b % k);
    stats.add(tx.counters());
  }
};

/// Update stage without STM: thread-local sums, summed over the warp, then
/// three atomic adds per cluster by one lane of the warp (a warp of 32 logical
/// threads issues as many atomics as one thread). On the CPU, one thread's sums.
struct update_native_kernel {
  const centre* points;
  const std::int32_t* membership;
  accumulator* acc;
  std::uint32_t n, k, workers;
  STM_HD void operator()(std::uint32_t w) const {
    // Every lane of the mask calls warp_sum for every cluster; the _sync
    // shuffles wait for each other after the divergent gather.
    const std::uint32_t mask = detail::launch_warp_mask(w, workers);
    const bool leader = stm::platform::lane_id() == stm::platform::lowest_bit(mask);
    local_sums s;
    s.gather(points, membership, n, w, workers, k);
    add_warp_sums(s, mask, leader, acc, k);
  }
};

/// Throws stm::usage_error for a configuration that cannot run (before any allocation).
inline void check(const config& c) {
  if (c.clusters < 1 || c.clusters > max_clusters)
    throw stm::usage_error("--clusters must be between 1 and " + std::to_string(max_clusters) + ", got " +
                           std::to_string(c.clusters));
  if (c.points < c.clusters)
    throw stm::usage_error("--points must be at least --clusters (the first K points are the initial centres), got " +
                           std::to_string(c.points));
  if (c.iterations < 1) throw stm::usage_error("--iterations must be at least 1");
  if (c.threads == 0) throw stm::usage_error("--threads must be at least 1");
  if (c.hash == 0 || (c.hash & (c.hash - 1)) != 0)
    throw stm::usage_error("--hash must be a power of two, got " + std::to_string(c.hash));
  if (c.block == 0 || c.block % 32 != 0)
    throw stm::usage_error("--block must be a positive multiple of 32 (whole warps), got " + std::to_string(c.block));
  if (c.variant != impl::native) stm::require_priorities(c.threads);
}

/// The sequential recomputation, and the commits a correct run makes.
struct reference {
  state final;
  std::uint64_t aggregated_commits = 0;  // tx-aggregated: (warp, touched cluster) pairs, all iterations
  std::uint64_t block_commits = 0;       // tx-block: (block of c.block threads, touched cluster) pairs, all iterations
};

/// Logical threads that sum their points together in the aggregated variants:
/// a warp (32 consecutive ids, the launch's blocks are whole warps) on the GPU,
/// one thread on the CPU.
inline std::uint32_t aggregation_group(stm::backend where) { return where == stm::backend::gpu ? 32u : 1u; }

/// STAMP's loop on one host thread (c.variant does not matter; c.threads
/// logical threads in groups of `group` for tx-aggregated's commit count, in
/// blocks of c.block for tx-block's).
inline reference sequential(const config& c, std::uint32_t group) {
  check(c);
  reference r;
  state& s = r.final;
  std::vector<centre> pts(c.points);
  const point_gen gen{c.seed};
  for (std::uint32_t i = 0; i < c.points; ++i) pts[i] = gen(i);
  s.centres.assign(pts.begin(), pts.begin() + c.clusters);
  s.membership.assign(c.points, 0);
  if (group == 0) throw stm::usage_error("the aggregation group must hold at least one thread");
  const std::uint32_t workers = c.threads < c.points ? c.threads : c.points;
  std::vector<std::uint64_t> touched((std::uint64_t(workers) + group - 1) / group),
      touched_block((std::uint64_t(workers) + c.block - 1) / c.block);
  auto count = [](std::vector<std::uint64_t>& t, std::uint64_t& commits) {
    for (std::uint64_t& m : t)
      for (; m; m &= m - 1) ++commits;  // leaves every mask zero
  };
  for (std::uint32_t it = 0; it < c.iterations; ++it) {
    s.acc.assign(c.clusters, accumulator{0, 0, 0});
    for (std::uint32_t i = 0, w = 0; i < c.points; ++i, w = w + 1 == workers ? 0 : w + 1) {
      const std::int32_t m = nearest(pts[i].x, pts[i].y, s.centres.data(), c.clusters);
      s.membership[i] = m;
      s.acc[m].count += 1, s.acc[m].sx += pts[i].x, s.acc[m].sy += pts[i].y;
      touched[w / group] |= std::uint64_t(1) << m;
      touched_block[w / c.block] |= std::uint64_t(1) << m;
    }
    count(touched, r.aggregated_commits);
    count(touched_block, r.block_commits);
    for (std::uint32_t j = 0; j < c.clusters; ++j) s.centres[j] = centre_of(s.acc[j], s.centres[j]);
  }
  return r;
}

/// Commits a correct run of c.variant makes: one per point and iteration (tx),
/// one per warp (aggregation group), touched cluster and iteration
/// (tx-aggregated), one per block, touched cluster and iteration (tx-block),
/// none (native).
inline std::uint64_t expected_commits(const config& c, const reference& r) {
  switch (c.variant) {
    case impl::tx: return std::uint64_t(c.points) * c.iterations;
    case impl::tx_aggregated: return r.aggregated_commits;
    case impl::tx_block: return r.block_commits;
    case impl::native: break;
  }
  return 0;
}

/// Compares a run's final state with the sequential recomputation, word for
/// word. Returns an empty string when they agree, else what differs first.
inline std::string compare(const config& c, const state& ref, const state& got) {
  if (got.membership.size() != c.points || got.acc.size() != c.clusters || got.centres.size() != c.clusters)
    return "the result has the wrong shape";
  std::vector<long long> histogram(c.clusters, 0);
  for (std::uint32_t i = 0; i < c.points; ++i) {
    const std::int32_t m = got.membership[i];
    if (m < 0 || std::uint32_t(m) >= c.clusters)
      return "point " + std::to_string(i) + " is in no cluster (membership " + std::to_string(m) + ")";
    ++histogram[m];
  }
  long long total = 0;
  for (std::uint32_t j = 0; j < c.clusters; ++j) {
    total += got.acc[j].count;
    if (got.acc[j].count != histogram[j])
      return "cluster " + std::to_string(j) + " counts " + std::to_string(got.acc[j].count) + " points but " +
             std::to_string(histogram[j]) + " points are members";
  }
  if (total != c.points) return "the clusters count " + std::to_string(total) + " points of " + std::to_string(c.points);
  for (std::uint32_t i = 0; i < c.points; ++i)
    if (got.membership[i] != ref.membership[i])
      return "point " + std::to_string(i) + " is in cluster " + std::to_string(got.membership[i]) +
             ", the sequential run puts it in " + std::to_string(ref.membership[i]);
  for (std::uint32_t j = 0; j < c.clusters; ++j) {
    if (!(got.acc[j] == ref.acc[j]))
      return "cluster " + std::to_string(j) + "'s accumulator (" + std::to_string(got.acc[j].count) + ", " +
             std::to_string(got.acc[j].sx) + ", " + std::to_string(got.acc[j].sy) + ") differs from the sequential (" +
             std::to_string(ref.acc[j].count) + ", " + std::to_string(ref.acc[j].sx) + ", " +
             std::to_string(ref.acc[j].sy) + ")";
    if (!(got.centres[j] == ref.centres[j]))
      return "centre " + std::to_string(j) + " is (" + std::to_string(got.centres[j].x) + ", " +
             std::to_string(got.centres[j].y) + "), the sequential run's (" + std::to_string(ref.centres[j].x) + ", " +
             std::to_string(ref.centres[j].y) + ")";
  }
  return "";
}

/// Runs the clustering with the update stage `c.variant` (cm: the contention
/// manager of the transactional variants) and verifies it against `ref`
/// (sequential(c, aggregation_group(Exec::where)) with the same c.block;
/// computed here when null).
template <class Exec, class CM>
outcome run(const config& c, const CM& cm, const reference* ref = nullptr) {
  check(c);
  const stm::backend where = Exec::where;
  outcome out;
  stm::buffer<centre> points(where, c.points);
  stm::buffer<centre> centres(where, c.clusters);
  stm::buffer<std::int32_t> membership(where, c.points);
  stm::buffer<accumulator> acc(where, c.clusters);
  const std::uint32_t gen_workers = c.points < 65536u ? c.points : 65536u;
  Exec::run(gen_workers, generate_kernel{points.data(), c.points, gen_workers, point_gen{c.seed}});
  {  // the first K points are the initial centres
    std::vector<centre> first(c.clusters);
    points.download(first.data(), c.clusters);
    centres.upload(first);
  }
  // 6 words per cluster; a lock covers `hash` consecutive words of the accumulators.
  const std::uint64_t words = 6ull * c.clusters, num_locks = (words + c.hash - 1) / c.hash;
  out.lock_spread = stm::lock_table::auto_spread(num_locks);
  stm::lock_table locks(where, num_locks, acc.data(), 4ull * c.hash, out.lock_spread);
  stm::stats_block stats(where);
  const std::uint32_t workers = c.threads < c.points ? c.threads : c.points;
  // tx-block's block sums and arrival counts (none for the other variants).
  const std::uint32_t blocks =
      c.variant == impl::tx_block ? static_cast<std::uint32_t>((std::uint64_t(workers) + c.block - 1) / c.block) : 0;
  stm::buffer<accumulator> block_acc(where, std::uint64_t(blocks) * c.clusters);
  stm::buffer<std::uint32_t> arrived(where, blocks);

  for (std::uint32_t it = 0; it < c.iterations; ++it) {
    const double a = Exec::run(workers, assign_kernel{points.data(), centres.data(), membership.data(), acc.data(),
                                                      block_acc.data(), arrived.data(), c.points, c.clusters, workers,
                                                      blocks});
    double u = 0;
    switch (c.variant) {
      case impl::tx:
        u = Exec::run(workers, update_tx_kernel<CM>{cm, locks.ref(), stats.ref(), points.data(), membership.data(),
                                                    acc.data(), c.points, workers});
        break;
      case impl::tx_aggregated:
        u = Exec::run(workers, update_tx_aggregated_kernel<CM>{cm, locks.ref(), stats.ref(), points.data(),
                                                               membership.data(), acc.data(), c.points, c.clusters,
                                                               workers});
        break;
      case impl::tx_block:
        u = Exec::run(workers, update_tx_block_kernel<CM>{cm, locks.ref(), stats.ref(), points.data(),
                                                          membership.data(), acc.data(), block_acc.data(),
                                                          arrived.data(), c.points, c.clusters, workers, c.block});
        break;
      case impl::native:
        u = Exec::run(workers, update_native_kernel{points.data(), membership.data(), acc.data(), c.points,
                                                    c.clusters, workers});
        break;
    }
    const double z = Exec::run(c.clusters, centre_kernel{acc.data(), centres.data()});
    out.assign_seconds += a;
    out.update_seconds += u;
    out.seconds += a + u + z;
  }

  out.stats = stats.read();
  out.result.membership = membership.to_vector();
  out.result.acc = acc.to_vector();
  out.result.centres = centres.to_vector();
  for (std::uint32_t w : locks.snapshot()) out.locks_free &= stm::lock_word::is_free(w);
  const reference own = ref ? reference{} : sequential(c, aggregation_group(where));
  const reference& r = ref ? *ref : own;
  out.expected_commits = expected_commits(c, r);
  const std::string diff = compare(c, r.final, out.result);
  const bool commits_ok = out.stats.commits == out.expected_commits;
  out.verified = diff.empty() && commits_ok && out.locks_free;
  out.message = std::string(diff.empty() ? "memberships, accumulators and centres equal the sequential recomputation"
                                         : "MISMATCH: " + diff) +
                "; " + std::to_string(out.stats.commits) + " commits (expected " +
                std::to_string(out.expected_commits) + "), lock table " + (out.locks_free ? "free" : "NOT free");
  return out;
}

}  // namespace stm::workloads::kmeans
