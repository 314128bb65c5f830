// SPDX-License-Identifier: Apache-2.0
// containers/stack/treiber.hpp - the lock-free linked-list stack of Treiber
// (IBM RJ 5118, 1986) as Azad, Sehgal and Patel put it on a GPU ("Lock-Free
// Linked-List Stack using CAS for GPU": a node pool, 64-bit tagged index,
// tagged free list),
// with jittered exponential back-off, warp elimination + warp batching, and
// grid-wide elimination of whole batches.
//
//   stm::stack::treiber<int> s(stm::backend::gpu, 1 << 20);   // pool of 2^20 nodes
//   auto r = s.ref();                                         // pass by value
//   ... in a kernel: stm::op_status st = r.push(tid, 42);
//                    int v; if (r.pop(tid, v) == op_status::ok) ...
//
// Guarantees
//  - Linearizable LIFO stack. Lock-free: some call always completes. Lanes of
//    a warp wait for their own warp's leader; the leader's CAS loops are
//    lock-free, and its only other wait is a bounded one (an elimination
//    offer, at most treiber_config::offer_ns, then withdrawn by its owner).
//  - Values: any trivially copyable 4- or 8-byte T; no value is reserved.
//  - Capacity: the node pool. A push fails with op_status::full only when
//    the pool's never-used part is exhausted and the free list is empty (never
//    corruption); pop on an empty stack returns op_status::empty.
//  - ABA: every CAS on a head (stack or free list) increments its 32-bit tag.
//
// How it works. exec() first pairs the warp's pushes with its pops (warp
// elimination, detail/warp.hpp); the lowest lane then sends the surplus, all
// pushes or all pops, as one batch (on the CPU a warp is one lane, so a batch
// is one operation; push_bulk/pop_bulk send bigger ones from one thread):
//  - push batch of k: takes k nodes, never-used ones first (one fetch-and-add
//    on the pool counter), the free list only once the pool's fresh part is
//    exhausted (detail/tagged_list.hpp walks the free list), links them into a
//    chain and CASes it onto the top.
//  - pop batch of k: takes up to k nodes off the top in one CAS, then recycles
//    the popped chain onto the free list with one more.
// A batch whose CAS on the top fails tries grid-wide elimination before it
// backs off (detail/batch_exchanger.hpp): a push batch offers its values in a
// slot of its SM's group for up to offer_ns; pop batches of that SM that lost
// their CAS take values off the top of the offer. The pusher withdraws the
// rest, returns the nodes of the taken values to the free list in one CAS, and
// retries the top with the rest; a pop batch retries for what it still lacks.
// Linearization: a batch's ops that reach the stack take effect, as
// consecutive ops, at its CAS; an eliminated pair (push x, then pop x) at the
// pop's CAS on the slot, while both calls are in progress; a pop that returns
// empty at its read of an empty top.
//
// New over their GPU stack: back-off, warp elimination and batching, fresh
// nodes before the free list (a push batch walks no list while the pool has
// never-used nodes), and grid-wide elimination of batches (treiber_config:
// slots_per_sm, offer_ns; slots_per_sm = 0 turns it off).
//
// Differences from std::stack: fixed capacity, no top()/size() during
// concurrent use (contents() is for a quiescent stack), pop returns a status.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "containers/stack/common.hpp"
#include "containers/stack/detail/backoff.hpp"
#include "containers/stack/detail/batch_exchanger.hpp"
#include "containers/stack/detail/tagged_list.hpp"
#include "containers/stack/detail/warp.hpp"
#include "stm/backend.hpp"
#include "stm/buffer.hpp"
#include "stm/error.hpp"

namespace stm::stack {

struct treiber_config {
  backoff_config backoff{};
  /// Grid-wide elimination slots per SM (the warps of an SM meet in its
  /// slots; the CPU counts as one SM). 0 turns grid-wide elimination off.
  std::uint32_t slots_per_sm = 8;
  /// How long a push batch's offer waits for pop batches, in nanoseconds.
  std::uint32_t offer_ns = 1024;
};

namespace detail {
/// Hot words on separate 128-byte lines.
struct treiber_header {
  alignas(128) std::uint64_t top;       // tagged head of the stack
  alignas(128) std::uint64_t free_top;  // tagged head of the free list
  alignas(128) std::uint32_t fresh;     // next never-used node of the pool
};
}  // namespace detail

/// Trivially copyable handle of a treiber stack, for kernels and threads.
template <class T>
struct treiber_ref {
  static_assert(is_stack_value<T>, "stack values are trivially copyable 4- or 8-byte types");
  detail::treiber_header* header = nullptr;
  detail::pool_node* nodes = nullptr;
  detail::batch_slot* slots = nullptr;  // slot_groups x config.slots_per_sm
  std::uint32_t capacity = 0;
  std::uint32_t slot_groups = 1;
  treiber_config config{};

