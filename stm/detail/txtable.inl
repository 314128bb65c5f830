// SPDX-License-Identifier: Apache-2.0
// stm/detail/txtable.inl - the bodies of stm/txtable.hpp's members: the
// driver entry points over detail::drain_blocks (txtable_drain.hpp), the
// presort and the audit. Included at the end of stm/txtable.hpp only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "stm/detail/txtable_drain.hpp"
#if defined(__CUDACC__)
#include "stm/detail/txtable_sort.cuh"
#endif

namespace stm {

template <class Entry>
template <class Tx, class Run>
STM_HD txtable_drain_times txtable_ref<Entry>::drain(Tx& tx, Run&& run, const txtable_policy& p) const {
  static_assert(std::is_void_v<decltype(run(std::declval<const Entry&>()))>,
                "drain(): the run functor returns nothing; the outcome is read from the transaction");
  txtable_drain_times times{};
  drain_blocks(tx, run, p, tx.thread_id(), txtable_blocks{},
               [&times](std::uint32_t, const txtable_drain_times& d) { times = d; });
  return times;
}

template <class Entry>
template <class Tx, class Run, class OnBlock>
STM_HD void txtable_ref<Entry>::drain_blocks(Tx& tx, Run&& run, const txtable_policy& p, std::uint32_t w,
                                             const txtable_blocks& blocks, OnBlock&& on_block) const {
  static_assert(std::is_void_v<decltype(run(std::declval<const Entry&>()))>,
                "drain_blocks(): the run functor returns nothing; the outcome is read from the transaction");
  struct handed {
    std::uint32_t first;
    const txtable_blocks* b;
    std::remove_reference_t<OnBlock>* done;
    bool given = false;
    STM_HD std::uint32_t next() {
      if (!given) {
        given = true;
        return first;
      }
      if (b->counter == nullptr) return ~0u;  // no counter: one block per worker
      return b->workers + atomic_ref<std::uint32_t>(*b->counter).fetch_add(1u, memory_order_relaxed);
    }
    STM_HD void finished(std::uint32_t t, const txtable_drain_times& d) { (*done)(t, d); }
  } h{w, &blocks, &on_block};
  detail::drain_blocks(entries, state, threads, per_thread, tx, run, p, h);
}

template <class Entry>
template <class Exec>
void txtable<Entry>::presort() {
  static_assert(Exec::where == backend::cpu || Exec::where == backend::gpu);
  if constexpr (Exec::where == backend::gpu) {
#if defined(__CUDACC__)
    detail::presort_blocks_gpu(entries_.data(), threads_, per_thread_);
#endif
  } else {
    Entry* e = entries_.data();
    std::vector<Entry> blk(per_thread_);
    for (std::uint32_t t = 0; t < threads_; ++t) {
      for (std::uint32_t j = 0; j < per_thread_; ++j) blk[j] = e[index(t, j)];
      std::stable_sort(blk.begin(), blk.end(),
                       [](const Entry& x, const Entry& y) { return x.priority() > y.priority(); });
      for (std::uint32_t j = 0; j < per_thread_; ++j) e[index(t, j)] = blk[j];
    }
  }
}

template <class Entry>
template <class Exec, class Value>
txtable_audit txtable<Entry>::audit(Value value) const {
  const std::uint32_t n = threads_;
  detail::audit_kernel<Entry, Value> k{ref_entries(), state_.data(), audit_.data(), n, per_thread_, value};
  Exec::run(n, k);
  const long long* a = audit_.data();
  txtable_audit out;
  out.committed = static_cast<std::uint64_t>(Exec::template sum<long long, long long>(a + 0ull * n, n));
  out.unresolved = static_cast<std::uint64_t>(Exec::template sum<long long, long long>(a + 1ull * n, n));
  out.committed_after_conflict = static_cast<std::uint64_t>(Exec::template sum<long long, long long>(a + 2ull * n, n));
  out.conflicts = static_cast<std::uint64_t>(Exec::template sum<long long, long long>(a + 3ull * n, n));
  out.value = Exec::template sum<long long, long long>(a + 4ull * n, n);
  out.pending = static_cast<std::uint64_t>(size()) - out.committed - out.unresolved;
  return out;
}

}  // namespace stm
