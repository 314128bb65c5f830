// stm_bench --workload kmeans: STAMP's k-means (Lloyd's algorithm over integer
// 2-D points) with a transactional update stage, as in the PR-STM paper's
// data-parallel evaluation, beside its native (atomic) counterpart.
//
//   stm_bench --workload kmeans --points 1000000 --clusters 16 --iterations 5
//             --threads N|full --hash K --cm NAME --impl tx|tx-aggregated|native|all
#include "kmeans.hpp"

#include <memory>
#include <tuple>
#include <vector>

#include "bench.hpp"
#include "cmp/registry.hpp"
#include "stm/launch.hpp"

namespace bench_kmeans {

km::outcome run_cpu(const km::config& c, const km::reference& ref, const std::string& cm, const stm::cm::tuning& tune) {
  return stm::cm::dispatch(cm, tune, [&](auto m) { return km::run<stm::cpu_exec>(c, m, &ref); });
}

namespace {

struct plan {
  km::config base;               // variant set per run
  std::vector<km::impl> impls;   // in the order they run
};

// The whole mapping of options to the workload's configuration.
plan make_plan(const bench::options& o) {
  plan p;
  km::config& c = p.base;
  const std::uint64_t points = o.get_u64("points"), clusters = o.get_u64("clusters"), iterations = o.get_u64("iterations");
  if (points > km::max_points) throw stm::usage_error("--points must be below 2^32, got " + std::to_string(points));
  if (clusters > km::max_clusters)
    throw stm::usage_error("--clusters must be between 1 and " + std::to_string(km::max_clusters) + ", got " +
                           std::to_string(clusters));
  if (iterations > 1000000) throw stm::usage_error("--iterations must be at most 1000000");
  c.points = static_cast<std::uint32_t>(points);
  c.clusters = static_cast<std::uint32_t>(clusters);
  c.iterations = static_cast<std::uint32_t>(iterations);
  c.threads = o.threads(o.backend == stm::backend::gpu ? 6720u : 64u);
  c.hash = o.hash;
  c.seed = o.seed;
  const std::string i = o.impl.empty() ? "all" : o.impl;
  if (i == "all") p.impls = {km::impl::tx, km::impl::tx_aggregated, km::impl::native};
  else if (i == "tx") p.impls = {km::impl::tx};
  else if (i == "tx-aggregated") p.impls = {km::impl::tx_aggregated};
  else if (i == "native") p.impls = {km::impl::native};
  else throw stm::usage_error("unknown --impl '" + i + "' for workload kmeans (known: tx, tx-aggregated, native, all)");
  for (km::impl v : p.impls) {
    c.variant = v;
    km::check(c);
  }
  return p;
}

// The sequential reference of the last plan, kept across the repeats of one
// invocation and the sweep points that do not change it (it depends on the
// points, clusters, iterations, seed and, for the aggregated commit count, threads and warp size).
const km::reference& reference_for(const km::config& c, stm::backend where) {
  using key_t = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t, std::uint64_t, std::uint32_t>;
  static key_t key;
  static std::unique_ptr<km::reference> cached;
  const std::uint32_t group = km::aggregation_group(where);
  const key_t k{c.points, c.clusters, c.iterations, c.threads, c.seed, group};
  if (!cached || k != key) {
    cached.reset();
    cached = std::make_unique<km::reference>(km::sequential(c, group));
    key = k;
  }
  return *cached;
}

void validate(const bench::options& o) {
  make_plan(o);
  stm::cm::dispatch(o.cm, [](auto) { return 0; });  // unknown names fail here, before any work
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
    r.integer("cm_wait", o.tune.wait_polls).integer("cm_backoff", o.tune.backoff_max_ns);
    r.integer("commits", static_cast<std::int64_t>(out.stats.commits));
    r.aborts(out.stats.aborts);
    r.num("abort_rate", out.stats.abort_rate());
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
                      "or per warp and cluster) beside native warp-aggregated atomics (PR-STM paper, sections 4.6-4.7)",
                      {{"points", "1000000", "number of 2-D integer points"},
                       {"clusters", "16", "number of clusters K (at most 64)"},
                       {"iterations", "5", "assignment + update iterations"}},
                      validate,
                      run});

}  // namespace
}  // namespace bench_kmeans
