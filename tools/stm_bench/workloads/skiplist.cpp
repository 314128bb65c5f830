// SPDX-License-Identifier: Apache-2.0
// stm_bench --workload skiplist: the PR-STM paper's skiplist (sections
// 4.4-4.5) on the transactional skiplist (--impl tx, any --cm) and the native
// lock-free one (--impl native), side by side with --impl all
// (workloads/skiplist/skiplist.hpp). --hash is the keys per key lock of the
// transactional one (1: each key its own). --priority aging runs prstm with the aging priority (priority.hpp).
// --map runs the mix as put / erase / get on the skiplists as maps.
#include "workloads/skiplist/skiplist.hpp"

#include <algorithm>

#include "one_shot.hpp"
#include "priority.hpp"
#include "stm/launch.hpp"

namespace bench_skiplist {

namespace wl = stm::workloads::skiplist;

#if STM_WITH_CUDA
wl::outcome run_gpu(const wl::config& c, wl::impl which, const std::string& cm, const stm::manager_tuning& tune,
                    const std::string& priority);
#endif

namespace {

std::vector<wl::impl> impls(const bench::options& o) {
  const std::string i = o.impl.empty() ? "all" : o.impl;
  if (i == "all") return {wl::impl::tx, wl::impl::native};
  if (i == "tx") return {wl::impl::tx};
  if (i == "native") return {wl::impl::native};
  throw stm::usage_error("unknown --impl '" + i + "' for workload skiplist (known: tx, native, all)");
}

/// Every option of the workload, mapped to its configuration in one place
/// (single-option ranges: the declarations below; wl::check the rest).
/// --mix I/R/C sets the insert/remove/search shares; --read-only P, when
/// given, makes P% searches and splits the rest between inserts and removes
/// in the mix's proportion (the paper's "20% read-only": --read-only 20).
wl::config make_config(const bench::options& o) {
  wl::config c;
  c.keys = static_cast<std::uint32_t>(o.get_u64("keys"));
  if (o.get("range") == "auto" && c.keys > (1u << 27))
    throw stm::usage_error("--range auto is 2 x --keys, at most 2^28: lower --keys (at most 2^27) or give --range");
  c.range = o.get("range") == "auto" ? 2 * c.keys : static_cast<std::uint32_t>(o.get_u64("range"));
  c.levels = static_cast<std::uint32_t>(o.get_u64("levels"));
  c.ops = o.ops(1000000);
  const auto mix = bench::percent_mix("mix", o.get("mix"));
  c.insert = mix[0];
  c.remove = mix[1];
  if (!o.get("read-only").empty()) {
    const double p = o.get_percent("read-only");
    const double updates = mix[0] + mix[1];
    if (updates == 0 && p < 100) throw stm::usage_error("--read-only below 100 needs a --mix with inserts or removes");
    c.insert = updates > 0 ? (100 - p) * mix[0] / updates : 0;
    c.remove = updates > 0 ? (100 - p) * mix[1] / updates : 0;
  }
  c.threads = o.threads(o.backend == stm::backend::gpu ? 1536u : 64u);
  c.hash = o.hash;
  c.seconds = o.seconds;
  c.seed = o.seed;
  c.pool = o.get("pool") == "auto" ? 0 : o.get_u64("pool");
  c.map = o.get("map") == "true";
  c.one_shot = bench::one_shot_from(o);
  const auto im = impls(o);
  if (std::none_of(im.begin(), im.end(), wl::transactional))
    for (const char* name : {"cm", "cm-wait", "cm-backoff", "hash", "priority", "one-shot"})
      o.refuse(name, "applies to the transactional skiplist only (--impl tx or all)");
  bench::check_priority(o);
  wl::check(c);
  return c;
}

void validate(const bench::options& o) {
  make_config(o);
  stm::cm::dispatch(o.cm, [](auto) { return 0; });  // unknown names fail here, before any work
}

// wl::run's memory. Backend: the towers (a word per node and level, the free
// ring, the retired list, the heights, the values), tx's key locks (max(64,
// 2 x pool) / hash of them, at most 2^22, plus the guard: a word, a value word
// and a count each) and its lock table over the words (32 lock words per lock
// up to 16,384 locks, else one), a launch's operations, statuses and (--map)
// values, the initial keys. Host: the initial keys drawn from the range,
// presence, per-key counts and (--map) values of the verification, a
// launch's operations and statuses, the copies a structure check takes
// (words, heights, reach marks, the keys found) once the pool is filled, and
// the linear build of the initial entries (words, heights, values).
bench::resources estimate(const bench::options& o) {
  const wl::config c = make_config(o);
  const std::uint64_t pool = c.pool ? c.pool : std::uint64_t(c.range) + c.ops;
  const std::uint64_t nodes = pool + 2;  // with head and tail
  const auto im = impls(o);
  const bool tx = std::any_of(im.begin(), im.end(), wl::transactional);
  const std::uint64_t locks =
      tx ? std::min<std::uint64_t>((std::max<std::uint64_t>(64, 2 * pool) + c.hash - 1) / c.hash, 1u << 22) + 1 : 0;
  const std::uint64_t lock_words = 2 * locks * stm::lock_table::auto_spread(2 * locks);
  const std::uint64_t per_value = c.map ? 4 : 0, per_key_map = c.map ? 4 + 4 + 4 + 8 : 0;  // --map's buffers
  bench::resources r;
  r.device_bytes = bench::bytes({{nodes, c.levels, 8}, {nodes, 4 + 4 + 4 + 4}, {locks, 8 + 8 + 8}, {lock_words, 4},
                                 {c.ops, 4 + 4 + 1 + per_value}, {c.keys, 4}, {1 << 20}});
  r.host_bytes = bench::bytes({{c.range, 4 + 1 + 8 + 1 + 3 * 4 + per_key_map},
                               {c.ops, 4 + 4 + 1 + per_value}, {nodes, c.levels, 8},
                               {nodes, 4 + 4 + 1 + 1 + 3 * 4 + 4 + 4}, {lock_words + 2 * locks, 4}, {1 << 20}});
  r.lower = "--ops, --range, --keys or --pool";
  return r;
}

std::vector<bench::result> run(const bench::options& o) {
  const wl::config c = make_config(o);
  std::vector<bench::result> rs;
  for (const wl::impl which : impls(o)) {
    wl::outcome out;
#if STM_WITH_CUDA
    if (o.backend == stm::backend::gpu) out = run_gpu(c, which, o.cm, o.tune, o.get("priority"));
    else
#endif
      out = bench::with_manager(o.cm, o.get("priority"), o.tune, stm::backend::cpu, c.threads, [&](auto m) {
        return wl::run<stm::cpu_exec>(c, which, m, [](double f) { bench::progress("skiplist", f); });
      });
    const bool tx = wl::transactional(which);
    // "cm" names the manager of a tx row and is "native" on a native row
    // (base_result keys this workload by cm); "impl" names the variant.
    bench::result r = bench::base_result(o, tx ? o.cm : "native", c.threads);
    r.str("impl", wl::impl_name(which));
    r.str("priority", bench::priority_field(o, tx));
    r.str("mode", c.seconds > 0 ? "timed" : "ops");
    r.integer("keys", c.keys).integer("range", c.range).integer("levels", c.levels).str("mix", o.get("mix"));
    r.num("insert", c.insert).num("remove", c.remove).num("read_only", 100 - c.insert - c.remove);
    r.integer("hash", c.hash).integer("pool", static_cast<std::int64_t>(out.pool));
    r.str("map", c.map ? "true" : "false");
    r.integer("ops", static_cast<std::int64_t>(out.ops)).integer("launches", static_cast<std::int64_t>(out.launches));
    r.integer("inserted", static_cast<std::int64_t>(out.inserted)).integer("removed", static_cast<std::int64_t>(out.removed));
    r.integer("found", static_cast<std::int64_t>(out.found)).integer("final_size", static_cast<std::int64_t>(out.final_size));
    r.integer("capacity_aborts", static_cast<std::int64_t>(out.capacity));
    r.integer("pool_exhausted", static_cast<std::int64_t>(out.exhausted));
    if (tx) {
      r.str("one_shot", stm::to_string(c.one_shot));
      r.counters(out.stats).tuning(o.tune);
      r.integer("escalations", static_cast<std::int64_t>(out.stats.escalations));
    }
    r.measured(double(out.ops), out.seconds, out.verified, std::string(wl::impl_name(which)) + ": " + out.message);
    rs.push_back(r);
  }
  return rs;
}

bench::registrar reg({"skiplist",
                      "ordered set as a skiplist (PR-STM paper, sections 4.4-4.5): transactional (tx, any --cm) and "
                      "native lock-free (native)",
                      {bench::integer("keys", "5000", 1, 1u << 28, "initial entries, inserted before timing"),
                       bench::integer("range", "auto", 1, 1u << 28,
                                      "keys are drawn from 0..range-1, at least --keys; auto: 2 x keys", {"auto"}),
                       bench::integer("levels", "5", 1, stm::skiplist::max_levels, "most levels of the skiplist"),
                       bench::text("mix", "50/50/0", "insert/remove/search: three whole percentages summing to 100"),
                       bench::number("read-only", "", 0, 100,
                                     "when given: this % searches, the rest split as the mix's inserts and removes"),
                       bench::integer("pool", "auto", 1, stm::list::node::max_index - 2,
                                      "nodes of the pool (the paper: 10000000), at least --keys; auto: range + ops",
                                      {"auto"}),
                       bench::common_threads(stm::lock_word::max_threads),
                       bench::common_ops(1ull << 31, "operations per launch (auto pool: range + ops at most 2^30-3)"),
                       bench::choice("impl", "all", {"tx", "native", "all"},
                                     "tx (the transactional skiplist, boosted over the lock-free one), native "
                                     "(lock-free) or all (both)"),
                       bench::toggle("map", "the skiplist as a map: put (insert or assign a value), erase and get "
                                            "in the mix's shares, values checked"),
                       bench::common("cm"), bench::common("cm-wait"), bench::common("cm-backoff"),
                       bench::common("hash"), bench::priority_option(), bench::common("seconds"),
                       bench::common("seed"),
                       bench::one_shot_option()},
                      validate,
                      run,
                      estimate});

}  // namespace
}  // namespace bench_skiplist
