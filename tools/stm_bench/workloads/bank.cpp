// stm_bench --workload bank: the PR-STM bank over the global transaction table
// (seed paper, sections 3.3-3.4 and 4.1-4.3): deposits, withdrawals, transfers
// and balance queries; semantic conflicts postponed (prstm) or retried (a
// manager with semantic_retries, e.g. gpustm).
#include "bank.hpp"

#include "bench.hpp"
#include "cmp/registry.hpp"
#include "stm/launch.hpp"

namespace bench_bank {

workloads::bank::outcome run_cpu(const workloads::bank::config& c, const std::string& cm, const stm::cm::tuning& tune) {
  return stm::cm::dispatch(cm, tune, [&](auto m) {
    return workloads::bank::run<stm::cpu_exec>(c, m, [](double f) { bench::progress("bank", f); });
  });
}

namespace {

workloads::bank::config make_config(const bench::options& o) {
  workloads::bank::config c;
  const std::uint64_t accounts = o.get_u64("accounts");
  if (accounts > 0xFFFFFFFFull) throw stm::usage_error("--accounts must be below 2^32");
  c.accounts = static_cast<std::uint32_t>(accounts);
  c.threads = o.threads(o.backend == stm::backend::gpu ? 6720u : 64u);
  const std::uint64_t tpt = o.get_u64("tpt");
  if (tpt > 1000000) throw stm::usage_error("--tpt must be at most 1000000");
  c.tpt = static_cast<std::uint32_t>(tpt);
  c.hash = o.hash;
  c.seconds = o.seconds;
  c.seed = o.seed;
  c.semantic = o.get_percent("semantic");
  c.read_only = o.get_percent("read-only");
  c.presort = o.get_bool("presort");
  c.read_all = o.get_percent("read-all");
  const std::uint64_t audit_size = o.get_u64("audit-size");
  if (audit_size > 0xFFFFFFFFull) throw stm::usage_error("--audit-size must be below 2^32");
  c.audit_size = static_cast<std::uint32_t>(audit_size);
  c.opaque = o.get_bool("opaque");
  const std::string spread = o.get("lock-spread");
  if (spread == "auto") {
    c.lock_spread = 0;
  } else {
    const std::uint64_t n = o.get_u64("lock-spread");
    if (n < 1 || n > 32 || (n & (n - 1)) != 0)
      throw stm::usage_error("--lock-spread must be auto or a power of two from 1 to 32, got " + spread);
    c.lock_spread = static_cast<std::uint32_t>(n);
  }
  const std::uint64_t mp = o.get_u64("max-postpones");
  if (mp < 1 || mp > stm::txstate::max_conflicts)
    throw stm::usage_error("--max-postpones must be between 1 and " + std::to_string(stm::txstate::max_conflicts));
  c.policy.max_postpones = static_cast<std::uint32_t>(mp);
  return c;
}

void validate(const bench::options& o) {
  const auto c = make_config(o);
#if STM_WITH_CUDA
  if (o.backend == stm::backend::gpu) workloads::bank::check_on<stm::gpu_exec>(c);
  else
#endif
    workloads::bank::check_on<stm::cpu_exec>(c);
  if (c.read_all > 0)  // a manager's own limit on the audits (gpustm's lock log)
    stm::cm::dispatch(o.cm, [&](auto m) {
      using CM = decltype(m);
      if constexpr (workloads::bank::detail::log_capacity<CM>::value != 0)
        if (c.audit_size > workloads::bank::detail::log_capacity<CM>::value)
          throw stm::usage_error("--audit-size is at most " +
                                 std::to_string(workloads::bank::detail::log_capacity<CM>::value) + " under --cm " +
                                 CM::name + " (its lock log)");
      return 0;
    });
  stm::cm::dispatch(o.cm, [](auto) { return 0; });  // unknown names fail here, before any work
}

std::vector<bench::result> run(const bench::options& o) {
  const auto c = make_config(o);
  workloads::bank::outcome out;
#if STM_WITH_CUDA
  if (o.backend == stm::backend::gpu) out = run_gpu(c, o.cm, o.tune);
  else
#endif
    out = run_cpu(c, o.cm, o.tune);
  bench::result r = bench::base_result(o, o.cm, c.threads);
  r.integer("accounts", c.accounts).integer("hash", c.hash).integer("tpt", c.tpt).integer("lock_spread", out.lock_spread);
  r.num("semantic", c.semantic).num("read_only", c.read_only).boolean("presort", c.presort);
  r.num("read_all", c.read_all).integer("audit_size", c.read_all > 0 ? c.audit_size : 0).boolean("opaque", c.opaque);
  r.integer("audits", static_cast<std::int64_t>(out.audits));
  r.num("attempts_per_audit", out.audits ? double(out.audit_attempts) / double(out.audits) : 0.0);
  r.integer("wrong_totals", static_cast<std::int64_t>(out.wrong_totals));
  r.integer("escalations", static_cast<std::int64_t>(out.stats.escalations));
  r.str("mode", c.seconds > 0 ? "timed" : "drain");
  r.integer("cm_wait", o.tune.wait_polls).integer("cm_backoff", o.tune.backoff_max_ns);
  r.integer("semantic_retries", out.semantic_retries).integer("max_postpones", c.policy.max_postpones);
  r.integer("transactions", static_cast<std::int64_t>(out.transactions));
  r.integer("semantic_capable", static_cast<std::int64_t>(out.semantic_capable));
  r.integer("queries", static_cast<std::int64_t>(out.queries));
  r.integer("commits", static_cast<std::int64_t>(out.stats.commits));
  r.integer("postponed_then_committed", static_cast<std::int64_t>(out.table.committed_after_conflict));
  r.integer("unresolved", static_cast<std::int64_t>(out.table.unresolved));
  const std::uint64_t sem = out.stats.aborts[static_cast<std::uint32_t>(stm::abort_cause::semantic)];
  r.integer("semantic_conflicts", static_cast<std::int64_t>(sem));
  r.integer("concurrent_aborts", static_cast<std::int64_t>(out.stats.total_aborts() - sem));
  r.aborts(out.stats.aborts);
  r.num("abort_rate", out.stats.abort_rate());
  r.integer("steals", static_cast<std::int64_t>(out.stats.steals));
  r.num("retries_per_commit",
        out.stats.commits ? double(out.stats.total_aborts() - sem) / double(out.stats.commits) : 0.0);
  r.integer("launches", static_cast<std::int64_t>(out.launches));
  r.num("thread_time_p50", out.thread_seconds_p50).num("thread_time_max", out.thread_seconds_max);
  r.num("thread_time_mean", out.thread_seconds_mean);
  // Where the drain time went: the share in attempts, the share in pauses the
  // manager (or an idle pass) asked for, and the mean length of one attempt.
  const double all = out.thread_seconds_total, attempts = double(out.stats.commits + out.stats.total_aborts());
  r.num("time_in_attempts", all > 0 ? out.attempt_seconds / all : 0.0);
  r.num("time_paused", all > 0 ? out.pause_seconds / all : 0.0);
  r.num("attempt_time_mean_us", attempts > 0 ? out.attempt_seconds / attempts * 1e6 : 0.0);
  r.measured(double(out.stats.commits), out.seconds, out.verified,
             std::to_string(out.table.committed_after_conflict) + " transactions postponed then committed, " +
                 std::to_string(out.table.unresolved) + " unresolved; " + out.message);
  return {r};
}

bench::registrar reg({"bank",
                      "PR-STM bank: deposits, withdrawals, transfers, queries over the global transaction table "
                      "(seed paper, sections 3.3-4.3)",
                      {{"accounts", "2621440", "number of 4-byte accounts (10 MB by default)"},
                       {"tpt", "64", "transactions per thread (one table; timed mode: per launch)"},
                       {"semantic", "0", "% of update transactions in deposit/withdrawal pairs whose withdrawal needs a deposit first"},
                       {"read-only", "0", "% of the table that are balance queries (read-only)"},
                       {"read-all", "0", "% of the table that are audits: read --audit-size accounts of one group spread over the table and check their total (needs --semantic 0)"},
                       {"audit-size", "1024", "accounts an audit reads: divides --accounts; at most 4096 on the CPU, 1024 on the GPU"},
                       {"opaque", "false", "opaque audits (every attempt sees one snapshot; the lock table keeps a commit clock)", true},
                       {"presort", "false", "sort each thread's block deposits first: no semantic conflict can occur", true},
                       {"max-postpones", "4096", "semantic conflicts before a transaction is reported unresolved"},
                       {"lock-spread", "auto", "lock words per lock slot (1-32; 32: every lock word in its own 128-byte line); auto: 32 up to 16,384 locks, else 1"}},
                      validate,
                      run});

}  // namespace
}  // namespace bench_bank
