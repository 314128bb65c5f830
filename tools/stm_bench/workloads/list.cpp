// SPDX-License-Identifier: Apache-2.0
// stm_bench --workload list: sorted-set mix (harris, bucketed, tx) and seed
// 004's insert-after/remove file replay (--nodes-file/--ops-file).
#include "workloads/list.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>

#include "bench.hpp"
#include "one_shot.hpp"
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

/// Operations times keys above which the plain Harris list is refused: every
/// operation walks about a quarter of the key range from the head.
constexpr std::uint64_t harris_work_bound = std::uint64_t(1) << 38;

mix_config make_mix_config(const bench::options& o) {
  mix_config c;  // ranges: the declarations below
  c.keys = static_cast<std::uint32_t>(o.get_u64("keys"));
  c.ops = o.ops(1000000);
  const auto mix = bench::percent_mix("mix", o.get("mix"));
  c.insert = double(mix[0]);
  c.remove = double(mix[1]);
  c.threads = o.threads(o.backend == stm::backend::gpu ? 65536u : 64u);
  c.seed = o.seed;
  const auto im = impls(o);
  if (std::find(im.begin(), im.end(), "harris") != im.end() && double(c.ops) * double(c.keys) > double(harris_work_bound))
    throw stm::usage_error("--ops x --keys is above 2^38 for the plain harris list (each operation walks about keys/4 "
                           "nodes): lower --ops or --keys, or run --impl bucketed or tx");
  const std::uint64_t nodes = std::uint64_t(c.keys) + (c.insert > 0 ? c.ops : 0) + mix_buckets(c.keys) + 3;
  if (nodes > stm::list::node::max_index)
    throw stm::usage_error("--keys plus the inserts of --ops may need " + std::to_string(nodes) +
                           " list nodes, a pool holds 2^30-1: lower --ops or --keys");
  c.one_shot = bench::one_shot_from(o);
  if (std::find(im.begin(), im.end(), "tx") != im.end()) stm::require_priorities(c.threads);
  else
    for (const char* name : {"cm", "one-shot"}) o.refuse(name, "applies to the tx list only (--impl tx or all)");
  return c;
}

/// Size of a seed file: a regular file of at most 2^32 bytes.
std::uint64_t seed_file_size(const std::string& option, const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw stm::usage_error("--" + option + ": cannot open '" + path + "'");
  if (!S_ISREG(st.st_mode)) throw stm::usage_error("--" + option + ": '" + path + "' is not a regular file");
  if (std::uint64_t(st.st_size) > (std::uint64_t(1) << 32))
    throw stm::usage_error("--" + option + ": '" + path + "' is larger than 2^32 bytes");
  return static_cast<std::uint64_t>(st.st_size);
}

void require_seed_files(const bench::options& o) {
  if (o.get("nodes-file").empty() || o.get("ops-file").empty())
    throw stm::usage_error("the seed replay needs both --nodes-file and --ops-file");
  for (const char* name : {"keys", "mix", "ops", "seed", "cm", "one-shot"})
    o.refuse(name, "does not apply to the seed file replay (--nodes-file, --ops-file)");
}

seed_config make_seed_config(const bench::options& o) {
  require_seed_files(o);
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
    make_mix_config(o);
    stm::cm::dispatch(o.cm, [](auto) { return 0; });
  }
}

// Mix: the operations (generated on the host, copied to the backend, their
// statuses copied back), the count per key of the verification, the node
// pool (word, free ring, retired list), and for tx the key locks (a word and
// an applied count each, one per key up to max(64, 2 x pool) and 2^22, plus
// the guard) and their lock table (a 128-byte line per lock up to 16,384).
// Seed replay: a value takes at most 2 bytes of a file and an operation 4;
// parsing, the sequential replay and the verification hold a few hash tables
// of them on the host; the pool, its index and the operations on the backend.
bench::resources estimate(const bench::options& o) {
  bench::resources r;
  if (seed_mode(o)) {
    require_seed_files(o);
    const std::uint64_t values = seed_file_size("nodes-file", o.get("nodes-file")) / 2 + 1;
    const std::uint64_t ops = seed_file_size("ops-file", o.get("ops-file")) / 4 + 1;
    r.host_bytes = bench::bytes({{values + ops, 320}});
    r.device_bytes = bench::bytes({{values + ops, 48}, {ops, 13}, {1 << 20}});
    r.lower = "the size of --nodes-file and --ops-file";
    return r;
  }
  const mix_config c = make_mix_config(o);
  const std::uint64_t nodes = std::uint64_t(c.keys) + c.ops + mix_buckets(c.keys) + 2;
  const auto im = impls(o);
  const bool tx = std::find(im.begin(), im.end(), "tx") != im.end();
  const std::uint64_t key_locks =
      tx ? std::min<std::uint64_t>(c.keys, std::min<std::uint64_t>(std::max<std::uint64_t>(64, 2 * nodes), 1u << 22)) + 1
         : 0;
  const std::uint64_t lock_bytes = key_locks * (8 + 8 + 4 * stm::lock_table::auto_spread(key_locks));
  r.host_bytes = bench::bytes({{c.ops, 2 * 8 + 1}, {c.keys, 4 + 8 + 1 + 4}, {nodes, 8}, {key_locks, 8}});
  r.device_bytes = bench::bytes({{c.ops, 9}, {c.keys, 4}, {nodes, 8 + 4 + 4}, {lock_bytes}, {1 << 20}});
  r.lower = "--ops or --keys";
  return r;
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
    if (impl == "tx") r.str("cm", o.cm).str("one_shot", stm::to_string(c.one_shot));
    r.integer("ops", static_cast<std::int64_t>(out.ops)).integer("succeeded", static_cast<std::int64_t>(out.succeeded));
    r.integer("final_size", static_cast<std::int64_t>(out.final_size));
    r.integer("capacity_aborts", static_cast<std::int64_t>(out.capacity));
    if (impl == "tx") r.counters(out.stats);
    r.measured(double(out.ops), out.seconds, out.verified, impl + ": " + out.message);
    rs.push_back(r);
  }
  return rs;
}

bench::registrar reg({"list",
                      "sorted linked lists (harris, bucketed, tx) and an insert-after file replay (harris, indexed)",
                      {bench::integer("keys", "10000", 1, 1u << 26, "key range of the mix: keys 0..N-1, about half present at the start"),
                       bench::text("mix", "20/20/60", "insert/remove/contains: three whole percentages summing to 100"),
                       bench::text("nodes-file", "", "initial nodes, listnodes.txt format (with --ops-file: replay mode; a regular file of at most 2^32 bytes)"),
                       bench::text("ops-file", "", "operations, operations.txt format (a regular file of at most 2^32 bytes)"),
                       bench::common_threads(0xFFFFFFFFull),
                       bench::common_ops(1ull << 31, "operations of the mix (harris: ops x keys at most 2^38)"),
                       bench::choice("impl", "all", {"harris", "bucketed", "tx", "indexed", "all"},
                                     "mix: harris, bucketed, tx or all; seed replay: harris, indexed or all (default harris)"),
                       bench::common("cm"), bench::common("seed"),
                       bench::one_shot_option()},
                      validate,
                      run,
                      estimate});

}  // namespace
}  // namespace bench_list
