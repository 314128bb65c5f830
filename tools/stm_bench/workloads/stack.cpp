// SPDX-License-Identifier: Apache-2.0
// stm_bench --workload stack: the four stacks of containers/stack/ side by side.
//
//   stm_bench --workload stack --impl all --ops 1000000              (one op per thread)
//   stm_bench --workload stack --impl sharded --threads full --ops 27033600 --push-ratio 50
#include "stack.hpp"

#include <algorithm>

#include "bench.hpp"
#include "stm/lock_word.hpp"

namespace bench_stack {

outcome run_cpu(const config& c) { return run_impl<stm::cpu_exec>(c); }

namespace {

std::vector<std::string> impls_of(const bench::options& o) {
  const std::string impl = o.impl.empty() ? "all" : o.impl;
  if (impl == "all") return {std::begin(impl_names), std::end(impl_names)};
  if (impl != "treiber-single" && std::find(std::begin(impl_names), std::end(impl_names), impl) == std::end(impl_names))
    throw stm::usage_error("unknown stack implementation '" + impl + "' (known: " + known_impls + ")");
  return {impl};
}

config make_config(const bench::options& o) {
  config c;  // ranges: the declarations below
  c.cm = o.cm;
  c.seed = o.seed;
  c.ops = o.ops(o.backend == stm::backend::gpu ? 1000000u : 100000u);
  // Default: one operation per thread (a scalability test) on the GPU.
  const std::uint64_t dflt = o.backend == stm::backend::gpu ? c.ops : std::min<std::uint64_t>(c.ops, 64);
  c.threads = o.threads(static_cast<std::uint32_t>(std::min<std::uint64_t>(dflt, 0xFFFFFFFFull)));
  if (c.threads > c.ops)
    throw stm::usage_error("--threads " + std::to_string(c.threads) + " is more than the " + std::to_string(c.ops) +
                           " operations (--ops): lower --threads or raise --ops");
  c.push_ratio = static_cast<std::uint32_t>(o.get_u64("push-ratio"));
  c.prefill = o.get("prefill") == "auto" ? c.ops / 2 : o.get_u64("prefill");
  c.capacity = o.get("capacity") == "auto" ? c.prefill + c.ops : o.get_u64("capacity");
  if (c.capacity > (1ull << 31))
    throw stm::usage_error("the stack's capacity (prefill + ops by default) must be at most 2^31, got " +
                           std::to_string(c.capacity) + ": lower --ops or --prefill, or give --capacity");
  if (c.prefill > c.capacity) throw stm::usage_error("--prefill must not exceed --capacity");
  if (c.prefill + c.ops > 0xFFFFFFFFull - 1) throw stm::usage_error("--prefill plus --ops must be below 2^32 - 1");
  c.shards = static_cast<std::uint32_t>(o.get_u64("shards"));
  c.treiber.slots_per_sm = static_cast<std::uint32_t>(o.get_u64("elim-slots"));
  c.treiber.offer_ns = static_cast<std::uint32_t>(o.get_u64("offer-ns"));
  const auto impls = impls_of(o);
  auto runs = [&](const char* i) { return std::find(impls.begin(), impls.end(), i) != impls.end(); };
  if (!runs("sharded")) o.refuse("shards", "applies to the sharded stack only (--impl sharded or all)");
  else if (c.shards > c.capacity && !o.has("shards"))  // the default: as many shards as cells, as the stack does
    c.shards = static_cast<std::uint32_t>(c.capacity);
  else if (c.shards > c.capacity)  // the stack would quietly use fewer shards than asked for
    throw stm::usage_error("--shards " + std::to_string(c.shards) + " is more than the capacity " +
                           std::to_string(c.capacity) + ": lower --shards or raise --capacity");
  if (!runs("treiber") && !runs("treiber-single")) {
    o.refuse("elim-slots", "applies to the treiber stacks only (--impl treiber, treiber-single or all)");
    o.refuse("offer-ns", "applies to the treiber stacks only (--impl treiber, treiber-single or all)");
  }
  if (!runs("tx")) o.refuse("cm", "applies to the tx stack only (--impl tx or all)");
  if (runs("tx") && o.has("threads")) stm::require_priorities(c.threads);
  return c;
}

void validate(const bench::options& o) {
  make_config(o);
  for (const auto& impl : impls_of(o))
    if (impl == "tx") stm::cm::dispatch(o.cm, [](auto) { return 0; });  // unknown names fail here, before any work
}

// Status and value of every operation (on the backend, then copied to the
// host with a balance byte per value), and the stack's cells (a lock word per
// cell for tx) and shards; the implementations run one after the other.
bench::resources estimate(const bench::options& o) {
  const config c = make_config(o);
  bench::resources r;
  r.device_bytes = bench::bytes({{c.ops, 8}, {c.capacity, 24}, {c.shards, 64}, {1 << 20}});
  r.host_bytes = bench::bytes({{c.ops, 8}, {c.prefill + c.ops + 1}});
  r.lower = "--ops, --prefill or --capacity";
  return r;
}

std::vector<bench::result> run(const bench::options& o) {
  config c = make_config(o);
  const std::uint32_t threads = c.threads;
  std::vector<bench::result> rs;
  for (const auto& impl : impls_of(o)) {
    c.impl = impl;
    c.threads = impl == "tx" ? std::min<std::uint32_t>(threads, stm::lock_word::max_threads) : threads;
    if (!o.quiet) bench::progress("stack " + impl, 0.0);
    outcome out;
#if STM_WITH_CUDA
    if (o.backend == stm::backend::gpu) out = run_gpu(c);
    else
#endif
      out = run_cpu(c);
    bench::result r = bench::base_result(o, impl, c.threads);
    r.integer("ops", static_cast<std::int64_t>(c.ops));
    r.integer("push_ratio", c.push_ratio);
    r.integer("prefill", static_cast<std::int64_t>(c.prefill));
    r.integer("capacity", static_cast<std::int64_t>(c.capacity));
    if (impl == "sharded") r.integer("shards", c.shards);
    if (impl == "treiber" || impl == "treiber-single") {
      r.integer("elim_slots", c.treiber.slots_per_sm);
      r.integer("offer_ns", c.treiber.offer_ns);
      r.integer("eliminated", static_cast<std::int64_t>(out.eliminated));
    }
    if (impl == "tx") r.str("cm", c.cm);
    r.integer("pushes_ok", static_cast<std::int64_t>(out.pushes_ok));
    r.integer("pushes_full", static_cast<std::int64_t>(out.pushes_full));
    r.integer("pops_ok", static_cast<std::int64_t>(out.pops_ok));
    r.integer("pops_empty", static_cast<std::int64_t>(out.pops_empty));
    r.integer("remaining", static_cast<std::int64_t>(out.remaining));
    if (impl == "tx") {
      r.integer("commits", static_cast<std::int64_t>(out.tx.commits));
      r.aborts(out.tx.aborts);
      r.num("abort_rate", out.tx.abort_rate());
    }
    r.num("mops", out.seconds > 0 ? double(c.ops) / out.seconds * 1e-6 : 0.0);
    r.measured(double(c.ops), out.seconds, out.verified, impl + ": " + out.message);
    rs.push_back(std::move(r));
  }
  return rs;
}

bench::registrar reg({"stack",
                      "concurrent stacks: treiber (Treiber; treiber-single: without warp batching), scan (South's scan stack), sharded (fast), tx (STM)",
                      {bench::integer("push-ratio", "50", 0, 100, "percentage of operations that push"),
                       bench::integer("prefill", "auto", 0, 1ull << 31, "values pushed before the timed run (auto: half of --ops)",
                                      {"auto"}),
                       bench::integer("capacity", "auto", 1, 1ull << 31,
                                      "stack capacity (auto: prefill + ops, so no push can fail)", {"auto"}),
                       bench::integer("shards", "1024", 1, 1u << 24, "shards of the sharded stack"),
                       bench::integer("elim-slots", std::to_string(stm::stack::treiber_config{}.slots_per_sm), 0, 1024,
                                      "treiber: grid-wide elimination slots per SM (0: off)"),
                       bench::integer("offer-ns", std::to_string(stm::stack::treiber_config{}.offer_ns), 0, 100000000,
                                      "treiber: how long a push batch's elimination offer waits (ns)"),
                       bench::common_threads(0xFFFFFFFFull),
                       bench::common_ops(0xFFFFFFFFull - 1, "operations (at least --threads; prefill + ops below 2^32-1)"),
                       bench::choice("impl", "all", {"treiber", "treiber-single", "scan", "sharded", "tx", "all"},
                                     "stack implementation"),
                       bench::common("cm"), bench::common("seed")},
                      validate,
                      run,
                      estimate});

}  // namespace
}  // namespace bench_stack