  STM_HD op_status push(std::uint32_t tid, T value) const { return exec(tid, op_kind::push, value); }
  STM_HD op_status pop(std::uint32_t tid, T& out) const { return exec(tid, op_kind::pop, out); }

  /// Bulk push by one thread: values[0..n) (n <= 32) as n pushes that overlap
  /// in time, like the lanes of a warp. Uncontended they take effect with one
  /// CAS on the top (values[n-1] on top); after a lost CAS, pops may take the
  /// topmost ones through elimination and the rest go on with a later CAS.
  /// Returns how many were pushed: fewer than n only when the pool is
  /// exhausted (values[0..returned) were pushed, the others were not).
  STM_HD std::uint32_t push_bulk(std::uint32_t tid, const T* values, std::uint32_t n) const {
    std::uint32_t idx[32];
    std::uint64_t vals[32];
    if (n > 32) n = 32;
    for (std::uint32_t i = 0; i < n; ++i) vals[i] = detail::bits_of(values[i]);
    return n ? push_batch(tid, n, idx, vals) : 0u;
  }

  /// Bulk pop by one thread: up to n (<= 32) pops that overlap in time.
  /// Uncontended one CAS on the top, out[0] the top. Returns how many were
  /// popped (fewer: the stack ran empty).
  STM_HD std::uint32_t pop_bulk(std::uint32_t tid, T* out, std::uint32_t n) const {
    std::uint32_t idx[32];
    std::uint64_t vals[32];
    if (n > 32) n = 32;
    const std::uint32_t got = n ? pop_batch(tid, n, idx, vals) : 0u;
    for (std::uint32_t i = 0; i < got; ++i) out[i] = detail::value_of<T>(static_cast<detail::word_t<T>>(vals[i]));
    return got;
  }

  /// The per-thread operation of Azad, Sehgal and Patel's stack (plus back-off and grid-wide
  /// elimination), without warp elimination or batching. For comparison.
  STM_HD op_status exec_single(std::uint32_t tid, op_kind kind, T& value) const {
    if (kind == op_kind::push) return push_bulk(tid, &value, 1) == 1 ? op_status::ok : op_status::full;
    return pop_bulk(tid, &value, 1) == 1 ? op_status::ok : op_status::empty;
  }

  /// Warp-cooperative push or pop (see the header comment). For a push `value`
  /// is the input; for a successful pop it receives the value.
  STM_HD op_status exec(std::uint32_t tid, op_kind kind, T& value) const {
    const bool is_push = kind == op_kind::push;
    const std::uint32_t mask = platform::active_mask();
    std::uint64_t bits = is_push ? std::uint64_t(detail::bits_of(value)) : 0u;
    const detail::warp_plan plan = detail::warp_eliminate(mask, is_push, bits);
    const bool leader = plan.lane == plan.leader;
    const bool in_batch = !plan.eliminated;  // lanes not eliminated are all of kind plan.rest_push
    std::uint32_t done = 0;                  // batch members that succeeded (a prefix of the batch)
    std::uint32_t idx[32];
    std::uint64_t vals[32];
    if (plan.rest > 0 && plan.rest_push) {
      // Gather the batch's values at the leader (every lane shuffles).
      for (std::uint32_t j = 0; j < plan.rest; ++j) {
        const std::uint64_t v = platform::shfl(mask, bits, detail::batch_lane(plan, j));
        if (leader) vals[j] = v;
      }
      if (leader) done = push_batch(tid, plan.rest, idx, vals);
    } else if (plan.rest > 0) {
      if (leader) done = pop_batch(tid, plan.rest, idx, vals);
    }
    if (plan.rest > 0) {
      done = platform::shfl(mask, done, plan.leader);
      if (!plan.rest_push) {
        // Hand out the popped values: batch position j gets vals[j].
        for (std::uint32_t j = 0; j < done; ++j) {
          const std::uint64_t v = platform::shfl(mask, leader ? vals[j] : 0u, plan.leader);
          if (in_batch && detail::batch_rank(plan, false) == j) bits = v;
        }
      }
    }
    if (plan.eliminated) {
      if (!is_push) value = detail::value_of<T>(static_cast<detail::word_t<T>>(bits));
      return op_status::ok;
    }
    const std::uint32_t pos = detail::batch_rank(plan, is_push);
    if (pos >= done) return is_push ? op_status::full : op_status::empty;
    if (!is_push) value = detail::value_of<T>(static_cast<detail::word_t<T>>(bits));
    return op_status::ok;
  }

