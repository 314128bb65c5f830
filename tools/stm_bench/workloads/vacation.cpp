// SPDX-License-Identifier: Apache-2.0
// stm_bench --workload vacation: STAMP's travel reservation system over the
// transaction table of PR-STM, with the paper's sold-out semantic conflicts
// (workloads/vacation/vacation.hpp), under the STM (--impl tx, every manager
// via --cm) and natively (--impl native: per-record try-locks, a randomized
// pause after a busy lock capped by --cm-backoff, default 16 us), or both in
// one run (--impl all).
//
// STAMP's parameters: --queries (-n), --query-range (-q), --relations (-r),
// --user (-u); -t (transactions) is the table, --threads x --tpt per launch,
// or as many launches as --seconds takes. Presets (GPU-scaled):
//   low    STAMP's vacation-low at its full size:  -n2 -q90 -u98 -r1048576
//   high   STAMP's vacation-high at its full size: -n4 -q60 -u90 -r1048576
//   paper  the PR-STM paper's (section 4.2): 150,000 customers, 1,000 room
//          types, bookings and cancellations only (--semantic 100: every
//          update is a book/cancel pair), records 128 words apart so that no
//          lock of coverage <= 128 covers two (the paper's "interval 100").
//          A room type's stock is the units its holders start with (threads x
//          tpt / 2,000 on average), not the paper's 150; cars and flights,
//          which only queries read then, have 150 units each
// An option given explicitly wins over the preset.
//
// --priority aging runs prstm with the aging priority of cmp/prstm_aging.hpp
// (consecutive aborts first, then the thread id) instead of the paper's thread
// id, in the same binary, for an A/B at one point.
#include "vacation.hpp"

#include <algorithm>

#include "bench.hpp"
#include "priority.hpp"
#include "stm/launch.hpp"

