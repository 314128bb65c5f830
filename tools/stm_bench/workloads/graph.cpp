// SPDX-License-Identifier: Apache-2.0
// stm_bench --workload graph: minimum-value propagation over a directed CSR
// graph, the PR-STM paper's graph workload (one transaction per vertex and
// chunk of neighbours), beside its native (atomic fetch_min) counterpart.
//
//   stm_bench --workload graph --vertices 1000000 --edges 10000000
//             --graph uniform|rmat|FILE --threads N|full --hash K --cm NAME
//             --impl tx|tx-filtered|tx-lower|native|all
#include "graph.hpp"

#include <algorithm>
#include <fstream>
#include <memory>
#include <sstream>
#include <tuple>
#include <utility>
#include <vector>

#include "bench.hpp"
#include "memo.hpp"
#include "cmp/registry.hpp"
#include "stm/launch.hpp"

namespace bench_graph {

gr::outcome run_cpu(const gr::config& c, const input& in, const std::string& cm, const stm::manager_tuning& tune) {
  return stm::cm::dispatch(cm, tune, [&](auto m) { return gr::run<stm::cpu_exec>(c, in.g, in.initial, m, &in.reference); });
}

namespace {

struct plan {
  gr::config base;  // variant set per run
  std::vector<gr::impl> impls;
  std::string graph;  // uniform, rmat, or a file
  std::uint64_t vertices = 0, edges = 0, seed = 1;
  std::int32_t max_value = 10000;
};

bool generated(const std::string& graph) { return graph == "uniform" || graph == "rmat"; }

// The whole mapping of options to the workload's configuration (ranges: the
// declarations below; what depends on several options: gr::check).
plan make_plan(const bench::options& o) {
  plan p;
  p.graph = o.get("graph");
  p.vertices = o.get_u64("vertices");
  p.edges = o.get_u64("edges");
  p.seed = o.seed;
  if (!generated(p.graph)) {
    if (!std::ifstream(p.graph))
      throw stm::usage_error("--graph must be uniform, rmat or a readable edge-list or Matrix Market file, got '" +
                             p.graph + "'");
    o.refuse("vertices", "applies to a generated graph only (--graph uniform or rmat): a file gives its own");
    o.refuse("edges", "applies to a generated graph only (--graph uniform or rmat): a file gives its own");
  }
  p.max_value = static_cast<std::int32_t>(o.get_u64("max-value"));
  p.base.threads = o.threads(o.backend == stm::backend::gpu ? 1536u : 64u);
  p.base.hash = o.hash;
  const std::string i = o.impl.empty() ? "all" : o.impl;  // the values: the declaration of --impl below
  if (i == "all") p.impls = {gr::impl::tx, gr::impl::tx_filtered, gr::impl::tx_lower, gr::impl::native};
  else if (i == "tx") p.impls = {gr::impl::tx};
  else if (i == "tx-filtered") p.impls = {gr::impl::tx_filtered};
  else if (i == "tx-lower") p.impls = {gr::impl::tx_lower};
  else p.impls = {gr::impl::native};
  if (i == "native")  // atomic fetch_min: no STM
    for (const char* name : {"cm", "cm-wait", "cm-backoff", "hash"})
      o.refuse(name, "applies to the transactional propagation only (--impl tx, tx-filtered, tx-lower or all)");
  return p;
}

// The size of a graph file without keeping it: the vertices (a Matrix Market
// size line, else the largest vertex number + 1) and the edges (data lines;
// twice as many for a symmetric matrix). Malformed lines are left to
// gr::load_csr, which refuses them.
std::pair<std::uint64_t, std::uint64_t> file_size(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::uint64_t vertices = 0, edges = 0, per_entry = 1;
  bool mm = false, sized = false;
  for (std::uint64_t lineno = 1; std::getline(in, line); ++lineno) {
    if (lineno == 1 && line.rfind("%%MatrixMarket", 0) == 0) {
      mm = true;
      if (line.find("symmetric") != std::string::npos || line.find("hermitian") != std::string::npos) per_entry = 2;
      continue;
    }
    const std::size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#' || line[first] == '%') continue;
    std::istringstream l(line);
    long long a = -1, b = -1;
    if (!(l >> a >> b) || a < 0 || b < 0) continue;
    if (mm && !sized) {
      vertices = std::uint64_t(std::max(a, b));
      sized = true;
      continue;
    }
    if (!mm) vertices = std::max(vertices, std::uint64_t(std::max(a, b)) + 1);
    edges += per_entry;
  }
  return {std::min(vertices, gr::max_vertices), std::min(edges, gr::max_edges)};
}

// The input of the last plan, kept across the repeats of one invocation (and
// the points of a sweep that do not change it): building and checking a
// 10M-edge graph on the host takes longer than propagating over it.
const input& input_for(const plan& p) {
  using key_t = std::tuple<std::string, std::uint64_t, std::uint64_t, std::uint64_t, std::int32_t>;
  return bench::memo(key_t{p.graph, p.vertices, p.edges, p.seed, p.max_value}, [&p] {
    input in;
    if (generated(p.graph))
      in.g = gr::generate_csr(p.graph == "rmat" ? gr::shape::rmat : gr::shape::uniform, p.vertices, p.edges, p.seed);
    else
      in.g = gr::load_csr(p.graph);
    in.initial = gr::initial_values(in.g.vertices, p.seed, p.max_value);
    in.reference = gr::reference_minima(in.g, in.initial);
    return in;
  });
}

void validate(const bench::options& o) {
  plan p = make_plan(o);
  for (gr::impl v : p.impls) {
    p.base.variant = v;
    gr::check(p.base);
  }
  stm::cm::dispatch(o.cm, [](auto) { return 0; });  // unknown names fail here, before any work
  // A file is input: read (and kept) now, so that a malformed one is refused before any run.
  if (!generated(p.graph)) input_for(p);
}

// On the host: the edge list a graph is built from (source and target of
// every edge) with the CSR it becomes, then the CSR, the initial values, the
// reference minima (and their work arrays) and a run's copied values. The
// buffers of gr::run: the CSR, values, two flag arrays and the lock table.
bench::resources estimate(const bench::options& o) {
  const plan p = make_plan(o);
  std::uint64_t vertices = p.vertices, edges = p.edges;
  if (!generated(p.graph)) std::tie(vertices, edges) = file_size(p.graph);
  const std::uint64_t num_locks = (vertices + p.base.hash - 1) / p.base.hash;
  const std::uint64_t spread = stm::lock_table::auto_spread(num_locks);
  bench::resources r;
  const std::uint64_t table = stm::lock_table::footprint(num_locks);
  r.device_bytes = bench::bytes({{edges, 4}, {vertices, 16}, {table}, {1 << 20}});
  r.host_bytes = bench::bytes(
      {{edges, 12}, {vertices, 32}, {num_locks, spread, 4}, {num_locks, spread > 1 ? 4u : 0u}, {1 << 20}});
  r.lower = generated(p.graph) ? "--vertices or --edges" : "the graph file's size";
  return r;
}

std::vector<bench::result> run(const bench::options& o) {
  plan p = make_plan(o);
  const input& in = input_for(p);
  std::uint64_t components = 0;  // distinct final values: a lower bound on the surviving minima
  {
    std::vector<std::int32_t> r = in.reference;
    std::sort(r.begin(), r.end());
    components = static_cast<std::uint64_t>(std::unique(r.begin(), r.end()) - r.begin());
  }
  std::vector<bench::result> rs;
  for (gr::impl v : p.impls) {
    gr::config c = p.base;
    c.variant = v;
    gr::outcome out;
#if STM_WITH_CUDA
    if (o.backend == stm::backend::gpu) out = run_gpu(c, in, o.cm, o.tune);
    else
#endif
      out = run_cpu(c, in, o.cm, o.tune);
    const bool tx = gr::transactional(v);
    bench::result r = bench::base_result(o, tx ? o.cm : "none", c.threads);
    r.str("impl", gr::name_of(v));
    r.str("graph", p.graph).integer("vertices", in.g.vertices).integer("edges", static_cast<std::int64_t>(in.g.edges()));
    r.integer("max_value", p.max_value).integer("distinct_minima", static_cast<std::int64_t>(components));
    r.integer("hash", c.hash).integer("lock_spread", out.lock_spread);
    r.tuning(o.tune);
    r.integer("rounds", out.rounds).integer("sends", static_cast<std::int64_t>(out.sent));
    r.integer("lowered", static_cast<std::int64_t>(out.lowered));
    {  // where the time goes: each round's kernel time
      std::vector<std::pair<std::string, double>> per_round;
      for (std::size_t k = 0; k < out.round_seconds.size(); ++k)
        per_round.emplace_back(std::to_string(k + 1), out.round_seconds[k] * 1e3);
      r.object("round_ms", per_round);
    }
    r.counters(out.stats);
    r.num("ms", out.seconds * 1e3);
    r.num("tx_per_second", out.seconds > 0 ? double(out.stats.commits) / out.seconds : 0.0);
    // throughput: edges of the graph per second of the whole propagation (the
    // inverse of its time, in the unit of graph codes; the same for every implementation).
    r.measured(double(in.g.edges()), out.seconds, out.verified, std::string(gr::name_of(v)) + ": " + out.message);
    rs.push_back(r);
  }
  return rs;
}

bench::registrar reg({"graph",
                      "minimum-value propagation over a directed CSR graph: transactional (one transaction per vertex "
                      "and chunk of neighbours) beside native atomic fetch_min (PR-STM paper, sections 4.8-4.9)",
                      {bench::integer("vertices", "1000000", 1, gr::max_vertices, "vertices of a generated graph"),
                       bench::integer("edges", "10000000", 0, gr::max_edges, "directed edges of a generated graph"),
                       bench::text("graph", "uniform",
                                   "uniform | rmat (R-MAT, power-law) | FILE (edge list 'u v', 0-based, or Matrix Market)"),
                       bench::integer("max-value", "10000", 1, 0x7FFFFFFF, "initial values are uniform in [1, max-value]"),
                       bench::choice("impl", "all", {"tx", "tx-filtered", "tx-lower", "native", "all"},
                                     "tx: a transaction per vertex and chunk of neighbours; tx-filtered: the same over "
                                     "the neighbours a plain load shows greater; tx-lower: tx-filtered sending the "
                                     "value the sender's plain load saw (reads only what it writes; TX_FOR); native: "
                                     "atomic fetch_min; all"),
                       bench::common_threads(0xFFFFFFFFull), bench::common("seed"), bench::common("hash"),
                       bench::common("cm"), bench::common("cm-wait"), bench::common("cm-backoff")},
                      validate,
                      run,
                      estimate});

}  // namespace
}  // namespace bench_graph
