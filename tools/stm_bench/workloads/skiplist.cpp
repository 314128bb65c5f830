// stm_bench --workload skiplist: the PR-STM paper's skiplist (sections
// 4.4-4.5) on the transactional skiplist (--impl tx, any --cm) and the native
// lock-free one (--impl native), side by side with --impl all
// (workloads/skiplist/skiplist.hpp).
#include "workloads/skiplist/skiplist.hpp"

#include <cstdio>

#include "bench.hpp"
#include "cmp/registry.hpp"
#include "stm/launch.hpp"

namespace bench_skiplist {

namespace wl = stm::workloads::skiplist;

#if STM_WITH_CUDA
wl::outcome run_gpu(const wl::config& c, wl::impl which, const std::string& cm, const stm::cm::tuning& tune);
#endif

namespace {

std::vector<wl::impl> impls(const bench::options& o) {
  const std::string i = o.impl.empty() ? "all" : o.impl;
  if (i == "all") return {wl::impl::tx, wl::impl::native};
  if (i == "tx") return {wl::impl::tx};
  if (i == "native") return {wl::impl::native};
  throw stm::usage_error("unknown --impl '" + i + "' for workload skiplist (known: tx, native, all)");
}

/// Every option of the workload, mapped to its configuration in one place.
/// --mix I/R/C sets the insert/remove/search shares; --read-only P, when
/// given, makes P% searches and splits the rest between inserts and removes
/// in the mix's proportion (the paper's "20% read-only": --read-only 20).
wl::config make_config(const bench::options& o) {
  wl::config c;
  const std::uint64_t keys = o.get_u64("keys");
  if (keys == 0 || keys > (1u << 28)) throw stm::usage_error("--keys must be between 1 and 2^28, got " + o.get("keys"));
  c.keys = static_cast<std::uint32_t>(keys);
  const std::uint64_t range = o.get("range") == "auto" ? 2 * keys : o.get_u64("range");
  if (range > (1u << 28)) throw stm::usage_error("--range must be at most 2^28, got " + std::to_string(range));
  c.range = static_cast<std::uint32_t>(range);
  const std::uint64_t levels = o.get_u64("levels");
  if (levels > stm::skiplist::max_levels) throw stm::usage_error("--levels must be between 1 and 16, got " + o.get("levels"));
  c.levels = static_cast<std::uint32_t>(levels);
  c.ops = o.ops(1000000);
  const std::string mix = o.get("mix");
  unsigned a = 0, b = 0, d = 0;
  char tail = 0;
  if (std::sscanf(mix.c_str(), "%u/%u/%u%c", &a, &b, &d, &tail) != 3 || a + b + d != 100)
    throw stm::usage_error("--mix must be I/R/C percentages summing to 100 (e.g. 50/50/0), got '" + mix + "'");
  c.insert = a;
  c.remove = b;
  if (!o.get("read-only").empty()) {
    const double p = o.get_percent("read-only");
    const double updates = a + b;
    if (updates == 0 && p < 100) throw stm::usage_error("--read-only below 100 needs a mix with inserts or removes");
    c.insert = updates > 0 ? (100 - p) * a / updates : 0;
    c.remove = updates > 0 ? (100 - p) * b / updates : 0;
  }
  c.threads = o.threads(o.backend == stm::backend::gpu ? 1536u : 64u);
  c.hash = o.hash;
  c.seconds = o.seconds;
  c.seed = o.seed;
  c.pool = o.get("pool") == "auto" ? 0 : o.get_u64("pool");
  if (o.get("pool") != "auto" && c.pool == 0) throw stm::usage_error("--pool must be auto or at least 1");
  wl::check(c);
  return c;
}

void validate(const bench::options& o) {
  impls(o);
  make_config(o);
  stm::cm::dispatch(o.cm, [](auto) { return 0; });  // unknown names fail here, before any work
}

std::vector<bench::result> run(const bench::options& o) {
  const wl::config c = make_config(o);
  std::vector<bench::result> rs;
  for (const wl::impl which : impls(o)) {
    wl::outcome out;
#if STM_WITH_CUDA
    if (o.backend == stm::backend::gpu) out = run_gpu(c, which, o.cm, o.tune);
    else
#endif
      out = stm::cm::dispatch(o.cm, o.tune, [&](auto m) {
        return wl::run<stm::cpu_exec>(c, which, m, [](double f) { bench::progress("skiplist", f); });
      });
    const bool tx = which == wl::impl::tx;
    // "cm" names the manager of a tx row and is "native" on a native row
    // (base_result keys this workload by cm); "impl" names the variant.
    bench::result r = bench::base_result(o, tx ? o.cm : "native", c.threads);
    r.str("impl", wl::impl_name(which));
    r.str("mode", c.seconds > 0 ? "timed" : "ops");
    r.integer("keys", c.keys).integer("range", c.range).integer("levels", c.levels).str("mix", o.get("mix"));
    r.num("insert", c.insert).num("remove", c.remove).num("read_only", 100 - c.insert - c.remove);
    r.integer("hash", c.hash).integer("pool", static_cast<std::int64_t>(out.pool));
    r.integer("ops", static_cast<std::int64_t>(out.ops)).integer("launches", static_cast<std::int64_t>(out.launches));
    r.integer("inserted", static_cast<std::int64_t>(out.inserted)).integer("removed", static_cast<std::int64_t>(out.removed));
    r.integer("found", static_cast<std::int64_t>(out.found)).integer("final_size", static_cast<std::int64_t>(out.final_size));
    r.integer("capacity_aborts", static_cast<std::int64_t>(out.capacity));
    r.integer("pool_exhausted", static_cast<std::int64_t>(out.exhausted));
    if (tx) {
      r.integer("commits", static_cast<std::int64_t>(out.stats.commits));
      r.aborts(out.stats.aborts);
      r.num("abort_rate", out.stats.abort_rate());
      r.integer("steals", static_cast<std::int64_t>(out.stats.steals));
      r.integer("cm_wait", o.tune.wait_polls).integer("cm_backoff", o.tune.backoff_max_ns);
    }
    r.measured(double(out.ops), out.seconds, out.verified, std::string(wl::impl_name(which)) + ": " + out.message);
    rs.push_back(r);
  }
  return rs;
}

bench::registrar reg({"skiplist",
                      "ordered set as a skiplist (PR-STM paper, sections 4.4-4.5): transactional (tx, any --cm) and "
                      "native lock-free (native)",
                      {{"keys", "5000", "initial entries, inserted before timing"},
                       {"range", "auto", "keys are drawn from 0..range-1; auto: 2 x keys"},
                       {"levels", "5", "most levels of the skiplist (1-16)"},
                       {"mix", "50/50/0", "insert/remove/search percentages"},
                       {"read-only", "", "when given: this % searches, the rest split as the mix's inserts and removes"},
                       {"pool", "auto", "nodes of the pool (the paper: 10000000); auto: range + ops"}},
                      validate,
                      run});

}  // namespace
}  // namespace bench_skiplist
