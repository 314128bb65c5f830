// stm_bench --workload graph: minimum-value propagation over a directed CSR
// graph, the PR-STM paper's graph workload (one transaction per vertex and
// chunk of neighbours), beside its native (atomic fetch_min) counterpart.
//
//   stm_bench --workload graph --vertices 1000000 --edges 10000000
//             --graph uniform|rmat|FILE --threads N|full --hash K --cm NAME --impl tx|native|all
#include "graph.hpp"

#include <algorithm>
#include <fstream>
#include <memory>
#include <tuple>
#include <vector>

#include "bench.hpp"
#include "cmp/registry.hpp"
#include "stm/launch.hpp"

namespace bench_graph {

gr::outcome run_cpu(const gr::config& c, const input& in, const std::string& cm, const stm::cm::tuning& tune) {
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

// The whole mapping of options to the workload's configuration.
plan make_plan(const bench::options& o) {
  plan p;
  p.graph = o.get("graph");
  p.vertices = o.get_u64("vertices");
  p.edges = o.get_u64("edges");
  p.seed = o.seed;
  if (p.graph == "uniform" || p.graph == "rmat") {
    gr::check_size(p.vertices, p.edges);
  } else if (!std::ifstream(p.graph)) {
    throw stm::usage_error("--graph must be uniform, rmat or a readable edge-list or Matrix Market file, got '" +
                           p.graph + "'");
  }
  const std::uint64_t mv = o.get_u64("max-value");
  if (mv < 1 || mv > 0x7FFFFFFF) throw stm::usage_error("--max-value must be between 1 and 2^31-1");
  p.max_value = static_cast<std::int32_t>(mv);
  p.base.threads = o.threads(o.backend == stm::backend::gpu ? 1536u : 64u);
  p.base.hash = o.hash;
  const std::string i = o.impl.empty() ? "all" : o.impl;
  if (i == "all") p.impls = {gr::impl::tx, gr::impl::native};
  else if (i == "tx") p.impls = {gr::impl::tx};
  else if (i == "native") p.impls = {gr::impl::native};
  else throw stm::usage_error("unknown --impl '" + i + "' for workload graph (known: tx, native, all)");
  for (gr::impl v : p.impls) {
    p.base.variant = v;
    gr::check(p.base);
  }
  return p;
}

// The input of the last plan, kept across the repeats of one invocation (and
// the points of a sweep that do not change it): building and checking a
// 10M-edge graph on the host takes longer than propagating over it.
const input& input_for(const plan& p) {
  using key_t = std::tuple<std::string, std::uint64_t, std::uint64_t, std::uint64_t, std::int32_t>;
  static key_t key;
  static std::unique_ptr<input> cached;
  const key_t k{p.graph, p.vertices, p.edges, p.seed, p.max_value};
  if (!cached || k != key) {
    cached.reset();
    auto in = std::make_unique<input>();
    if (p.graph == "uniform" || p.graph == "rmat")
      in->g = gr::generate_csr(p.graph == "rmat" ? gr::shape::rmat : gr::shape::uniform, p.vertices, p.edges, p.seed);
    else
      in->g = gr::load_csr(p.graph);
    in->initial = gr::initial_values(in->g.vertices, p.seed, p.max_value);
    in->reference = gr::reference_minima(in->g, in->initial);
    cached = std::move(in);
    key = k;
  }
  return *cached;
}

void validate(const bench::options& o) {
  const plan p = make_plan(o);
  // A file is input: read (and kept) now, so that a malformed one is refused before any run.
  if (p.graph != "uniform" && p.graph != "rmat") input_for(p);
  stm::cm::dispatch(o.cm, [](auto) { return 0; });  // unknown names fail here, before any work
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
    const bool tx = v == gr::impl::tx;
    bench::result r = bench::base_result(o, tx ? o.cm : "none", c.threads);
    r.str("impl", gr::name_of(v));
    r.str("graph", p.graph).integer("vertices", in.g.vertices).integer("edges", static_cast<std::int64_t>(in.g.edges()));
    r.integer("max_value", p.max_value).integer("distinct_minima", static_cast<std::int64_t>(components));
    r.integer("hash", c.hash).integer("lock_spread", out.lock_spread);
    r.integer("cm_wait", o.tune.wait_polls).integer("cm_backoff", o.tune.backoff_max_ns);
    r.integer("rounds", out.rounds).integer("sends", static_cast<std::int64_t>(out.sent));
    r.integer("commits", static_cast<std::int64_t>(out.stats.commits));
    r.aborts(out.stats.aborts);
    r.num("abort_rate", out.stats.abort_rate());
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
                      {{"vertices", "1000000", "vertices of a generated graph"},
                       {"edges", "10000000", "directed edges of a generated graph"},
                       {"graph", "uniform", "uniform | rmat (R-MAT, power-law) | FILE (edge list 'u v', 0-based, or Matrix Market)"},
                       {"max-value", "10000", "initial values are uniform in [1, max-value]"}},
                      validate,
                      run});

}  // namespace
}  // namespace bench_graph
