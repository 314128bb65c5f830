// stm_bench --workload stack: the four stacks of containers/stack/ side by side.
//
//   stm_bench --workload stack --impl all --ops 1000000              (seed 000's table, one op per thread)
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
  config c;
  c.cm = o.cm;
  c.seed = o.seed;
  c.ops = o.ops(o.backend == stm::backend::gpu ? 1000000u : 100000u);
  if (c.ops > 0xFFFFFFFFull - 1) throw stm::usage_error("--ops must be below 2^32 - 1 for the stack workload");
  // Default: one operation per thread (seed 000's scalability test) on the GPU.
  const std::uint64_t dflt = o.backend == stm::backend::gpu ? c.ops : std::min<std::uint64_t>(c.ops, 64);
  c.threads = o.threads(static_cast<std::uint32_t>(std::min<std::uint64_t>(dflt, 0xFFFFFFFFull)));
  if (c.threads > c.ops) c.threads = static_cast<std::uint32_t>(c.ops);
  const double ratio = o.get_percent("push-ratio");
  if (ratio != static_cast<std::uint32_t>(ratio))
    throw stm::usage_error("--push-ratio must be a whole percentage, got " + o.get("push-ratio"));
  c.push_ratio = static_cast<std::uint32_t>(ratio);
  c.prefill = o.get("prefill") == "auto" ? c.ops / 2 : o.get_u64("prefill");
  c.capacity = o.get("capacity") == "auto" ? c.prefill + c.ops : o.get_u64("capacity");
  if (c.capacity == 0) throw stm::usage_error("--capacity must be at least 1");
  if (c.capacity > (1ull << 31)) throw stm::usage_error("--capacity must be at most 2^31");
  if (c.prefill > c.capacity) throw stm::usage_error("--prefill must not exceed --capacity");
  if (c.prefill + c.ops > 0xFFFFFFFFull - 1) throw stm::usage_error("--prefill plus --ops must be below 2^32 - 1");
  const std::uint64_t shards = o.get_u64("shards");
  if (shards == 0 || shards > (1u << 24)) throw stm::usage_error("--shards must be between 1 and 2^24");
  c.shards = static_cast<std::uint32_t>(shards);
  const std::uint64_t slots = o.get_u64("elim-slots"), offer = o.get_u64("offer-ns");
  if (slots > 1024) throw stm::usage_error("--elim-slots must be at most 1024");
  if (offer > 100000000u) throw stm::usage_error("--offer-ns must be at most 10^8");
  c.treiber.slots_per_sm = static_cast<std::uint32_t>(slots);
  c.treiber.offer_ns = static_cast<std::uint32_t>(offer);
  return c;
}

void validate(const bench::options& o) {
  make_config(o);
  for (const auto& impl : impls_of(o))
    if (impl == "tx") stm::cm::dispatch(o.cm, [](auto) { return 0; });  // unknown names fail here, before any work
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
                      "concurrent stacks: treiber (seed 000; treiber-single: without warp batching), scan (seed 001), sharded (fast), tx (STM)",
                      {{"push-ratio", "50", "percentage of operations that push (0..100)"},
                       {"prefill", "auto", "values pushed before the timed run (auto: half of --ops)"},
                       {"capacity", "auto", "stack capacity (auto: prefill + ops, so no push can fail)"},
                       {"shards", "1024", "shards of the sharded stack"},
                       {"elim-slots", std::to_string(stm::stack::treiber_config{}.slots_per_sm),
                        "treiber: grid-wide elimination slots per SM (0: off)"},
                       {"offer-ns", std::to_string(stm::stack::treiber_config{}.offer_ns),
                        "treiber: how long a push batch's elimination offer waits (ns)"}},
                      validate,
                      run});

}  // namespace
}  // namespace bench_stack
