// stm_bench --workload list: sorted-set mix (harris, bucketed, tx) and seed
// 004's insert-after/remove file replay (--nodes-file/--ops-file).
#include "workloads/list.hpp"

#include <cstdio>

#include "bench.hpp"
#include "cmp/registry.hpp"
#include "stm/launch.hpp"

namespace bench_list {

#if STM_WITH_CUDA
outcome run_mix_gpu(const mix_config& c, const std::string& impl, const std::string& cm);
outcome run_seed_gpu(const seed_config& c, const std::string& impl);
#endif

namespace {

const char* const mix_impls[] = {"harris", "bucketed", "tx"};
const char* const seed_impls[] = {"harris", "indexed"};

bool seed_mode(const bench::options& o) { return !o.get("nodes-file").empty() || !o.get("ops-file").empty(); }

std::vector<std::string> impls(const bench::options& o) {
  const std::string i = o.impl.empty() ? (seed_mode(o) ? "harris" : "all") : o.impl;
  if (seed_mode(o)) {
    if (i == "all") return {seed_impls[0], seed_impls[1]};
    for (auto* k : seed_impls)
      if (i == k) return {i};
    throw stm::usage_error("--impl " + i + ": the seed file replay (positional insert-after) runs on harris, indexed or all");
  }
  if (i == "all") return {mix_impls[0], mix_impls[1], mix_impls[2]};
  for (auto* k : mix_impls)
    if (i == k) return {i};
  throw stm::usage_error("unknown --impl '" + i + "' for workload list (known: harris, bucketed, tx, all)");
}

mix_config make_mix_config(const bench::options& o) {
  mix_config c;
  const auto keys = o.get_u64("keys");
  if (keys == 0 || keys > (1u << 26)) throw stm::usage_error("--keys must be between 1 and 2^26, got " + o.get("keys"));
  c.keys = static_cast<std::uint32_t>(keys);
  c.ops = o.ops(1000000);
  if (c.ops > (1ull << 31)) throw stm::usage_error("--ops must be at most 2^31 for workload list");
  const std::string mix = o.get("mix");
  unsigned a = 0, b = 0, d = 0;
  char tail = 0;
  if (std::sscanf(mix.c_str(), "%u/%u/%u%c", &a, &b, &d, &tail) != 3 || a + b + d != 100)
    throw stm::usage_error("--mix must be I/R/C percentages summing to 100 (e.g. 20/20/60), got '" + mix + "'");
  c.insert = a;
  c.remove = b;
  c.threads = o.threads(o.backend == stm::backend::gpu ? 65536u : 64u);
  c.seed = o.seed;
  return c;
}

seed_config make_seed_config(const bench::options& o) {
  if (o.get("nodes-file").empty() || o.get("ops-file").empty())
    throw stm::usage_error("the seed replay needs both --nodes-file and --ops-file");
  seed_config c;
  c.initial = stm::list::seed::read_nodes(o.get("nodes-file"));
  c.ops = stm::list::seed::read_ops(o.get("ops-file"), c.initial);
  if (c.initial.size() + c.ops.size() + 1 > stm::list::node::max_index - 2)
    throw stm::usage_error("the seed files need more nodes than a list pool holds (2^30)");
  c.threads = o.threads(32u * 1024u);
  return c;
}

void validate(const bench::options& o) {
  impls(o);
  if (seed_mode(o)) make_seed_config(o);
  else {
    const auto c = make_mix_config(o);
    stm::cm::dispatch(o.cm, [](auto) { return 0; });
    stm::require_priorities(c.threads);
  }
}

std::vector<bench::result> run(const bench::options& o) {
  std::vector<bench::result> rs;
  if (seed_mode(o)) {
    const auto c = make_seed_config(o);
    for (const auto& impl : impls(o)) {
      outcome out;
  #if STM_WITH_CUDA
      if (o.backend == stm::backend::gpu) out = run_seed_gpu(c, impl);
      else
  #endif
        out = impl == "indexed" ? run_seed<stm::cpu_exec, stm::list::indexed_seq>(c)
                                : run_seed<stm::cpu_exec, stm::list::harris_seq>(c);
      bench::result r = bench::base_result(o, impl, c.threads);
      r.str("mode", "seed-replay").integer("initial", static_cast<std::int64_t>(c.initial.size()));
      r.integer("ops", static_cast<std::int64_t>(out.ops)).integer("succeeded", static_cast<std::int64_t>(out.succeeded));
      r.integer("final_size", static_cast<std::int64_t>(out.final_size));
      r.num("ms", out.seconds * 1e3);
      r.measured(double(out.ops), out.seconds, out.verified, impl + ": " + out.message);
      rs.push_back(r);
    }
    return rs;
  }
  const auto c = make_mix_config(o);
  for (const auto& impl : impls(o)) {
    outcome out;
#if STM_WITH_CUDA
    if (o.backend == stm::backend::gpu) out = run_mix_gpu(c, impl, o.cm);
    else
#endif
      out = stm::cm::dispatch(o.cm, [&](auto m) { return run_mix<stm::cpu_exec, decltype(m)>(c, impl); });
    bench::result r = bench::base_result(o, impl, c.threads);
    r.str("mode", "mix").integer("keys", c.keys).str("mix", o.get("mix"));
    if (impl == "tx") r.str("cm", o.cm);
    r.integer("ops", static_cast<std::int64_t>(out.ops)).integer("succeeded", static_cast<std::int64_t>(out.succeeded));
    r.integer("final_size", static_cast<std::int64_t>(out.final_size));
    r.integer("capacity_aborts", static_cast<std::int64_t>(out.capacity));
    if (impl == "tx") {
      r.integer("commits", static_cast<std::int64_t>(out.stats.commits));
      r.aborts(out.stats.aborts);
    }
    r.measured(double(out.ops), out.seconds, out.verified, impl + ": " + out.message);
    rs.push_back(r);
  }
  return rs;
}

bench::registrar reg({"list",
                      "sorted linked lists (harris, bucketed, tx) and seed 004's insert-after replay (harris, indexed)",
                      {{"keys", "10000", "key range of the mix: keys 0..N-1, about half present at the start"},
                       {"mix", "20/20/60", "insert/remove/contains percentages"},
                       {"nodes-file", "", "seed 004 listnodes.txt (with --ops-file: replay mode)"},
                       {"ops-file", "", "seed 004 operations.txt"}},
                      validate,
                      run});

}  // namespace
}  // namespace bench_list
