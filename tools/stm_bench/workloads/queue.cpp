// SPDX-License-Identifier: Apache-2.0
// stm_bench --workload queue: the queues of containers/queue side by side.
//
//   stm_bench --workload queue --impl ticket|ticket-nb|ms|tx|all --mode matched|prodcons --threads N|full
//
// impl      ticket     Scogland-Feng queue, blocking interface
//           ticket-nb  the same queue, non-waiting interface (retry on busy/full/empty)
//           ms         Michael-Scott lock-free queue (the paper's baseline)
//           tx         the STM-backed queue, under --cm
// mode      matched    every thread: enqueue, then dequeue, per-thread times
//           prodcons   one producer for three consumers
// Every run is verified: each item dequeued exactly once, per-producer FIFO.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "bench.hpp"
#include "workloads/queue_body.hpp"
#if STM_WITH_CUDA
#include "workloads/queue_gpu.hpp"
#endif

namespace bench::queue_bench {
namespace {

const std::vector<std::string> all_impls = {"ticket", "ticket-nb", "ms", "tx"};

std::vector<std::string> impls_of(const options& o) {
  const std::string impl = o.impl.empty() ? "ticket" : o.impl;
  if (impl == "all") return all_impls;
  for (const auto& i : all_impls)
    if (i == impl) return {impl};
  throw stm::usage_error("unknown queue impl '" + impl + "' (known: ticket, ticket-nb, ms, tx, all)");
}

std::uint32_t threads_of(const options& o) {
  return o.threads(o.backend == stm::backend::gpu ? o.full_occupancy : 32u);
}

std::vector<plan> make_plans(const options& o) {
  const std::string mode = o.get("mode");
  if (mode != "matched" && mode != "prodcons")
    throw stm::usage_error("unknown queue mode '" + mode + "' (known: matched, prodcons)");
  plan base;
  base.prodcons = mode == "prodcons";
  base.threads = threads_of(o);
  base.cm = o.cm;
  if (base.prodcons && (base.threads < 4 || base.threads % 4 != 0))
    throw stm::usage_error("--mode prodcons needs a multiple of 4 threads (one producer for three consumers), got " +
                           std::to_string(base.threads));
  if (o.backend == stm::backend::cpu && base.threads > stm::cpu_max_resident)
    throw stm::usage_error("the queue workload needs every thread resident: the CPU backend runs at most " +
                           std::to_string(stm::cpu_max_resident) + " threads, got " + std::to_string(base.threads));
  if (o.backend == stm::backend::gpu && base.threads > o.full_occupancy)
    throw stm::usage_error("the queue workload needs every thread resident: the GPU keeps " +
                           std::to_string(o.full_occupancy) + " resident, got " + std::to_string(base.threads));
  const std::uint32_t consumers_n = base.prodcons ? base.threads - base.threads / 4 : base.threads;

  std::uint64_t capacity = 0;  // 0: auto (ranges: the declarations below)
  if (o.get("capacity") != "auto") capacity = o.get_u64("capacity");
  std::uint32_t per_thread = 0;
  if (o.get("per-thread") != "auto") per_thread = static_cast<std::uint32_t>(o.get_u64("per-thread"));
  if (!o.ops_arg.empty()) {
    o.refuse("per-thread", "and --ops both set the run's length: give one");
    const std::uint64_t ops = o.ops(0);
    if (ops % consumers_n != 0 || ops / consumers_n > 0xFFFFFFFFull)
      throw stm::usage_error("--ops " + std::to_string(ops) + " must be a multiple of the " + std::to_string(consumers_n) +
                             " dequeuing threads, at most 2^32-1 each");
    per_thread = static_cast<std::uint32_t>(ops / consumers_n);
  }
  const auto impls = impls_of(o);
  if (std::find(impls.begin(), impls.end(), "tx") == impls.end())
    o.refuse("cm", "applies to the tx queue only (--impl tx or all)");

  std::vector<plan> plans;
  for (const auto& impl : impls) {
    plan p = base;
    p.impl = impl;
    const bool ticket = impl == "ticket" || impl == "ticket-nb";
    const bool fast = impl == "ticket";  // no hot CAS word
    if (capacity) {
      p.capacity = capacity;
    } else {  // auto: room for every thread's item, a power of two
      p.capacity = 1024;
      while (p.capacity < base.threads) p.capacity *= 2;
    }
    if (ticket && (p.capacity < 2 || p.capacity > (1ull << 30) || (p.capacity & (p.capacity - 1)) != 0))
      throw stm::usage_error("--capacity of the ticket queue must be a power of two between 2 and 2^30, got " +
                             std::to_string(p.capacity));
    if (!ticket && p.capacity > (1ull << 30))
      throw stm::usage_error("--capacity must be at most 2^30, got " + std::to_string(p.capacity));
    if (impl == "tx") {
      stm::require_priorities(p.threads);
      stm::cm::dispatch(o.cm, [](auto) {});  // unknown --cm: refused before any work
    }
    // Defaults: a queue whose every call must win a CAS on one hot word
    // (ticket-nb, ms, tx) completes at most about a million operations per
    // second at full GPU occupancy, so those run one pair per thread.
    p.per_thread = per_thread ? per_thread
                              : o.backend == stm::backend::gpu ? (fast ? 64u : 1u) : (fast ? 2000u : 200u);
    const std::uint64_t bytes = pairs(p) * 8;
    if (bytes > (std::uint64_t(1) << 36))
      throw stm::usage_error("the run would record " + std::to_string(bytes) + " bytes of dequeued items: lower --ops");
    plans.push_back(p);
  }
  return plans;
}

void validate(const options& o) { make_plans(o); }

// The dequeued items (recorded on the backend, then copied and reordered on
// the host) and the queue's slots or nodes, per implementation (they run one
// after the other).
resources estimate(const options& o) {
  resources r;
  for (const auto& p : make_plans(o)) {
    const std::uint64_t items = pairs(p);
    r.device_bytes = std::max(r.device_bytes, bytes({{items, 8}, {p.capacity, 32}, {p.threads, 64}, {1 << 20}}));
    r.host_bytes = std::max(r.host_bytes, bytes({{items, 3 * 8}}));
  }
  r.lower = "--ops, --per-thread or --capacity";
  return r;
}

std::vector<result> run(const options& o) {
  const auto plans = make_plans(o);
  if (o.backend == stm::backend::gpu) {
#if STM_WITH_CUDA
    return run_gpu(o, plans);
#else
    throw stm::usage_error("this build has no GPU backend");
#endif
  }
  return run_all<stm::cpu_exec>(o, plans);
}

registrar reg({"queue",
               "concurrent FIFO queues: Scogland-Feng ticket queue (blocking / non-waiting), Michael-Scott, STM",
               {choice("mode", "matched", {"matched", "prodcons"},
                       "matched (enqueue then dequeue per thread) | prodcons (1 producer : 3 consumers)"),
                integer("capacity", "auto", 1, 1ull << 30,
                        "queue capacity (ticket: a power of two from 2); auto: the next power of two >= threads, at least 1024",
                        {"auto"}),
                integer("per-thread", "auto", 1, 0xFFFFFFFFull,
                        "pairs per thread (matched) or items per consumer (prodcons); auto: 64 ticket / 1 ticket-nb,ms,tx "
                        "on the GPU, 2000 / 200 on the CPU",
                        {"auto"}),
                common_threads(0xFFFFFFFFull),
                common_ops(1ull << 36, "operations: a multiple of the dequeuing threads (instead of --per-thread)"),
                choice("impl", "ticket", {"ticket", "ticket-nb", "ms", "tx", "all"}, "queue implementation"),
                common("cm")},
               validate,
               run,
               estimate});

}  // namespace
}  // namespace bench::queue_bench
