// SPDX-License-Identifier: Apache-2.0
// containers/stack/sharded.hpp - the fast stack: warp elimination, warp
// batching and many small locked array shards instead of one hot word.
//
//   stm::stack::sharded<int> s(stm::backend::gpu, 1 << 22);   // 4M cells
//   auto r = s.ref();
//   ... in a kernel: r.exec(tid, kind, v)   (or push / pop)
//
// How it works. The lanes of a warp that call exec() together pair their pushes
// with their pops (no memory traffic). The lowest lane then takes the surplus,
// all pushes or all pops, to the warp's home shard (a hash of tid / 32): it
// locks the shard's word (count and lock bit in one 32-bit word, so one CAS
// both locks and reads the count), writes or reads up to 32 cells of the
// shard's array, and unlocks with a release store of the new count. If the
// home shard cannot serve the whole batch (full for pushes, empty for pops),
// the warp probes the other shards 32 at a time (one load per lane) and the
// leader serves the rest from shards that looked usable.
//
// Guarantees
//  - Every pushed value is popped at most once and never lost (conservation).
//  - NOT linearizable, LIFO is relaxed exactly as follows: each shard is a
//    linearizable LIFO stack (its operations are serialized by its lock), and
//    a warp-eliminated pair is a push immediately followed by its pop. Values
//    on different shards come out in no particular order: a pop takes from its
//    home shard first, then from the first non-empty shard it finds.
//  - pop returns empty only when it found every shard empty, each at the
//    moment it looked (not one global instant: a push to a shard already
//    probed can be missed). push returns full only when every shard looked
//    full. With several warps, a single shard holding values may therefore be
//    reported empty only during a concurrent race; a quiescent stack is exact.
//  - Progress: blocking, deadlock-free. A shard lock is held for a bounded
//    critical section by a running lane that waits for nothing while holding
//    it; waiters spin with back-off. Any launch size is safe (progress::any):
//    a lock is never held across a call.
//  - Values: any trivially copyable 4- or 8-byte T; nothing reserved.
//  - Capacity: rounded up to a multiple of the shard count (capacity() tells).
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "containers/stack/common.hpp"
#include "containers/stack/detail/backoff.hpp"
#include "containers/stack/detail/warp.hpp"
#include "stm/buffer.hpp"
#include "stm/error.hpp"

namespace stm::stack {

namespace detail {
/// One shard's word on its own 128-byte line: count << 1 | locked.
struct shard_word {
  alignas(128) std::uint32_t word;
};
STM_HD inline std::uint32_t shard_count(std::uint32_t w) { return w >> 1; }
}  // namespace detail

template <class T>
struct sharded_ref {
  static_assert(is_stack_value<T>, "stack values are trivially copyable 4- or 8-byte types");
  using word = detail::word_t<T>;
  detail::shard_word* shards = nullptr;
  word* cells = nullptr;            // shard s owns cells[s * shard_capacity, (s+1) * shard_capacity)
  std::uint32_t num_shards = 0;
  std::uint32_t shard_capacity = 0;
  backoff_config backoff{};

  STM_HD op_status push(std::uint32_t tid, T value) const { return exec(tid, op_kind::push, value); }
  STM_HD op_status pop(std::uint32_t tid, T& out) const { return exec(tid, op_kind::pop, out); }

  /// Bulk push by one thread: values[0..n) (n <= 32), home shard first, then
  /// the other shards in order. Returns how many were pushed (fewer: full).
  STM_HD std::uint32_t push_bulk(std::uint32_t tid, const T* values, std::uint32_t n) const {
    word vals[32];
    if (n > 32) n = 32;
    for (std::uint32_t i = 0; i < n; ++i) vals[i] = detail::bits_of(values[i]);
    return serve_everywhere(tid, true, n, vals);
  }

  /// Bulk pop by one thread: up to n (<= 32) values, home shard first (out[0]
  /// its top), then the other shards in order. Returns how many were popped.
  STM_HD std::uint32_t pop_bulk(std::uint32_t tid, T* out, std::uint32_t n) const {
    word vals[32];
    if (n > 32) n = 32;
    const std::uint32_t got = serve_everywhere(tid, false, n, vals);
    for (std::uint32_t i = 0; i < got; ++i) out[i] = detail::value_of<T>(vals[i]);
    return got;
  }

