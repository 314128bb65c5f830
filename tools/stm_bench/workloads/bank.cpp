// stm_bench --workload bank: PR-STM bank transfers (seed paper, section 4.1).
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
  return c;
}

void validate(const bench::options& o) {
  workloads::bank::check(make_config(o));
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
  r.integer("accounts", c.accounts).integer("hash", c.hash).integer("tpt", c.tpt);
  r.integer("cm_wait", o.tune.wait_polls).integer("cm_backoff", o.tune.backoff_max_ns);
  r.integer("commits", static_cast<std::int64_t>(out.stats.commits));
  std::vector<std::pair<std::string, double>> aborts;
  for (std::uint32_t i = 0; i < stm::num_abort_causes; ++i)
    aborts.emplace_back(stm::to_string(static_cast<stm::abort_cause>(i)), static_cast<double>(out.stats.aborts[i]));
  r.object("aborts", aborts);
  r.num("abort_rate", out.stats.abort_rate());
  r.integer("steals", static_cast<std::int64_t>(out.stats.steals));
  r.num("seconds", out.seconds);
  r.num("throughput", out.seconds > 0 ? double(out.stats.commits) / out.seconds : 0.0);
  r.boolean("verified", out.verified);
  r.verified = out.verified;
  r.verify_message = out.message;
  return {r};
}

bench::registrar reg({"bank",
                      "PR-STM bank transfers between random accounts (seed paper, section 4.1)",
                      {{"accounts", "2621440", "number of 4-byte accounts (10 MB by default)"},
                       {"tpt", "64", "transactions per thread per launch"}},
                      validate,
                      run});

}  // namespace
}  // namespace bench_bank
