// SPDX-License-Identifier: Apache-2.0
// stm_bench --workload bank: the PR-STM bank over the global transaction table
// (PR-STM paper, Shen et al. JPDC 2020, sections 3.3-3.4 and 4.1-4.3): deposits, withdrawals, transfers
// and balance queries; semantic conflicts postponed (prstm) or retried (a
// manager with semantic_retries, e.g. gpustm). --driver loop|for run the same
// table from kernels written with TX_BEGIN/TX_END or TX_FOR instead.
// --pes N [--cross P]: the bank over N PEs (stm::dist, workloads/bank/dist_bank.hpp):
// N simulated PEs in this process (CPU backend, or one GPU), or one process per
// GPU when this build has NVSHMEM and tools/multi_gpu.sh started it.
// --impl native: the same table under per-account try-locks (the native
// baseline, workloads/bank/bank.hpp native_kernel); --impl all: both.
#include "bank.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "bench.hpp"
#include "cmp/registry.hpp"
#include "stm/launch.hpp"

namespace bench_bank {

stm::workloads::bank::outcome run_cpu(const stm::workloads::bank::config& c, const std::string& cm, const stm::manager_tuning& tune) {
  return stm::cm::dispatch(cm, tune, [&](auto m) {
    return stm::workloads::bank::run<stm::cpu_exec>(c, m, [](double f) { bench::progress("bank", f); });
  });
}

namespace {

stm::workloads::bank::config make_config(const bench::options& o) {
  stm::workloads::bank::config c;
  c.accounts = static_cast<std::uint32_t>(o.get_u64("accounts"));  // ranges: the declarations below
  c.threads = o.threads(o.backend == stm::backend::gpu ? 6720u : 64u);
  c.tpt = static_cast<std::uint32_t>(o.get_u64("tpt"));
  c.hash = o.hash;
  c.seconds = o.seconds;
  c.seed = o.seed;
  c.semantic = o.get_percent("semantic");
  c.read_only = o.get_percent("read-only");
  c.presort = o.get_bool("presort");
  c.drive = stm::workloads::bank::parse_driver(o.get("driver"));
  c.read_all = o.get_percent("read-all");
  c.audit_size = static_cast<std::uint32_t>(o.get_u64("audit-size"));  // at most 4096: its declaration
  c.opaque = o.get_bool("opaque");
  c.clock = o.get_bool("clock");
  const std::string spread = o.get("lock-spread");
  if (spread == "auto") {
    c.lock_spread = 0;
  } else {
    const std::uint64_t n = o.get_u64("lock-spread");
    if ((n & (n - 1)) != 0)
      throw stm::usage_error("--lock-spread must be auto or a power of two from 1 to 32, got " + spread);
    c.lock_spread = static_cast<std::uint32_t>(n);
  }
  c.policy.max_postpones = static_cast<std::uint32_t>(o.get_u64("max-postpones"));
  return c;
}

/// The bank's options that the partitioned bank (--pes) does not take: it
/// drains transfers only, under PR-STM's priority rule.
const char* const not_with_pes[] = {"semantic", "read-only", "read-all", "audit-size", "presort", "max-postpones",
                                    "driver", "opaque", "clock", "seconds", "cm-wait", "cm-backoff"};

stm::workloads::dist_bank::config make_dist_config(const bench::options& o) {
  stm::workloads::dist_bank::config c;
  c.npes = static_cast<std::uint32_t>(o.get_u64("pes"));
  c.cross = o.get_percent("cross");
  c.accounts = static_cast<std::uint32_t>(o.get_u64("accounts"));
  c.threads = o.threads(o.backend == stm::backend::gpu ? 6720u : 16u);
  c.tpt = static_cast<std::uint32_t>(o.get_u64("tpt"));
  c.hash = o.hash;
  c.seed = o.seed;
  const std::string spread = o.get("lock-spread");
  c.lock_spread = spread == "auto" ? stm::lock_table::auto_spread(c.accounts / c.npes / c.hash + 1)
                                   : static_cast<std::uint32_t>(o.get_u64("lock-spread"));
  return c;
}

void validate_dist(const bench::options& o) {
  for (const char* name : not_with_pes) o.refuse(name, "is not an option of the partitioned bank (--pes)");
  if (o.cm != "prstm") throw stm::usage_error("--pes runs PR-STM's priority rule only: --cm prstm, got '" + o.cm + "'");
  stm::workloads::dist_bank::check(make_dist_config(o));
}

/// The implementations a run measures, in order: tx (the STM under --cm),
/// native (the baseline), or both.
std::vector<std::string> impls_of(const bench::options& o) {
  const std::string i = o.impl.empty() ? "tx" : o.impl;  // the values: the declaration of --impl below
  if (i == "all") return {"tx", "native"};
  return {i};
}

void validate(const bench::options& o) {
  if (o.has("pes")) {
    o.refuse("impl", "is not an option of the partitioned bank (--pes)");
    return validate_dist(o);
  }
  if (o.has("cross")) throw stm::usage_error("--cross needs --pes (the share of transfers between PEs)");
  const auto impls = impls_of(o);
  if (impls.size() == 1 && impls[0] == "native")  // per-account locks: no STM, no table driver
    for (const char* name : {"cm", "cm-wait", "cm-backoff", "hash", "lock-spread", "driver", "opaque", "clock",
                             "max-postpones", "read-all", "audit-size"})
      o.refuse(name, "applies to the STM only (--impl tx or all)");
  auto c = make_config(o);
  c.native = std::find(impls.begin(), impls.end(), "native") != impls.end();
  stm::workloads::bank::check_on(c, o.backend);
  if (c.read_all > 0)  // a manager's own limit on the audits (gpustm's lock log)
    stm::cm::dispatch(o.cm, [&](auto m) {
      using CM = decltype(m);
      if constexpr (stm::cm::log_capacity<CM>::value != 0)
        if (c.audit_size > stm::cm::log_capacity<CM>::value)
          throw stm::usage_error("--audit-size is at most " +
                                 std::to_string(stm::cm::log_capacity<CM>::value) + " under --cm " +
                                 CM::name + " (its lock log)");
      return 0;
    });
  stm::cm::dispatch(o.cm, [](auto) { return 0; });  // unknown names fail here, before any work
}

// The buffers of stm::workloads::bank::run: balances, lock words (spread), the
// table (entry + state word), and per thread: the table counts, the drain
// times' running sums, the drain times and their sort keys (with the GPU
// sort's double buffer), the audit's partials. Nothing per thread or per entry
// is kept on the host.
bench::resources estimate(const bench::options& o) {
  if (o.has("pes")) {  // every PE's accounts and locks (one process holds them all when simulated)
    const std::uint64_t accounts = o.get_u64("accounts"), pes = o.get_u64("pes"), hash = o.hash;
    const std::uint64_t locks = pes * ((accounts / (pes ? pes : 1) + hash - 1) / hash + 1);
    bench::resources r;
    r.device_bytes = bench::bytes({{accounts, 4}, {locks, 32, 4}, {1 << 20}});
    r.lower = "--accounts";
    return r;
  }
  const auto c = make_config(o);
  const std::uint64_t locks = (std::uint64_t(c.accounts) + c.hash - 1) / c.hash;
  const std::uint64_t spread = c.lock_spread ? c.lock_spread : stm::lock_table::auto_spread(locks);
  const auto impls = impls_of(o);
  const bool native = std::find(impls.begin(), impls.end(), "native") != impls.end();
  bench::resources r;
  r.device_bytes = bench::bytes({{c.accounts, sizeof(int)},
                                 {stm::lock_table::footprint(locks, static_cast<std::uint32_t>(spread), c.table_clock())},
                                 {native ? c.accounts : 0u, stm::lock_table::auto_spread(c.accounts), 4},
                                 {c.threads, c.tpt, sizeof(stm::workloads::bank::bank_tx) + 4},
                                 {c.threads, 2 * 8 + 3 * 8 + sizeof(stm::workloads::bank::thread_times) + 3 * 8 + 5 * 8},
                                 {1 << 20}});
  r.host_bytes = 0;
  r.lower = "--accounts, --threads or --tpt";
  return r;
}

std::vector<bench::result> run_dist(const bench::options& o) {
  const auto c = make_dist_config(o);
  stm::workloads::dist_bank::outcome out;
  std::string transport = "sim";
#if STM_WITH_CUDA
  if (o.backend == stm::backend::gpu) out = run_dist_gpu(c, transport);
  else
#endif
    out = stm::workloads::dist_bank::run_sim<stm::cpu_exec>(c);
  bench::result r = bench::base_result(o, "prstm", c.threads);
  r.integer("pes", c.npes).num("cross", c.cross).str("pe_transport", transport);
  r.integer("threads_total", static_cast<std::int64_t>(c.npes) * c.threads);  // "threads" is per PE
  r.integer("accounts", c.accounts).integer("hash", c.hash).integer("tpt", c.tpt).integer("lock_spread", c.lock_spread);
  r.integer("transfers", static_cast<std::int64_t>(out.transfers));
  r.integer("cross_commits", static_cast<std::int64_t>(out.cross_commits));
  r.str("mode", "drain").counters(out.stats);
  const std::uint64_t aborts = out.stats.total_aborts();
  r.num("retries_per_commit", out.stats.commits ? double(aborts) / double(out.stats.commits) : 0.0);
  r.measured(double(out.stats.commits), out.seconds, out.verified, out.message);
  return {r};
}

bench::result run_one(const bench::options& o, const std::string& impl) {
  auto c = make_config(o);
  c.native = impl == "native";
  // The native baseline runs in the bank's own launch loop, which is
  // instantiated per manager: any one will do (prstm), it takes no part.
  const std::string cm = c.native ? "prstm" : o.cm;
  stm::workloads::bank::outcome out;
#if STM_WITH_CUDA
  if (o.backend == stm::backend::gpu) out = run_gpu(c, cm, o.tune);
  else
#endif
    out = run_cpu(c, cm, o.tune);
  bench::result r = bench::base_result(o, c.native ? "native" : o.cm, c.threads);
  // A row without impl is the STM's (as before the baseline). The native row
  // carries only what the baseline used: no lock coverage (a lock per
  // account), its own locks' spread, no manager tuning.
  if (c.native) r.str("impl", "native");
  r.integer("accounts", c.accounts).integer("tpt", c.tpt);
  if (c.native) r.integer("lock_spread", stm::lock_table::auto_spread(c.accounts));
  else r.integer("hash", c.hash).integer("lock_spread", out.lock_spread);
  r.num("semantic", c.semantic).num("read_only", c.read_only).boolean("presort", c.presort);
  r.num("read_all", c.read_all).integer("audit_size", c.read_all > 0 ? c.audit_size : 0).boolean("opaque", c.opaque)
      .boolean("clock", c.table_clock());
  r.integer("audits", static_cast<std::int64_t>(out.audits));
  r.num("attempts_per_audit", out.audits ? double(out.audit_attempts) / double(out.audits) : 0.0);
  r.integer("wrong_totals", static_cast<std::int64_t>(out.wrong_totals));
  r.integer("escalations", static_cast<std::int64_t>(out.stats.escalations));
  r.str("mode", c.seconds > 0 ? "timed" : "drain");
  r.str("driver", c.native ? "none" : stm::workloads::bank::driver_name(c.drive));
  if (!c.native) r.tuning(o.tune);
  r.counters(out.stats);
  r.table(out.table, out.stats, out.transactions, out.semantic_capable, out.semantic_retries, c.policy.max_postpones);
  r.integer("queries", static_cast<std::int64_t>(out.queries));
  const std::uint64_t sem = out.stats.aborts[static_cast<std::uint32_t>(stm::abort_cause::semantic)];
  r.num("retries_per_commit",
        out.stats.commits ? double(out.stats.total_aborts() - sem) / double(out.stats.commits) : 0.0);
  r.integer("launches", static_cast<std::int64_t>(out.launches));
  // Not part of "seconds": the kernel time of generating, resetting and
  // counting the tables between the timed launches (a share of the wall time).
  r.num("prepare_seconds", out.prepare_seconds);
  r.num("thread_time_p50", out.thread_seconds_p50).num("thread_time_max", out.thread_seconds_max);
  r.num("thread_time_mean", out.thread_seconds_mean);
  // Where the drain time went: the share in attempts, the share in pauses the
  // manager (or an idle pass) asked for, and the mean length of one attempt
  // (the table's drain measures them; the kernel forms do not).
  if (c.drive == stm::workloads::bank::driver::table && !c.native) {
    const double all = out.thread_seconds_total, attempts = double(out.stats.commits + out.stats.total_aborts());
    r.num("time_in_attempts", all > 0 ? out.attempt_seconds / all : 0.0);
    r.num("time_paused", all > 0 ? out.pause_seconds / all : 0.0);
    r.num("attempt_time_mean_us", attempts > 0 ? out.attempt_seconds / attempts * 1e6 : 0.0);
  }
  r.measured(double(out.stats.commits), out.seconds, out.verified,
             std::to_string(out.table.committed_after_conflict) + " transactions postponed then committed, " +
                 std::to_string(out.table.unresolved) + " unresolved; " + out.message);
  return r;
}

std::vector<bench::result> run(const bench::options& o) {
  if (o.has("pes")) return run_dist(o);
  std::vector<bench::result> rows;
  for (const auto& impl : impls_of(o)) rows.push_back(run_one(o, impl));
  return rows;
}

bench::registrar reg({"bank",
                      "PR-STM bank: deposits, withdrawals, transfers, queries over the global transaction table "
                      "(PR-STM paper, sections 3.3-4.3)",
                      {bench::integer("accounts", "2621440", 2, 0xFFFFFFFFull, "number of 4-byte accounts (10 MB by default)"),
                       bench::integer("tpt", "64", 1, 1000000,
                                      "transactions per thread (one table; timed mode: per launch); threads x tpt at most 2^32"),
                       bench::number("semantic", "0", 0, 100,
                                     "% of update transactions in deposit/withdrawal pairs whose withdrawal needs a deposit first"),
                       bench::number("read-only", "0", 0, 100, "% of the table that are balance queries (read-only)"),
                       bench::number("read-all", "0", 0, 100,
                                     "% of the table that are audits: read --audit-size accounts of one group spread over "
                                     "the table and check their total (needs --semantic 0 and --driver table)"),
                       bench::integer("audit-size", "1024", 2, 4096,
                                      "accounts an audit reads: divides --accounts; at most 4096 on the CPU, 1024 on the GPU"),
                       bench::toggle("presort", "sort each thread's block deposits first: no semantic conflict can occur"),
                       bench::integer("max-postpones", "4096", 1, stm::txstate::max_conflicts,
                                      "semantic conflicts before a transaction is reported unresolved"),
                       bench::integer("lock-spread", "auto", 1, 32,
                                      "lock words per lock slot, a power of two (32: every lock word in its own 128-byte "
                                      "line); auto: 32 up to 16,384 locks, else 1",
                                      {"auto"}),
                       bench::choice("driver", "table", {"table", "loop", "for"},
                                     "who runs the transactions: table (Algorithm 3's drain), loop (a per-thread loop of "
                                     "TX_BEGIN/TX_END, as a user's kernel), for (the loop form TX_FOR); loop and for give a "
                                     "semantic conflict up at once"),
                       bench::toggle("opaque", "opaque descriptors (tx_config's default) instead of commit-time validation; "
                                               "with --read-all every audit attempt sees one snapshot (the lock table "
                                               "keeps a commit clock)"),
                       bench::toggle("clock", "the lock table keeps its commit clock, as a lock_table does by default: "
                                              "an opaque read then re-checks its own lock word while no commit moved "
                                              "the clock, instead of every read behind a fence; each update commit "
                                              "increments it"),
                       bench::integer("pes", "1", 1, stm::dist::max_pes,
                                      "partitioned bank over this many PEs: accounts split by block, one lock table per "
                                      "PE, transfers of 1-10 only (simulated PEs in this process; one process per GPU "
                                      "under tools/multi_gpu.sh with NVSHMEM); takes --accounts, --tpt, --threads (per "
                                      "PE), --seed, --hash, --lock-spread, --cross"),
                       bench::number("cross", "0", 0, 100, "with --pes: % of transfers to an account of another PE"),
                       bench::choice("impl", "tx", {"tx", "native", "all"},
                                     "tx: the STM under --cm; native: the same table under per-account try-locks taken "
                                     "in address order (no STM; a withdrawal short of money gives up); all: both"),
                       bench::common_threads(stm::lock_word::max_threads), bench::common("seconds"),
                       bench::common("seed"), bench::common("hash"), bench::common("cm"), bench::common("cm-wait"),
                       bench::common("cm-backoff")},
                      validate,
                      run,
                      estimate});

}  // namespace
}  // namespace bench_bank