 private:
  /// k nodes for a push batch into idx[]: never-used ones first, then the
  /// free list. Returns how many (fewer than k: pool and free list exhausted).
  STM_HD std::uint32_t take_nodes(std::uint32_t k, std::uint32_t* idx, detail::backoff& bo) const {
    std::uint32_t got = 0;
    atomic_ref<std::uint32_t> fresh(header->fresh);
    // Look before adding: once the pool is exhausted the counter stops growing
    // (it overshoots capacity by at most 32 per concurrent batch).
    if (fresh.load(memory_order_relaxed) < capacity) {
      // relaxed: it only hands out indices; the nodes are published by the top's release CAS
      const std::uint32_t base = fresh.fetch_add(k, memory_order_relaxed);
      got = base >= capacity ? 0u : (capacity - base < k ? capacity - base : k);
      for (std::uint32_t i = 0; i < got; ++i) idx[i] = base + i;
    }
    if (got < k) got += detail::pop_chain(&header->free_top, nodes, k - got, idx + got, nullptr, bo);
    return got;
  }

  /// This thread's elimination slots: its SM's group (one group on the CPU).
  STM_HD detail::batch_slot* slot_group() const {
    return slots + (platform::sm_id() % slot_groups) * config.slots_per_sm;
  }
  STM_HD std::uint32_t slot_start(std::uint32_t tid, std::uint32_t attempt) const {
    const std::uint32_t x = (tid * 2654435761u) ^ (attempt * 40503u + 0x9E3779B9u);
    return (x >> 7) % config.slots_per_sm;
  }

  /// Push vals[0..k) (vals[k-1] ends on top); returns how many were pushed
  /// (fewer than k only when the pool is exhausted).
  STM_HD std::uint32_t push_batch(std::uint32_t tid, std::uint32_t k, std::uint32_t* idx, const std::uint64_t* vals) const {
    detail::backoff bo(config.backoff, tid);
    const std::uint32_t got = take_nodes(k, idx, bo);
    if (got == 0) return 0;
    // Chain: idx[got-1] on top, down to idx[0], whose next is set by try_push_chain.
    for (std::uint32_t i = 0; i < got; ++i) {
      atomic_ref<std::uint64_t>(nodes[idx[i]].value).store(vals[i], memory_order_relaxed);
      if (i > 0) atomic_ref<std::uint32_t>(nodes[idx[i]].next).store(idx[i - 1] + 1, memory_order_relaxed);
    }
    std::uint32_t left = got;  // vals[0..left) on idx[0..left) still to push
    atomic_ref<std::uint64_t> top(header->top);
    std::uint64_t old = top.load(memory_order_relaxed);
    for (std::uint32_t attempt = 0;; ++attempt) {
      if (detail::try_push_chain(&header->top, nodes, idx[left - 1], idx[0], old)) return got;  // release inside
      bool offered = false;
      const std::uint32_t n =
          config.slots_per_sm == 0
              ? 0u
              : detail::offer_batch(slot_group(), config.slots_per_sm, slot_start(tid, attempt), vals, left,
                                    config.offer_ns, offered);
      if (n > 0) {
        // Pops took vals[left-n..left): their nodes idx[left-1] -> ... -> idx[left-n]
        // (still linked) go back to the free list in one CAS; nobody else saw them.
        detail::push_chain(&header->free_top, nodes, idx[left - 1], idx[left - n], bo);
        left -= n;
        if (left == 0) return got;
      }
      if (!offered) bo.wait();  // an offer has waited already
      old = top.load(memory_order_relaxed);
    }
  }