namespace bench_vacation {

namespace vac = stm::workloads::vacation;

vac::outcome run_cpu(const vac::config& c, const std::string& impl, const std::string& cm, const stm::manager_tuning& tune,
                     const std::string& priority) {
  auto progress = [](double f) { bench::progress("vacation", f); };
  if (impl == "native") return vac::run_native<stm::cpu_exec>(c, tune, progress);
  return bench::with_manager(cm, priority, tune, stm::backend::cpu, c.threads,
                             [&](auto m) { return vac::run<stm::cpu_exec>(c, m, progress); });
}

namespace {

std::vector<std::string> impls_of(const bench::options& o) {
  const std::string i = o.impl.empty() ? "tx" : o.impl;  // the values: the declaration of --impl below
  if (i == "all") return {"tx", "native"};
  return {i};
}

/// Every option of the workload, in one place: preset, then explicit values
/// (ranges: the declarations below; what depends on several options:
/// vac::check).
vac::config make_config(const bench::options& o) {
  vac::config c;
  const std::string preset = o.get("preset");
  if (preset == "low" || preset == "high") {
    c.relations = c.customers = 1u << 20;
    c.queries = preset == "low" ? 2 : 4;
    c.query_range = preset == "low" ? 90 : 60;
    c.user = preset == "low" ? 98 : 90;
  } else if (preset == "paper") {
    c.relations = 1000;
    c.customers = 150000;
    c.units = 150;
    c.queries = 1;
    c.spacing = 128;
    c.semantic = 100;
  }
  // An explicit option (non-empty) overrides the preset.
  auto u32 = [&](const char* name, std::uint32_t& field) {
    if (!o.get(name).empty()) field = static_cast<std::uint32_t>(o.get_u64(name));
  };
  u32("relations", c.relations);
  u32("customers", c.customers);
  if (!o.get("relations").empty() && o.get("customers").empty() && preset != "paper") c.customers = c.relations;
  u32("queries", c.queries);
  u32("query-range", c.query_range);
  u32("user", c.user);
  u32("units", c.units);
  u32("list-cap", c.list_cap);
  u32("spacing", c.spacing);
  u32("tpt", c.tpt);
  u32("max-postpones", c.policy.max_postpones);
  if (!o.get("semantic").empty()) c.semantic = o.get_percent("semantic");
  c.read_only = o.get_percent("read-only");
  c.presort = o.get_bool("presort");
  c.threads = o.threads(o.backend == stm::backend::gpu ? 6720u : 64u);
  c.hash = o.hash;
  c.seconds = o.seconds;
  c.seed = o.seed;
  const auto impls = impls_of(o);
  // The native baseline takes per-record locks, no STM; --cm-backoff caps its
  // pause after a busy lock as it caps a manager's after an abort.
  if (impls.size() == 1 && impls[0] == "native")
    for (const char* name : {"cm", "cm-wait", "hash", "priority"})
      o.refuse(name, "applies to the STM only (--impl tx or all)");
  bench::check_priority(o);
  return c;
}

void validate(const bench::options& o) {
  vac::check(make_config(o));
  for (const auto& impl : impls_of(o))
    if (impl == "tx") stm::cm::dispatch(o.cm, [](auto) { return 0; });  // unknown names fail before any work
}

// The buffers of vac::run and vac::run_native: the arena, its lock table (tx)
// or record locks (native), the transaction table (entries, state words,
// audit partials) and per-thread counts; on the host, the final arena, the
// verifier's per-item counts and the lock snapshot. The implementations run
// one after the other: the larger of their buffers.
bench::resources estimate(const bench::options& o) {
  const vac::config c = make_config(o);
  const vac::layout L = vac::layout_of(c);
  const std::uint64_t words = L.words(), num_locks = (words + c.hash - 1) / c.hash;
  const std::uint64_t spread = stm::lock_table::auto_spread(num_locks);
  std::uint64_t locks = 0;
  for (const auto& impl : impls_of(o))
    locks = std::max(locks, impl == "tx" ? stm::lock_table::footprint(num_locks)
                                         : bench::bytes({{std::uint64_t(L.items()) + L.customers + L.holders, 4}}));
  bench::resources r;
  r.device_bytes = bench::bytes({{words, 4},
                                 {locks},
                                 {c.threads, c.tpt, sizeof(vac::vtx) + 4},
                                 {c.threads, 5 * 8 + 8 + 16 + 4},
                                 {1 << 20}});
  r.host_bytes = bench::bytes({{words, 4}, {L.items(), 16}, {num_locks, spread, 4}, {num_locks, spread > 1 ? 4u : 0u},
                               {c.threads, 16}});
  r.lower = "--relations, --customers, --spacing, --threads or --tpt";
  return r;
}

std::vector<bench::result> run(const bench::options& o) {
  const vac::config c = make_config(o);
  std::vector<bench::result> rs;
  for (const auto& impl : impls_of(o)) {
    vac::outcome out;
#if STM_WITH_CUDA
    if (o.backend == stm::backend::gpu) out = run_gpu(c, impl, o.cm, o.tune, o.get("priority"));
    else
#endif
      out = run_cpu(c, impl, o.cm, o.tune, o.get("priority"));
    bench::result r = bench::base_result(o, impl == "native" ? "native" : o.cm, c.threads);
    r.str("impl", impl).str("preset", o.get("preset"));
    r.str("priority", bench::priority_field(o, impl != "native"));
    if (o.tune.backoff_max_ns != 0) r.integer("cm_backoff", o.tune.backoff_max_ns);  // a cap other than the default
    r.integer("relations", c.relations).integer("customers", c.customers).integer("queries", c.queries);
    r.integer("query_range", c.query_range).integer("user", c.user).integer("units", c.units);
    r.integer("list_cap", c.list_cap).integer("spacing", c.spacing).integer("hash", c.hash).integer("tpt", c.tpt);
    r.num("semantic", c.semantic).num("read_only", c.read_only).boolean("presort", c.presort);
    r.str("mode", c.seconds > 0 ? "timed" : "drain");
    r.integer("semantic_items", out.semantic_items).integer("pairs_per_thread", out.pairs_per_thread);
    r.counters(out.stats);
    r.table(out.table, out.stats, out.transactions, out.semantic_capable, out.semantic_retries, c.policy.max_postpones);
    r.integer("reservations", static_cast<std::int64_t>(out.reservations));
    r.integer("launches", static_cast<std::int64_t>(out.launches));
    // The blocks' drain times (block t: thread t's transactions): the tail,
    // and the lowest against the highest tenth of the thread ids.
    r.num("thread_time_p50", out.thread_seconds_p50).num("thread_time_max", out.thread_seconds_max);
    r.num("thread_time_low_ids", out.thread_seconds_low_ids).num("thread_time_high_ids", out.thread_seconds_high_ids);
    r.num("pause_low_ids", out.pause_seconds_low_ids).num("pause_high_ids", out.pause_seconds_high_ids);
    // Blocks that started with the launch against those handed out later.
    r.integer("drainers", out.drainers);
    r.num("thread_time_first_wave", out.thread_seconds_first_wave).num("thread_time_handed_out", out.thread_seconds_handed_out);
    r.measured(double(out.stats.commits), out.seconds, out.verified,
               impl + ": " + std::to_string(out.table.committed_after_conflict) +
                   " transactions postponed then committed, " + std::to_string(out.table.unresolved) +
                   " unresolved; " + out.message);
    rs.push_back(r);
  }
  return rs;
}

bench::registrar reg({"vacation",
                      "STAMP vacation (reservations, customer deletions, table updates) over the transaction table, "
                      "with sold-out semantic conflicts (PR-STM paper, sections 4.1-4.3); --impl tx|native|all",
                      {bench::choice("preset", "none", {"none", "low", "high", "paper"},
                                     "low, high: STAMP's vacation-low/-high at full size; paper: 150,000 customers, "
                                     "1,000 room types, book/cancel pairs"),
                       bench::integer("relations", "", 1, 1u << 24, "items per table: cars, flights, rooms (STAMP -r; default 65536)"),
                       bench::integer("customers", "", 1, 1u << 24, "customers (default: as many as --relations)"),
                       bench::integer("queries", "", 1, vac::max_queries, "items a transaction queries, 1..n (STAMP -n; default 10)"),
                       bench::integer("query-range", "", 1, 100, "% of the items and customers queried (STAMP -q; default 90)"),
                       bench::integer("user", "", 0, 100, "% of the STAMP transactions that make reservations (STAMP -u; default 80)"),
                       bench::integer("units", "", 0, 1000000, "units per item at the start (0: STAMP's 100-500; default 0)"),
                       bench::integer("list-cap", "", 1, vac::max_list, "reservations a customer may hold (default 8)"),
                       bench::integer("spacing", "", 4, 4096, "words per item record, a power of two (default 4; paper 128)"),
                       bench::integer("tpt", "64", 1, 4096, "transactions per thread (one table; timed mode: per launch)"),
                       bench::number("semantic", "", 0, 100,
                                     "% of the update transactions in book/cancel pairs on sold-out room types (default 0)"),
                       bench::number("read-only", "0", 0, 100, "% of the table that are read-only queries"),
                       bench::toggle("presort", "cancels before books in each thread's block: no semantic conflict can occur"),
                       bench::integer("max-postpones", "", 1, stm::txstate::max_conflicts,
                                      "semantic conflicts before a transaction is reported unresolved (default 4096)"),
                       bench::priority_option(),
                       bench::choice("impl", "tx", {"tx", "native", "all"},
                                     "tx: the STM; native: per-record try-locks; all: both in one run"),
                       bench::common_threads(stm::lock_word::max_threads), bench::common("seconds"),
                       bench::common("seed"), bench::common("hash"), bench::common("cm"), bench::common("cm-wait"),
                       bench::common("cm-backoff")},
                      validate,
                      run,
                      estimate});

}  // namespace
}  // namespace bench_vacation