  /// Warp-cooperative push or pop. For a push `value` is the input; for a
  /// successful pop it receives the value.
  STM_HD op_status exec(std::uint32_t tid, op_kind kind, T& value) const {
    const bool is_push = kind == op_kind::push;
    const std::uint32_t mask = platform::active_mask();
    word bits = is_push ? detail::bits_of(value) : word(0);
    const detail::warp_plan plan = detail::warp_eliminate(mask, is_push, bits);
    const bool leader = plan.lane == plan.leader;
    word vals[32];  // leader only: the batch, entries [0, plan.rest)
#if !defined(__CUDA_ARCH__)
    // Some host compilers cannot see that only the leader reads vals, and only
    // entries it wrote, and warn (-Wmaybe-uninitialized). Zeroing is cheap on
    // the CPU backend; the device path stays without 32 stores per operation.
    for (word& v : vals) v = 0;
#endif
    std::uint32_t done = 0;  // leader: batch positions served so far
    if (plan.rest > 0) {
      if (plan.rest_push)
        for (std::uint32_t j = 0; j < plan.rest; ++j) {
          const word v = platform::shfl(mask, bits, detail::batch_lane(plan, j));
          if (leader) vals[j] = v;
        }
      // The leader's home shard for the whole warp (lanes' ids need not share tid / 32).
      const std::uint32_t home = platform::shfl(mask, home_shard(tid), plan.leader);
      detail::backoff bo(backoff, tid);
      if (leader) done = serve(home, plan.rest_push, plan.rest, 0, vals, bo);
      std::uint32_t served = platform::shfl(mask, done, plan.leader);
      // Probe the other shards, one per lane, 32 at a time.
      const std::uint32_t lanes = platform::popc(mask);
      const std::uint32_t my_rank = detail::rank_in(mask, plan.lane);
      for (std::uint32_t base = 0; served < plan.rest && base + 1 < num_shards; base += lanes) {
        const std::uint32_t k = base + my_rank;
        bool usable = false;
        if (k + 1 < num_shards) {
          const std::uint32_t c =
              detail::shard_count(atomic_ref<std::uint32_t>(shards[(home + 1 + k) % num_shards].word).load(memory_order_relaxed));
          usable = plan.rest_push ? c < shard_capacity : c > 0;
        }
        std::uint32_t cand = platform::ballot(mask, usable);
        if (leader)
          while (cand && done < plan.rest) {
            const std::uint32_t l = platform::lowest_bit(cand);
            cand &= cand - 1;
            const std::uint32_t s = (home + 1 + base + detail::rank_in(mask, l)) % num_shards;
            done = serve(s, plan.rest_push, plan.rest, done, vals, bo);
          }
        served = platform::shfl(mask, done, plan.leader);
      }
      done = served;
      if (!plan.rest_push)
        for (std::uint32_t j = 0; j < done; ++j) {
          const word v = platform::shfl(mask, leader ? vals[j] : word(0), plan.leader);
          if (!plan.eliminated && detail::batch_rank(plan, false) == j) bits = v;
        }
    }
    if (!plan.eliminated && detail::batch_rank(plan, is_push) >= done)
      return is_push ? op_status::full : op_status::empty;
    if (!is_push) value = detail::value_of<T>(bits);
    return op_status::ok;
  }

 private:
  STM_HD std::uint32_t home_shard(std::uint32_t tid) const {
    const std::uint32_t warp = tid / platform::warp_size();
    return static_cast<std::uint32_t>((std::uint64_t(warp * 2654435761u) * num_shards) >> 32);
  }

  STM_HD std::uint32_t serve_everywhere(std::uint32_t tid, bool push, std::uint32_t k, word* vals) const {
    detail::backoff bo(backoff, tid);
    const std::uint32_t home = home_shard(tid);
    std::uint32_t done = 0;
    for (std::uint32_t t = 0; t < num_shards && done < k; ++t) done = serve((home + t) % num_shards, push, k, done, vals, bo);
    return done;
  }

