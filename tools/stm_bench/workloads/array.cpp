// SPDX-License-Identifier: Apache-2.0
// stm_bench --workload array: the random-array benchmark of the GPU-STM
// literature (workloads/array/array.hpp). Each transaction reads --reads
// random words of --words and moves a unit between --writes of them (the
// array's sum is conserved and checked after every run); --read-only P
// percent of them only read. Written with TX_FOR in a kernel as a user writes
// one; --impl native runs the same transactions under per-word locks taken in
// address order (what a CUDA programmer writes without an STM).
//
//   stm_bench --workload array --words 2097152 --reads 64 --writes 2 --threads full
//             --validation opaque|commit|all --impl tx|native|all --cm NAME --ops N | --tpt N
#include "array.hpp"

#include <algorithm>
#include <vector>

#include "bench.hpp"
#include "cmp/registry.hpp"
#include "stm/launch.hpp"

namespace bench_array {

ar::outcome run_cpu(const ar::config& c, const std::string& cm, const stm::manager_tuning& tune) {
  if (c.variant == ar::impl::native) return ar::run_native<stm::cpu_exec>(c);
  return stm::cm::dispatch(cm, tune, [&](auto m) { return ar::run<stm::cpu_exec>(c, m); });
}

namespace {

struct plan {
  ar::config base;
  std::vector<ar::impl> variants;  // in the order they run
};

plan make_plan(const bench::options& o) {
  plan p;
  ar::config& c = p.base;
  c.words = o.get_u64("words");
  c.reads = static_cast<std::uint32_t>(o.get_u64("reads"));
  c.writes = static_cast<std::uint32_t>(o.get_u64("writes"));
  c.read_only = static_cast<std::uint32_t>(o.get_u64("read-only"));
  c.threads = o.threads(o.backend == stm::backend::gpu ? 6720u : 64u);
  c.transactions = o.ops(0);
  if (o.has("tpt")) {  // a number a thread, so that a sweep of --threads keeps each thread's work
    o.refuse("ops", "and --tpt both set the transactions: give one");
    c.transactions = o.get_u64("tpt") * c.threads;
    if (c.transactions > 0xFFFFFFFFull)
      throw stm::usage_error("--tpt x --threads is " + std::to_string(c.transactions) + " transactions, above 2^32 - 1");
  }
  c.hash = o.hash;
  c.seed = o.seed;
  const std::string i = o.impl.empty() ? "tx" : o.impl;
  const std::string v = o.get("validation");
  std::vector<ar::impl> tx;
  if (v == "opaque" || v == "all") tx.push_back(ar::impl::tx_opaque);
  if (v == "commit" || v == "all") tx.push_back(ar::impl::tx_commit);
  if (i == "tx" || i == "all") p.variants = tx;
  if (i == "native" || i == "all") p.variants.push_back(ar::impl::native);
  if (i == "native") {
    for (const char* name : {"cm", "cm-wait", "cm-backoff", "hash", "validation"})
      o.refuse(name, "applies to the transactional variant only (--impl tx or all)");
  }
  return p;
}

void validate(const bench::options& o) {
  const plan p = make_plan(o);
  ar::check(p.base);
  const bool tx = std::any_of(p.variants.begin(), p.variants.end(), [](ar::impl v) { return v != ar::impl::native; });
  stm::cm::dispatch(o.cm, [&](auto m) {  // unknown names fail here, before any work
    using CM = decltype(m);
    if constexpr (stm::cm::log_capacity<CM>::value != 0)  // a manager's own limit (gpustm's lock log)
      if (tx && p.base.reads > stm::cm::log_capacity<CM>::value)
        throw stm::usage_error("--reads is at most " + std::to_string(stm::cm::log_capacity<CM>::value) +
                               " under --cm " + CM::name + " (its lock log: every attempt of more would abort)");
    return 0;
  });
}

// The array (4 bytes a word) and the larger of the STM's lock table
// (lock_table::footprint) and the native variant's word locks (4 bytes a
// word): the variants run one after the other.
bench::resources estimate(const bench::options& o) {
  const plan p = make_plan(o);
  bench::resources r;
  const std::uint64_t num_locks = (p.base.words + p.base.hash - 1) / p.base.hash;
  std::uint64_t locks = 0;
  for (ar::impl v : p.variants)
    locks = std::max(locks, v == ar::impl::native ? p.base.words * 4 : stm::lock_table::footprint(num_locks));
  r.device_bytes = bench::bytes({{p.base.words, 4}, {locks}, {1 << 20}});
  r.host_bytes = bench::bytes({{p.base.words, 4}, {1 << 20}});  // the lock table's or word locks' snapshot
  r.lower = "--words";
  return r;
}

std::vector<bench::result> run(const bench::options& o) {
  const plan p = make_plan(o);
  std::vector<bench::result> rs;
  for (ar::impl v : p.variants) {
    ar::config c = p.base;
    c.variant = v;
    ar::outcome out;
#if STM_WITH_CUDA
    if (o.backend == stm::backend::gpu) out = run_gpu(c, o.cm, o.tune);
    else
#endif
      out = run_cpu(c, o.cm, o.tune);
    const bool tx = v != ar::impl::native;
    bench::result r = bench::base_result(o, tx ? o.cm : "none", c.threads);
    r.str("impl", ar::name_of(v)).str("validation", ar::validation_of(v));
    r.integer("words", static_cast<std::int64_t>(c.words)).integer("reads", c.reads).integer("writes", c.writes);
    r.integer("read_only", c.read_only).integer("transactions", static_cast<std::int64_t>(out.transactions));
    if (tx) {
      r.integer("hash", c.hash).integer("lock_spread", out.lock_spread);
      r.tuning(o.tune);
    }
    r.counters(out.stats);
    r.measured(double(out.transactions), out.seconds, out.verified,
               std::string(ar::name_of(v)) + "/" + ar::validation_of(v) + ": " + out.message);
    rs.push_back(r);
  }
  return rs;
}

bench::registrar reg({"array",
                      "random array: each transaction reads --reads random words and moves a unit between --writes "
                      "of them (sum conserved), written with TX_FOR as a user writes it; --impl native: the same "
                      "transactions under per-word locks taken in address order",
                      {bench::integer("words", "2097152", 1, 1ull << 31, "N, words of the array (at least --reads)"),
                       bench::integer("reads", "16", 1, ar::max_reads, "R, words each transaction reads"),
                       bench::integer("writes", "2", 0, ar::max_writes,
                                      "W, words among those read that each update transaction writes (even, at most R)"),
                       bench::integer("read-only", "0", 0, 100, "% of transactions that only read"),
                       bench::choice("validation", "opaque", {"opaque", "commit", "all"},
                                     "opaque: every read validated as it is made (tx_config Opaque = true); commit: "
                                     "reads validated at commit only; all: both"),
                       bench::choice("impl", "tx", {"tx", "native", "all"},
                                     "tx: the STM; native: per-word try-locks in address order; all: both"),
                       bench::common_ops(0xFFFFFFFFull,
                                         "transactions in all (default 4 per thread, at least 65,536)"),
                       bench::integer("tpt", "", 1, 1u << 20,
                                      "transactions a logical thread, instead of --ops (the run's are --tpt x threads)"),
                       bench::common_threads(stm::lock_word::max_threads), bench::common("seed"),
                       bench::common("hash"), bench::common("cm"), bench::common("cm-wait"),
                       bench::common("cm-backoff")},
                      validate,
                      run,
                      estimate});

}  // namespace
}  // namespace bench_array
