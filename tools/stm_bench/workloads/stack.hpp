// SPDX-License-Identifier: Apache-2.0
// stm_bench's stack workload: the run, written once over an execution policy
// (stack.cpp instantiates it for the CPU backend, stack_gpu.cu for the GPU).
//
// One run: `prefill` pushes (one per thread, not timed), then `ops` operations
// by `threads` logical threads (operation i by thread i % threads, so that the
// lanes of a warp stay converged and meet in warp elimination), each a push
// with probability push_ratio % (value: a unique id) or a pop. Timed with CUDA
// events on the GPU. The tx implementation runs with at most
// stm::lock_word::max_threads logical threads (distinct PR-STM priorities);
// its result's "threads" says how many it used. Verified: every value pushed (prefill and measured pushes
// that returned ok) is, exactly once, either popped by a measured pop or still
// on the stack afterwards; no pop returns a value nobody pushed; no push fails
// below capacity.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cmp/registry.hpp"
#include "containers/stack/stack.hpp"
#include "stm/buffer.hpp"
#include "stm/launch.hpp"
#include "stm/stats.hpp"

namespace bench_stack {

struct config {
  std::string impl;
  std::string cm = "prstm";
  std::uint64_t ops = 0;
  std::uint32_t threads = 0;
  std::uint32_t push_ratio = 50;  // percent
  std::uint64_t prefill = 0;
  std::uint64_t capacity = 0;
  std::uint32_t shards = stm::stack::sharded<int>::default_shards;
  stm::stack::treiber_config treiber{};  // treiber, treiber-single
  std::uint64_t seed = 1;
};

struct outcome {
  double seconds = 0;
  std::uint64_t pushes_ok = 0, pushes_full = 0, pops_ok = 0, pops_empty = 0, remaining = 0;
  stm::tx_stats tx;  // tx impl only
  std::uint64_t eliminated = 0;  // treiber impls: values eliminated grid-wide
  bool verified = false;
  std::string message;
};

/// Logical threads of the (untimed) prefill launch.
inline constexpr std::uint64_t prefill_threads = 131072;

/// --impl all runs these, side by side.
inline const char* const impl_names[] = {"treiber", "scan", "sharded", "tx"};
/// Also accepted: treiber-single, the treiber stack without warp batching.
inline const char* const known_impls = "treiber, treiber-single, scan, sharded, tx, all";

STM_HD inline bool is_push_op(std::uint64_t i, std::uint64_t seed, std::uint32_t ratio) {
  std::uint64_t z = i + seed * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return z % 100u < ratio;
}

/// treiber-single: the treiber stack's per-thread operation (no warp batching).
template <class T>
struct treiber_single_ref {
  stm::stack::treiber_ref<T> r;
  STM_HD stm::op_status exec(std::uint32_t tid, stm::stack::op_kind k, T& v) const {
    return r.exec_single(tid, k, v);
  }
};

/// r.exec with or without the transaction counters (tx impl: IsTx).
template <bool IsTx>
struct call_exec {
  template <class Ref>
  STM_HD static stm::op_status run(const Ref& r, std::uint32_t tid, stm::stack::op_kind k, std::uint32_t& v,
                                             stm::tx_counters*) {
    return r.exec(tid, k, v);
  }
};
template <>
struct call_exec<true> {
  template <class Ref>
  STM_HD static stm::op_status run(const Ref& r, std::uint32_t tid, stm::stack::op_kind k, std::uint32_t& v,
                                             stm::tx_counters* acc) {
    return r.exec(tid, k, v, acc);
  }
};

/// Prefill, run the measured phase and verify, with stack owner `s` and its
/// handle r. IsTx: r.exec takes a tx_counters accumulator (added to stats).
template <class Exec, bool IsTx, class Owner, class Ref>
outcome run_with(const config& c, const Owner& s, const Ref r, stm::stats_ref stats) {
  using stm::stack::op_kind;
  using stack_status = stm::op_status;
  const std::uint64_t ops = c.ops;
  const std::uint32_t threads = c.threads, ratio = c.push_ratio;
  const std::uint64_t prefill = c.prefill, seed = c.seed;
  stm::buffer<std::uint32_t> status(Exec::where, ops), value(Exec::where, ops), pre_fail(Exec::where, 1);
  std::uint32_t* pst = status.data();
  std::uint32_t* pv = value.data();
  std::uint32_t* pf = pre_fail.data();
  // Prefill: values 1..prefill, one push per logical thread (not timed).
  const std::uint32_t pre_threads = static_cast<std::uint32_t>(prefill < prefill_threads ? prefill : prefill_threads);
  if (prefill)
    Exec::run(pre_threads, [=] STM_HD(std::uint32_t tid) {
      for (std::uint64_t i = tid; i < prefill; i += pre_threads) {
        std::uint32_t v = static_cast<std::uint32_t>(i + 1);
        stm::tx_counters ignored;
        const stack_status st = call_exec<IsTx>::run(r, tid, op_kind::push, v, &ignored);
        if (st != stm::op_status::ok) stm::atomic_ref<std::uint32_t>(*pf).fetch_add(1, stm::memory_order_relaxed);
      }
    });
  outcome out;
  out.seconds = Exec::run(threads, [=] STM_HD(std::uint32_t tid) {
    stm::tx_counters acc;
    for (std::uint64_t i = tid; i < ops; i += threads) {
      const bool push = is_push_op(i, seed, ratio);
      std::uint32_t v = push ? static_cast<std::uint32_t>(prefill + i + 1) : 0u;
      const stack_status st = call_exec<IsTx>::run(r, tid, push ? op_kind::push : op_kind::pop, v, &acc);
      pst[i] = static_cast<std::uint32_t>(st) | (push ? 0x100u : 0u);
      pv[i] = v;
    }
    if (IsTx) stats.add(acc);
  });
  // Verification on the host: a balance per value id.
  const auto st = status.to_vector();
  const auto vals = value.to_vector();
  const std::uint64_t universe = prefill + ops + 1;
  std::vector<std::int8_t> bal(universe, 0);  // +1 pushed, -1 for each pop or remaining copy
  std::string bad;
  const std::uint32_t pre_failed = pre_fail.to_vector()[0];
  if (pre_failed) bad = std::to_string(pre_failed) + " prefill pushes failed (capacity too small?)";
  for (std::uint64_t v = 1; v <= prefill; ++v) bal[v] = 1;
  const std::uint64_t cap_fit = c.capacity >= prefill + ops;  // every push fits: a full push is an error
  // Two passes: every push's +1 before any pop's -1 (operations overlap in time).
  for (std::uint64_t i = 0; i < ops; ++i)
    if ((st[i] & 0x100u) && (st[i] & 0xFFu) == 0) bal[prefill + i + 1] = 1;
  for (std::uint64_t i = 0; i < ops && bad.empty(); ++i) {
    const std::uint32_t code = st[i] & 0xFFu;
    if (st[i] & 0x100u) {
      if (code == 0) {
        ++out.pushes_ok;
      } else if (code == 2 && !cap_fit) {
        ++out.pushes_full;
      } else {
        bad = "push " + std::to_string(i) + " returned status " + std::to_string(code);
      }
    } else if (code == 0) {
      ++out.pops_ok;
      if (vals[i] == 0 || vals[i] >= universe || --bal[vals[i]] < 0)
        bad = "pop " + std::to_string(i) + " returned value " + std::to_string(vals[i]) + ", which was not on the stack";
    } else if (code == 1) {
      ++out.pops_empty;
    } else {
      bad = "pop " + std::to_string(i) + " returned status " + std::to_string(code);
    }
  }
  if (bad.empty()) {
    const auto rest = s.contents();
    out.remaining = rest.size();
    for (auto v : rest)
      if (v == 0 || v >= universe || --bal[v] < 0) {
        bad = "value " + std::to_string(v) + " remains on the stack but was popped or never pushed";
        break;
      }
  }
  if (bad.empty())
    for (std::uint64_t v = 1; v < universe; ++v)
      if (bal[v] != 0) {
        bad = "value " + std::to_string(v) + " was pushed but is neither popped nor on the stack (lost)";
        break;
      }
  out.verified = bad.empty();
  out.message = out.verified ? "conservation: " + std::to_string(prefill + out.pushes_ok) + " values pushed = " +
                                   std::to_string(out.pops_ok) + " popped + " + std::to_string(out.remaining) +
                                   " remaining, each exactly once"
                             : bad;
  return out;
}

/// Run one implementation (impl_names) on Exec.
template <class Exec>
outcome run_impl(const config& c) {
  using T = std::uint32_t;
  stm::stats_block stats(Exec::where);
  if (c.impl == "treiber" || c.impl == "treiber-single") {
    stm::stack::treiber<T> s(Exec::where, c.capacity, c.treiber);
    outcome o = c.impl == "treiber" ? run_with<Exec, false>(c, s, s.ref(), stats.ref())
                                    : run_with<Exec, false>(c, s, treiber_single_ref<T>{s.ref()}, stats.ref());
    o.eliminated = s.eliminated();
    return o;
  }
  if (c.impl == "scan") {
    stm::stack::scan<T> s(Exec::where, c.capacity);
    return run_with<Exec, false>(c, s, s.ref(), stats.ref());
  }
  if (c.impl == "sharded") {
    stm::stack::sharded<T> s(Exec::where, c.capacity, c.shards);
    return run_with<Exec, false>(c, s, s.ref(), stats.ref());
  }
  if (c.impl == "tx") {
    return stm::cm::dispatch(c.cm, [&](auto m) {
      stm::stack::tx_stack<T> s(Exec::where, c.capacity);
      outcome o = run_with<Exec, true>(c, s, s.template ref<decltype(m)>(), stats.ref());
      o.tx = stats.read();
      return o;
    });
  }
  throw stm::usage_error("unknown stack implementation '" + c.impl + "' (known: " + known_impls + ")");
}

outcome run_cpu(const config& c);
#if STM_WITH_CUDA
outcome run_gpu(const config& c);
#endif

}  // namespace bench_stack
