// SPDX-License-Identifier: Apache-2.0
// stm_bench --workload kmeans: STAMP's k-means (Lloyd's algorithm over integer
// 2-D points) with a transactional update stage, as in the PR-STM paper's
// data-parallel evaluation, beside its native (atomic) counterpart.
//
//   stm_bench --workload kmeans --points 1000000 --clusters 16 --iterations 5
//             --threads N|full --hash K --cm NAME --impl tx|tx-aggregated|tx-block|native|all
//             --block N (tx-block: logical threads per aggregation block)
#include "kmeans.hpp"

#include <algorithm>
#include <memory>
#include <tuple>
#include <vector>

#include "bench.hpp"
#include "memo.hpp"
#include "cmp/registry.hpp"
#include "stm/launch.hpp"

namespace bench_kmeans {

km::outcome run_cpu(const km::config& c, const km::reference& ref, const std::string& cm, const stm::manager_tuning& tune) {
  return stm::cm::dispatch(cm, tune, [&](auto m) { return km::run<stm::cpu_exec>(c, m, &ref); });
}

namespace {

struct plan {
  km::config base;               // variant set per run
  std::vector<km::impl> impls;   // in the order they run
};

// The whole mapping of options to the workload's configuration (ranges: the
// declarations below; what depends on several options: km::check).
plan make_plan(const bench::options& o) {
  plan p;
  km::config& c = p.base;
  c.points = static_cast<std::uint32_t>(o.get_u64("points"));
  c.clusters = static_cast<std::uint32_t>(o.get_u64("clusters"));
  c.iterations = static_cast<std::uint32_t>(o.get_u64("iterations"));
  c.threads = o.threads(o.backend == stm::backend::gpu ? 6720u : 64u);
  c.hash = o.hash;
  c.seed = o.seed;
  c.block = static_cast<std::uint32_t>(o.get_u64("block"));
  const std::string i = o.impl.empty() ? "all" : o.impl;  // the values: the declaration of --impl below
  if (i == "all") p.impls = {km::impl::tx, km::impl::tx_aggregated, km::impl::tx_block, km::impl::native};
  else if (i == "tx") p.impls = {km::impl::tx};
  else if (i == "tx-aggregated") p.impls = {km::impl::tx_aggregated};
  else if (i == "tx-block") p.impls = {km::impl::tx_block};
  else p.impls = {km::impl::native};
  if (i == "native")  // warp-aggregated atomics: no STM
    for (const char* name : {"cm", "cm-wait", "cm-backoff", "hash"})
      o.refuse(name, "applies to the transactional update stages only (--impl tx, tx-aggregated, tx-block or all)");
  if (i != "all" && i != "tx-block") o.refuse("block", "applies to --impl tx-block (or all) only");
  return p;
}

// The sequential reference of the last plan, kept across the repeats of one
// invocation and the sweep points that do not change it (it depends on the
// points, clusters, iterations, seed and, for the aggregated commit counts, threads, warp size and block).
const km::reference& reference_for(const km::config& c, stm::backend where) {
  using key_t = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t, std::uint64_t, std::uint32_t,
                           std::uint32_t>;
  const std::uint32_t group = km::aggregation_group(where);
  return bench::memo(key_t{c.points, c.clusters, c.iterations, c.threads, c.seed, group, c.block},
                     [&c, group] { return km::sequential(c, group); });
}

void validate(const bench::options& o) {
  plan p = make_plan(o);
  for (km::impl v : p.impls) {
    p.base.variant = v;
    km::check(p.base);
  }
  stm::cm::dispatch(o.cm, [](auto) { return 0; });  // unknown names fail here, before any work
}

// The buffers of km::run: points, memberships, centres, accumulators and their
// lock table (at most 6 x 64 words, spread), tx-block's block sums and counts;
// on the host, the sequential reference (its points while it runs, its
// memberships, the touched clusters of every worker and block) and the run's
// copied memberships.
bench::resources estimate(const bench::options& o) {
  const plan p = make_plan(o);
  const km::config& c = p.base;
  const std::uint64_t workers = std::min(c.threads, c.points);
  const std::uint64_t blocks = (workers + c.block - 1) / c.block;
  bench::resources r;
  r.device_bytes = bench::bytes({{c.points, sizeof(km::centre) + 4},
                                 {km::max_clusters, 6, 32, 4},
                                 {blocks, std::uint64_t(c.clusters) * sizeof(km::accumulator) + 4},
                                 {1 << 20}});
  r.host_bytes = bench::bytes({{c.points, sizeof(km::centre) + 2 * 4}, {workers + blocks, 8}, {1 << 20}});
  r.lower = "--points";
  return r;
}

std::vector<bench::result> run(const bench::options& o) {
  plan p = make_plan(o);
  const km::reference& ref = reference_for(p.base, o.backend);
  std::vector<bench::result> rs;
  for (km::impl v : p.impls) {
    km::config c = p.base;
    c.variant = v;
    km::outcome out;
#if STM_WITH_CUDA
    if (o.backend == stm::backend::gpu) out = run_gpu(c, ref, o.cm, o.tune);
    else
#endif
      out = run_cpu(c, ref, o.cm, o.tune);
    const bool tx = v != km::impl::native;
    bench::result r = bench::base_result(o, tx ? o.cm : "none", c.threads);
    r.str("impl", km::name_of(v));
    r.integer("points", c.points).integer("clusters", c.clusters).integer("iterations", c.iterations);
    r.integer("hash", c.hash).integer("lock_spread", out.lock_spread);
    if (v == km::impl::tx_block) r.integer("block", c.block);
    r.tuning(o.tune).counters(out.stats);
    const double it = double(c.iterations), upd = out.update_seconds;
    r.num("update_seconds", upd).num("assign_seconds", out.assign_seconds);
    r.num("seconds_per_iteration", out.seconds / it).num("update_seconds_per_iteration", upd / it);
    r.num("tx_per_second", upd > 0 ? double(out.stats.commits) / upd : 0.0);
    r.num("points_per_second", upd > 0 ? double(c.points) * it / upd : 0.0);
    // throughput: points clustered (points x iterations) per second of the whole run, the same unit
    // for every implementation; tx_per_second above is the update stage's commit rate.
    r.measured(double(c.points) * it, out.seconds, out.verified,
               std::string(km::name_of(v)) + ": " + out.message);
    rs.push_back(r);
  }
  return rs;
}

bench::registrar reg({"kmeans",
                      "STAMP k-means over integer 2-D points: transactional update stage (one transaction per point, "
                      "or per warp or block and cluster) beside native warp-aggregated atomics (PR-STM paper, sections 4.6-4.7)",
                      {bench::integer("points", "1000000", 1, km::max_points,
                                      "number of 2-D integer points (at least --clusters)"),
                       bench::integer("clusters", "16", 1, km::max_clusters, "number of clusters K"),
                       bench::integer("iterations", "5", 1, 1000000, "assignment + update iterations"),
                       bench::choice("impl", "all", {"tx", "tx-aggregated", "tx-block", "native", "all"},
                                     "update stage: tx (a transaction per point), tx-aggregated (per warp and "
                                     "cluster), tx-block (per --block threads and cluster), native (warp-aggregated "
                                     "atomics), all"),
                       bench::integer("block", "1024", 32, 0x80000000ull,
                                      "tx-block: logical threads that sum their points before one transaction per "
                                      "cluster (a multiple of 32)"),
                       bench::common_threads(0xFFFFFFFFull), bench::common("seed"), bench::common("hash"),
                       bench::common("cm"), bench::common("cm-wait"), bench::common("cm-backoff")},
                      validate,
                      run,
                      estimate});

}  // namespace
}  // namespace bench_kmeans