  /// Pop up to k values into vals[] (top first); recycle the nodes.
  STM_HD std::uint32_t pop_batch(std::uint32_t tid, std::uint32_t k, std::uint32_t* idx, std::uint64_t* vals) const {
    detail::backoff bo(config.backoff, tid);
    std::uint32_t got = 0;  // vals[0..got) taken by elimination so far
    std::uint64_t old = detail::load_head(&header->top);
    for (std::uint32_t attempt = 0;; ++attempt) {
      std::uint32_t n = 0;
      if (detail::try_pop_chain(&header->top, nodes, k - got, idx, vals + got, old, n)) {
        // The popped nodes are still linked idx[0] -> ... -> idx[n-1]: recycle them as one chain.
        if (n > 0) detail::push_chain(&header->free_top, nodes, idx[0], idx[n - 1], bo);
        return got + n;
      }
      const std::uint32_t e = config.slots_per_sm == 0
                                  ? 0u
                                  : detail::take_batch(slot_group(), config.slots_per_sm, slot_start(tid, attempt),
                                                       vals + got, k - got);
      got += e;
      if (got == k) return got;
      if (e == 0) bo.wait();
      old = detail::load_head(&header->top);
    }
  }
};
static_assert(std::is_trivially_copyable_v<treiber_ref<int>>);

/// Move-only owner of a treiber stack's memory on one backend.
template <class T>
class treiber {
 public:
  static constexpr std::uint32_t max_capacity = 1u << 31;

  /// capacity: nodes in the pool, 1..2^31 (usage_error otherwise).
  treiber(backend where, std::uint64_t capacity, treiber_config cfg = {})
      : header_(where, 1),
        nodes_(where, checked(capacity)),
        slots_(where, std::size_t(sm_count(where)) * cfg.slots_per_sm) {
    ref_.header = header_.data();
    ref_.nodes = nodes_.data();
    ref_.slots = slots_.data();
    ref_.capacity = static_cast<std::uint32_t>(capacity);
    ref_.slot_groups = sm_count(where);
    ref_.config = cfg;
  }

  treiber_ref<T> ref() const { return ref_; }
  std::uint32_t capacity() const { return ref_.capacity; }
  backend where() const { return nodes_.where(); }
  const treiber_config& config() const { return ref_.config; }

  /// Values on the stack, top first (quiescent stack only: no kernel running).
  std::vector<T> contents() const {
    const auto h = header_.to_vector();
    const auto n = nodes_.to_vector();
    std::vector<T> out;
    for (std::uint32_t i = detail::head_index(h[0].top); i != 0 && out.size() <= n.size(); i = n[i - 1].next)
      out.push_back(detail::value_of<T>(static_cast<detail::word_t<T>>(n[i - 1].value)));
    if (out.size() > n.size()) throw std::logic_error("treiber stack: cycle in the stack chain");
    return out;
  }

  /// Nodes on the free list plus never-used nodes (quiescent stack only).
  std::uint64_t free_nodes() const {
    const auto h = header_.to_vector();
    const auto n = nodes_.to_vector();
    std::uint64_t count = 0;
    for (std::uint32_t i = detail::head_index(h[0].free_top); i != 0 && count <= n.size(); i = n[i - 1].next) ++count;
    return count + fresh_nodes();
  }

  /// Never-used nodes left in the pool (quiescent stack only).
  std::uint64_t fresh_nodes() const {
    const auto h = header_.to_vector();
    return h[0].fresh < ref_.capacity ? ref_.capacity - h[0].fresh : 0;
  }

  /// Values (pairs of a push and a pop) that went through grid-wide
  /// elimination so far (quiescent stack only; diagnostics).
  std::uint64_t eliminated() const {
    std::uint64_t n = 0;
    for (const auto& s : slots_.to_vector()) n += s.eliminated;
    return n;
  }

 private:
  static std::size_t checked(std::uint64_t capacity) {
    if (capacity == 0) throw usage_error("a stack needs a capacity of at least 1");
    if (capacity > max_capacity)
      throw usage_error("treiber stack capacity is at most 2^31 nodes, got " + std::to_string(capacity));
    return static_cast<std::size_t>(capacity);
  }
  buffer<detail::treiber_header> header_;
  buffer<detail::pool_node> nodes_;
  buffer<detail::batch_slot> slots_;
  treiber_ref<T> ref_{};
};

}  // namespace stm::stack
