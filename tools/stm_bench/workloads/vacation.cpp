// stm_bench --workload vacation: STAMP's travel reservation system over the
// transaction table of PR-STM, with the paper's sold-out semantic conflicts
// (workloads/vacation/vacation.hpp), under the STM (--impl tx, every manager
// via --cm) and natively (--impl native: per-record try-locks), or both in one
// run (--impl all).
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
#include "vacation.hpp"

#include "bench.hpp"
#include "cmp/registry.hpp"
#include "stm/launch.hpp"

namespace bench_vacation {

namespace vac = stm::workloads::vacation;

vac::outcome run_cpu(const vac::config& c, const std::string& impl, const std::string& cm, const stm::cm::tuning& tune) {
  auto progress = [](double f) { bench::progress("vacation", f); };
  if (impl == "native") return vac::run_native<stm::cpu_exec>(c, progress);
  return stm::cm::dispatch(cm, tune, [&](auto m) { return vac::run<stm::cpu_exec>(c, m, progress); });
}

namespace {

std::vector<std::string> impls_of(const bench::options& o) {
  const std::string i = o.impl.empty() ? "tx" : o.impl;
  if (i == "all") return {"tx", "native"};
  if (i == "tx" || i == "native") return {i};
  throw stm::usage_error("unknown --impl '" + i + "' for workload vacation (known: tx, native, all)");
}

/// Every option of the workload, in one place: preset, then explicit values.
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
  } else if (preset != "none") {
    throw stm::usage_error("unknown --preset '" + preset + "' (known: none, low, high, paper)");
  }
  // An explicit option (non-empty) overrides the preset.
  auto u32 = [&](const char* name, std::uint32_t& field, std::uint64_t lo, std::uint64_t hi) {
    if (o.get(name).empty()) return;
    const std::uint64_t v = o.get_u64(name);
    if (v < lo || v > hi)
      throw stm::usage_error(std::string("--") + name + " must be between " + std::to_string(lo) + " and " +
                             std::to_string(hi) + ", got " + o.get(name));
    field = static_cast<std::uint32_t>(v);
  };
  u32("relations", c.relations, 1, 1u << 24);
  u32("customers", c.customers, 1, 1u << 24);
  if (!o.get("relations").empty() && o.get("customers").empty() && preset != "paper") c.customers = c.relations;
  u32("queries", c.queries, 1, vac::max_queries);
  u32("query-range", c.query_range, 1, 100);
  u32("user", c.user, 0, 100);
  u32("units", c.units, 0, 1000000);
  u32("list-cap", c.list_cap, 1, vac::max_list);
  u32("spacing", c.spacing, 4, 4096);
  u32("tpt", c.tpt, 1, 4096);
  u32("max-postpones", c.policy.max_postpones, 1, stm::txstate::max_conflicts);
  if (!o.get("semantic").empty()) c.semantic = o.get_percent("semantic");
  c.read_only = o.get_percent("read-only");
  c.presort = o.get_bool("presort");
  c.threads = o.threads(o.backend == stm::backend::gpu ? 6720u : 64u);
  c.hash = o.hash;
  c.seconds = o.seconds;
  c.seed = o.seed;
  return c;
}

void validate(const bench::options& o) {
  vac::check(make_config(o));
  for (const auto& impl : impls_of(o))
    if (impl == "tx") stm::cm::dispatch(o.cm, [](auto) { return 0; });  // unknown names fail before any work
}

std::vector<bench::result> run(const bench::options& o) {
  const vac::config c = make_config(o);
  std::vector<bench::result> rs;
  for (const auto& impl : impls_of(o)) {
    vac::outcome out;
#if STM_WITH_CUDA
    if (o.backend == stm::backend::gpu) out = run_gpu(c, impl, o.cm, o.tune);
    else
#endif
      out = run_cpu(c, impl, o.cm, o.tune);
    bench::result r = bench::base_result(o, impl == "native" ? "native" : o.cm, c.threads);
    r.str("impl", impl).str("preset", o.get("preset"));
    r.integer("relations", c.relations).integer("customers", c.customers).integer("queries", c.queries);
    r.integer("query_range", c.query_range).integer("user", c.user).integer("units", c.units);
    r.integer("list_cap", c.list_cap).integer("spacing", c.spacing).integer("hash", c.hash).integer("tpt", c.tpt);
    r.num("semantic", c.semantic).num("read_only", c.read_only).boolean("presort", c.presort);
    r.str("mode", c.seconds > 0 ? "timed" : "drain");
    r.integer("semantic_items", out.semantic_items).integer("pairs_per_thread", out.pairs_per_thread);
    r.integer("semantic_retries", out.semantic_retries).integer("max_postpones", c.policy.max_postpones);
    r.integer("transactions", static_cast<std::int64_t>(out.transactions));
    r.integer("semantic_capable", static_cast<std::int64_t>(out.semantic_capable));
    r.integer("commits", static_cast<std::int64_t>(out.stats.commits));
    r.integer("postponed_then_committed", static_cast<std::int64_t>(out.table.committed_after_conflict));
    r.integer("unresolved", static_cast<std::int64_t>(out.table.unresolved));
    const std::uint64_t sem = out.stats.aborts[static_cast<std::uint32_t>(stm::abort_cause::semantic)];
    r.integer("semantic_conflicts", static_cast<std::int64_t>(sem));
    r.integer("concurrent_aborts", static_cast<std::int64_t>(out.stats.total_aborts() - sem));
    r.aborts(out.stats.aborts);
    r.num("abort_rate", out.stats.abort_rate());
    r.integer("reservations", static_cast<std::int64_t>(out.reservations));
    r.integer("launches", static_cast<std::int64_t>(out.launches));
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
                      {{"preset", "none", "none | low | high (STAMP's vacation-low/-high, full size) | paper (150,000 customers, 1,000 room types, book/cancel pairs)"},
                       {"relations", "", "items per table: cars, flights, rooms (STAMP -r; default 65536)"},
                       {"customers", "", "customers (default: as many as --relations)"},
                       {"queries", "", "items a transaction queries, 1..n (STAMP -n, at most 16; default 10)"},
                       {"query-range", "", "% of the items and customers queried (STAMP -q; default 90)"},
                       {"user", "", "% of the STAMP transactions that make reservations (STAMP -u; default 80)"},
                       {"units", "", "units per item at the start (0: STAMP's 100-500; default 0)"},
                       {"list-cap", "", "reservations a customer may hold (1-15; default 8)"},
                       {"spacing", "", "words per item record, a power of two (default 4; paper 128)"},
                       {"tpt", "64", "transactions per thread (one table; timed mode: per launch)"},
                       {"semantic", "", "% of the update transactions in book/cancel pairs on sold-out room types (default 0)"},
                       {"read-only", "0", "% of the table that are read-only queries"},
                       {"presort", "false", "cancels before books in each thread's block: no semantic conflict can occur", true},
                       {"max-postpones", "", "semantic conflicts before a transaction is reported unresolved (default 4096)"}},
                      validate,
                      run});

}  // namespace
}  // namespace bench_vacation
