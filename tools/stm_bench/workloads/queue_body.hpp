// SPDX-License-Identifier: Apache-2.0
// tools/stm_bench/workloads/queue_body.hpp - the queue benchmark, written once
// over an execution policy (queue.cpp: CPU backend; queue_gpu.cu: GPU backend).
//
// Two benchmarks of Scogland & Feng (ICPE 2015, section 7):
//   matched   every thread enqueues an item, then dequeues one, per_thread times
//   prodcons  thread t % 4 == 0 produces 3 * per_thread items, the three
//             threads after it consume per_thread items each
// Items are tagged (producer << 32) | sequence; every consumer records what it
// dequeued, and the run is verified afterwards: multiset conservation and
// per-producer FIFO order (containers/queue/detail/fifo_check.hpp). The
// throughput is enqueue+dequeue pairs per second of kernel time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench.hpp"
#include "cmp/registry.hpp"
#include "containers/queue/detail/fifo_check.hpp"
#include "containers/queue/queue.hpp"
#include "stm/buffer.hpp"
#include "stm/launch.hpp"

namespace bench::queue_bench {

struct plan {
  std::string impl;
  bool prodcons = false;
  std::uint32_t threads = 0;
  std::uint32_t per_thread = 0;  // pairs per thread (matched) or items per consumer (prodcons)
  std::uint64_t capacity = 0;
  std::string cm;
};

inline std::uint32_t producers(const plan& p) { return p.prodcons ? p.threads / 4 : p.threads; }
inline std::uint32_t consumers(const plan& p) { return p.prodcons ? p.threads - p.threads / 4 : p.threads; }
inline std::uint64_t pairs(const plan& p) { return std::uint64_t(consumers(p)) * p.per_thread; }

/// The per-thread loop for one queue type. Q is a ref with the blocking-style
/// contract of `op`: op(q, tid, item, is_enqueue, &out, &retries) -> ok.
template <class Exec, class Op>
double run_loop(const plan& p, Op op, std::uint64_t* rows, std::uint32_t* failures, std::uint64_t* retries,
                stm::progress prog = stm::progress::all_resident) {
  const std::uint32_t k = p.per_thread, nc = consumers(p);
  const bool pc = p.prodcons;
  // rows is column-major (item j of every consumer side by side), so that a
  // warp's records are one coalesced store; the host transposes it.
  return Exec::run(
      p.threads,
      [=] STM_HD(std::uint32_t tid) {
        std::uint32_t fails = 0;
        std::uint64_t again = 0;
        if (!pc) {
          for (std::uint32_t j = 0; j < k; ++j) {
            std::uint64_t got = 0;
            fails += !op.enqueue(tid, (std::uint64_t(tid) << 32) | j, again);
            fails += !op.dequeue(tid, got, again);
            rows[std::size_t(j) * nc + tid] = got;
          }
        } else if (tid % 4 == 0) {
          for (std::uint32_t j = 0; j < 3 * k; ++j) fails += !op.enqueue(tid, (std::uint64_t(tid / 4) << 32) | j, again);
        } else {
          const std::uint32_t c = tid - tid / 4 - 1;
          for (std::uint32_t j = 0; j < k; ++j) {
            std::uint64_t got = 0;
            fails += !op.dequeue(tid, got, again);
            rows[std::size_t(j) * nc + c] = got;
          }
        }
        if (fails) stm::atomic_ref<std::uint32_t>(*failures).fetch_add(fails, stm::memory_order_relaxed);
        if (again) stm::atomic_ref<std::uint64_t>(retries[tid % 1024]).fetch_add(again, stm::memory_order_relaxed);
      },
      prog);
}

// One adapter per implementation: enqueue/dequeue that succeed or fail for
// good, counting retries (busy, full, empty that only mean "not yet").
struct ticket_op {
  stm::queue::ticket_queue_ref<std::uint64_t> q;
  STM_HD bool enqueue(std::uint32_t tid, std::uint64_t v, std::uint64_t&) const { return q.enqueue(tid, v) == stm::op_status::ok; }
  STM_HD bool dequeue(std::uint32_t tid, std::uint64_t& v, std::uint64_t&) const { return q.dequeue(tid, v) == stm::op_status::ok; }
};
struct ticket_nb_op {
  stm::queue::ticket_queue_ref<std::uint64_t> q;
  STM_HD bool enqueue(std::uint32_t tid, std::uint64_t v, std::uint64_t& again) const {
    for (std::uint32_t ns = 32;; ns = ns < 1024 ? 2 * ns : ns) {
      const auto s = q.enqueue_nb(tid, v);
      if (s == stm::op_status::ok) return true;
      if (s == stm::op_status::closed) return false;
      ++again;
      stm::platform::backoff_ns(ns);
    }
  }
  STM_HD bool dequeue(std::uint32_t tid, std::uint64_t& v, std::uint64_t& again) const {
    for (std::uint32_t ns = 32;; ns = ns < 1024 ? 2 * ns : ns) {
      const auto s = q.dequeue_nb(tid, v);
      if (s == stm::op_status::ok) return true;
      if (s == stm::op_status::closed) return false;
      ++again;
      stm::platform::backoff_ns(ns);
    }
  }
};
/// ms and tx: full and empty are retried in prodcons; in matched runs they
/// are impossible for a linearizable queue (capacity >= threads, and every
/// dequeue follows its own enqueue), so there they count as failures.
struct ms_op {
  stm::queue::ms_queue_ref<std::uint64_t> q;
  bool strict;
  STM_HD bool enqueue(std::uint32_t tid, std::uint64_t v, std::uint64_t& again) const {
    for (std::uint32_t ns = 32;; ns = ns < 1024 ? 2 * ns : ns) {
      if (q.enqueue(tid, v) == stm::op_status::ok) return true;
      if (strict) return false;
      ++again;
      stm::platform::backoff_ns(ns);
    }
  }
  STM_HD bool dequeue(std::uint32_t tid, std::uint64_t& v, std::uint64_t& again) const {
    for (std::uint32_t ns = 32;; ns = ns < 1024 ? 2 * ns : ns) {
      if (q.dequeue(tid, v) == stm::op_status::ok) return true;
      if (strict) return false;
      ++again;
      stm::platform::backoff_ns(ns);
    }
  }
};
/// tx: the one-shot calls, which a warp's lanes that call together share one
/// transaction for (containers/queue/tx.hpp, combining): commits and aborts
/// count those transactions (on the GPU about one per warp and call, not one
/// per operation), and an empty or full group is a read-only commit.
template <class CM>
struct tx_op {
  stm::queue::tx_queue_ref<std::uint64_t, CM> q;
  bool strict;
  std::uint64_t* commits;  // [tid % 1024]
  std::uint64_t* aborts;   // [cause * 1024 + tid % 1024]
  STM_HD void count(std::uint32_t tid, const stm::tx_counters& c) const {
    stm::atomic_ref<std::uint64_t>(commits[tid % 1024]).fetch_add(c.commits, stm::memory_order_relaxed);
    for (std::uint32_t a = 0; a < stm::num_abort_causes; ++a)
      if (c.aborts[a])
        stm::atomic_ref<std::uint64_t>(aborts[a * 1024 + tid % 1024]).fetch_add(c.aborts[a], stm::memory_order_relaxed);
  }
  STM_HD bool enqueue(std::uint32_t tid, std::uint64_t v, std::uint64_t& again) const {
    for (std::uint32_t ns = 32;; ns = ns < 1024 ? 2 * ns : ns) {
      stm::tx_counters c;
      const auto s = q.enqueue(tid, v, &c);
      count(tid, c);
      if (s == stm::op_status::ok) return true;
      if (strict) return false;
      ++again;
      stm::platform::backoff_ns(ns);
    }
  }
  STM_HD bool dequeue(std::uint32_t tid, std::uint64_t& v, std::uint64_t& again) const {
    for (std::uint32_t ns = 32;; ns = ns < 1024 ? 2 * ns : ns) {
      stm::tx_counters c;
      const auto s = q.dequeue(tid, v, &c);
      count(tid, c);
      if (s == stm::op_status::ok) return true;
      if (strict) return false;
      ++again;
      stm::platform::backoff_ns(ns);
    }
  }
};

/// Column-major records (item j of consumer c at j * consumers + c) to rows.
inline std::vector<std::uint64_t> row_major(const std::vector<std::uint64_t>& cols, std::uint64_t consumers,
                                            std::uint64_t per_consumer) {
  std::vector<std::uint64_t> rows(cols.size());
  for (std::uint64_t j = 0; j < per_consumer; ++j)
    for (std::uint64_t c = 0; c < consumers; ++c) rows[c * per_consumer + j] = cols[j * consumers + c];
  return rows;
}

/// Run one implementation once and verify it.
template <class Exec>
result run_one(const options& o, const plan& p) {
  const std::uint64_t n_pairs = pairs(p);
  stm::buffer<std::uint64_t> rows(Exec::where, static_cast<std::size_t>(n_pairs));
  stm::buffer<std::uint32_t> failures(Exec::where, 1);
  stm::buffer<std::uint64_t> retries(Exec::where, 1024), commits(Exec::where, 1024),
      aborts(Exec::where, 1024 * stm::num_abort_causes);
  double seconds = 0;
  const bool strict = !p.prodcons && p.capacity >= p.threads;
  // Blocking calls and retries on busy/full/empty wait for other threads:
  // every thread must be resident. Strict ms/tx runs never retry (lock-free
  // calls, no waiting), so they may launch more threads than fit at once.
  const stm::progress prog = strict ? stm::progress::any : stm::progress::all_resident;
  if (p.impl == "ticket" || p.impl == "ticket-nb") {
    stm::queue::ticket_queue<std::uint64_t> q(Exec::where, p.capacity);
    seconds = p.impl == "ticket"
                  ? run_loop<Exec>(p, ticket_op{q.ref()}, rows.data(), failures.data(), retries.data())
                  : run_loop<Exec>(p, ticket_nb_op{q.ref()}, rows.data(), failures.data(), retries.data());
  } else if (p.impl == "ms") {
    stm::queue::ms_queue<std::uint64_t> q(Exec::where, p.capacity);
    seconds = run_loop<Exec>(p, ms_op{q.ref(), strict}, rows.data(), failures.data(), retries.data(), prog);
  } else {
    stm::require_priorities(p.threads);
    stm::queue::tx_queue<std::uint64_t> q(Exec::where, p.capacity);
    stm::cm::dispatch(p.cm, [&](auto cm) {
      using CM = decltype(cm);
      seconds = run_loop<Exec>(p, tx_op<CM>{q.template ref<CM>(), strict, commits.data(), aborts.data()}, rows.data(),
                               failures.data(), retries.data(), prog);
    });
  }
  result r = base_result(o, p.impl, p.threads);
  r.str("mode", p.prodcons ? "prodcons" : "matched");
  if (p.impl == "tx") r.str("tx_cm", p.cm);
  r.integer("capacity", static_cast<std::int64_t>(p.capacity));
  r.integer("producers", producers(p));
  r.integer("consumers", consumers(p));
  r.integer("ops", static_cast<std::int64_t>(n_pairs));
  r.str("unit", "enqueue+dequeue pairs");
  r.num("seconds", seconds);
  r.num("throughput", seconds > 0 ? double(n_pairs) / seconds : 0.0);
  r.num("op_throughput", seconds > 0 ? 2.0 * double(n_pairs) / seconds : 0.0);
  r.integer("retries", static_cast<std::int64_t>(Exec::template sum<std::uint64_t>(retries.data(), 1024)));
  if (p.impl == "tx") {
    const std::uint64_t n_commits = Exec::template sum<std::uint64_t>(commits.data(), 1024);
    std::uint64_t n_aborts = 0;
    std::vector<std::pair<std::string, double>> by_cause;
    for (std::uint32_t a = 0; a < stm::num_abort_causes; ++a) {
      const std::uint64_t v = Exec::template sum<std::uint64_t>(aborts.data() + a * 1024, 1024);
      n_aborts += v;
      by_cause.emplace_back(stm::to_string(static_cast<stm::abort_cause>(a)), double(v));
    }
    r.integer("commits", static_cast<std::int64_t>(n_commits));
    r.object("aborts", by_cause);
    r.num("abort_rate", n_commits + n_aborts ? double(n_aborts) / double(n_commits + n_aborts) : 0.0);
  }
  const std::uint32_t failed = failures.to_vector()[0];
  std::string why;
  if (failed)
    why = std::to_string(failed) + " calls failed for good (closed, or full/empty in a matched run, which a "
          "linearizable queue never reports there)";
  else
    why = stm::queue::detail::check_fifo_run(row_major(rows.to_vector(), consumers(p), p.per_thread), consumers(p),
                                      p.per_thread, producers(p), p.prodcons ? 3ull * p.per_thread : p.per_thread);
  r.verified = why.empty();
  r.verify_message = r.verified ? p.impl + ": " + std::to_string(n_pairs) +
                                      " items each dequeued exactly once, per-producer FIFO order held"
                                : p.impl + ": " + why;
  r.boolean("verified", r.verified);
  return r;
}

}  // namespace bench::queue_bench

namespace bench::queue_bench {

/// Run every planned implementation once, side by side.
template <class Exec>
std::vector<result> run_all(const options& o, const std::vector<plan>& plans) {
  std::vector<result> out;
  for (const auto& p : plans) {
    if (!o.quiet && plans.size() > 1) progress("queue " + p.impl, double(out.size()) / double(plans.size()));
    out.push_back(run_one<Exec>(o, p));
  }
  return out;
}

}  // namespace bench::queue_bench