  /// Under shard s's lock, push vals[done..k) (as far as it has room) or pop
  /// into vals[done..k) (as far as it has values). Returns the new done.
  STM_HD std::uint32_t serve(std::uint32_t s, bool push, std::uint32_t k, std::uint32_t done, word* vals,
                             detail::backoff& bo) const {
    atomic_ref<std::uint32_t> w(shards[s].word);
    std::uint32_t cur = w.load(memory_order_relaxed);
    for (;;) {
      const std::uint32_t c = detail::shard_count(cur);
      if (push ? c == shard_capacity : c == 0) return done;  // nothing to do here, do not lock
      if ((cur & 1u) == 0 &&
          // acquire: the previous holder's cell accesses happen before ours; pairs with the unlock's release
          w.compare_exchange_weak(cur, cur | 1u, memory_order_acquire, memory_order_relaxed))
        break;
      bo.wait();
      cur = w.load(memory_order_relaxed);
    }
    const std::uint32_t c = detail::shard_count(cur);
    word* cell = cells + std::uint64_t(s) * shard_capacity;
    std::uint32_t m;
    if (push) {
      m = shard_capacity - c < k - done ? shard_capacity - c : k - done;
      for (std::uint32_t i = 0; i < m; ++i) atomic_ref<word>(cell[c + i]).store(vals[done + i], memory_order_relaxed);
    } else {
      m = c < k - done ? c : k - done;
      for (std::uint32_t i = 0; i < m; ++i) vals[done + i] = atomic_ref<word>(cell[c - 1 - i]).load(memory_order_relaxed);
    }
    const std::uint32_t nc = push ? c + m : c - m;
    w.store(nc << 1, memory_order_release);  // unlock: our cell accesses before the next holder's; pairs with the lock's acquire
    return done + m;
  }
};
static_assert(std::is_trivially_copyable_v<sharded_ref<int>>);

template <class T>
class sharded {
 public:
  static constexpr std::uint32_t default_shards = 1024;

  /// capacity >= 1 values (rounded up to a multiple of the shard count);
  /// shards >= 1 (at most capacity). usage_error otherwise.
  sharded(backend where, std::uint64_t capacity, std::uint32_t shards = default_shards, backoff_config bo = {}) {
    if (capacity == 0) throw usage_error("a stack needs a capacity of at least 1");
    if (shards == 0) throw usage_error("the sharded stack needs at least one shard");
    if (shards > capacity) shards = static_cast<std::uint32_t>(capacity);
    const std::uint64_t per = (capacity + shards - 1) / shards;
    if (per >= (1u << 30)) throw usage_error("sharded stack: at most 2^30 cells per shard, got " + std::to_string(per));
    shards_ = buffer<detail::shard_word>(where, shards);
    cells_ = buffer<detail::word_t<T>>(where, per * shards);
    ref_.shards = shards_.data();
    ref_.cells = cells_.data();
    ref_.num_shards = shards;
    ref_.shard_capacity = static_cast<std::uint32_t>(per);
    ref_.backoff = bo;
  }

  sharded_ref<T> ref() const { return ref_; }
  std::uint64_t capacity() const { return std::uint64_t(ref_.num_shards) * ref_.shard_capacity; }
  std::uint32_t shards() const { return ref_.num_shards; }

  /// Values on the stack, shard by shard, each shard top first (quiescent only).
  std::vector<T> contents() const {
    const auto w = shards_.to_vector();
    const auto c = cells_.to_vector();
    std::vector<T> out;
    for (std::uint32_t s = 0; s < ref_.num_shards; ++s) {
      if (w[s].word & 1u) throw std::logic_error("sharded stack: a shard is still locked");
      for (std::uint32_t i = detail::shard_count(w[s].word); i-- > 0;)
        out.push_back(detail::value_of<T>(c[std::uint64_t(s) * ref_.shard_capacity + i]));
    }
    return out;
  }

 private:
  buffer<detail::shard_word> shards_;
  buffer<detail::word_t<T>> cells_;
  sharded_ref<T> ref_{};
};

}  // namespace stm::stack
