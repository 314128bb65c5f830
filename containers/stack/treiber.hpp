// containers/stack/treiber.hpp - the lock-free linked-list stack of seed 000
// (Treiber stack over a node pool, 64-bit tagged index, tagged free list),
// with jittered exponential back-off and warp elimination + warp batching.
//
//   stm::stack::treiber<int> s(stm::backend::gpu, 1 << 20);   // pool of 2^20 nodes
//   auto r = s.ref();                                         // pass by value
//   ... in a kernel: stm::stack::stack_status st = r.push(tid, 42);
//                    int v; if (r.pop(tid, v) == stack_status::ok) ...
//
// Guarantees
//  - Linearizable LIFO stack. Lock-free: some call always completes (with
//    warp batching, lanes wait for their own warp's leader, whose CAS loops
//    are lock-free; exec_single() is per-thread lock-free).
//  - Values: any trivially copyable 4- or 8-byte T; no value is reserved.
//  - Capacity: the node pool. A push fails with stack_status::full when the free
//    list is empty and the pool is exhausted (never corruption); pop on an empty
//    stack returns stack_status::empty.
//  - ABA: every CAS on a head (stack or free list) increments its 32-bit tag.
//
// Warp batching (GPU): exec() first pairs the warp's pushes with its pops (warp
// elimination, detail/warp.hpp); then the lowest lane links the surplus pushes
// as one chain with a single CAS on the top (nodes taken from the free list in
// one CAS, else from the pool with one fetch-and-add), or takes the surplus
// pops off the top in a single CAS and recycles the whole popped chain onto the
// free list with one more. A batch of k operations is k consecutive operations
// at the instant of its CAS. On the CPU each call is one plain operation.
//
// Differences from std::stack: fixed capacity, no top()/size() during
// concurrent use (contents() is for a quiescent stack), pop returns a status.
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "containers/stack/common.hpp"
#include "containers/stack/detail/backoff.hpp"
#include "containers/stack/detail/tagged_list.hpp"
#include "containers/stack/detail/warp.hpp"
#include "stm/buffer.hpp"
#include "stm/error.hpp"

namespace stm::stack {

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
  std::uint32_t capacity = 0;
  backoff_config backoff{};

  STM_HD stack_status push(std::uint32_t tid, T value) const { return exec(tid, op_kind::push, value); }
  STM_HD stack_status pop(std::uint32_t tid, T& out) const { return exec(tid, op_kind::pop, out); }

  /// Bulk push by one thread: values[0..n) (n <= 32) with one CAS on the top
  /// (values[n-1] ends on top). Returns how many were pushed: fewer than n only
  /// when the pool is exhausted (those were not pushed).
  STM_HD std::uint32_t push_bulk(std::uint32_t tid, const T* values, std::uint32_t n) const {
    std::uint32_t idx[32];
    std::uint64_t vals[32];
    if (n > 32) n = 32;
    for (std::uint32_t i = 0; i < n; ++i) vals[i] = detail::bits_of(values[i]);
    return n ? push_batch(tid, n, idx, vals) : 0u;
  }

  /// Bulk pop by one thread: up to n (<= 32) values with one CAS on the top,
  /// out[0] the top. Returns how many were popped (fewer: the stack ran empty).
  STM_HD std::uint32_t pop_bulk(std::uint32_t tid, T* out, std::uint32_t n) const {
    std::uint32_t idx[32];
    std::uint64_t vals[32];
    if (n > 32) n = 32;
    const std::uint32_t got = n ? pop_batch(tid, n, idx, vals) : 0u;
    for (std::uint32_t i = 0; i < got; ++i) out[i] = detail::value_of<T>(static_cast<detail::word_t<T>>(vals[i]));
    return got;
  }

  /// The seed's per-thread operation (plus back-off), without warp
  /// elimination or batching: one CAS on the top per call. For comparison.
  STM_HD stack_status exec_single(std::uint32_t tid, op_kind kind, T& value) const {
    if (kind == op_kind::push) return push_bulk(tid, &value, 1) == 1 ? stack_status::ok : stack_status::full;
    return pop_bulk(tid, &value, 1) == 1 ? stack_status::ok : stack_status::empty;
  }

  /// Warp-cooperative push or pop (see the header comment). For a push `value`
  /// is the input; for a successful pop it receives the value.
  STM_HD stack_status exec(std::uint32_t tid, op_kind kind, T& value) const {
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
      return stack_status::ok;
    }
    const std::uint32_t pos = detail::batch_rank(plan, is_push);
    if (pos >= done) return is_push ? stack_status::full : stack_status::empty;
    if (!is_push) value = detail::value_of<T>(static_cast<detail::word_t<T>>(bits));
    return stack_status::ok;
  }

 private:
  /// Push vals[0..k) (vals[k-1] ends on top); returns how many were pushed
  /// (fewer than k only when the pool is exhausted).
  STM_HD std::uint32_t push_batch(std::uint32_t tid, std::uint32_t k, std::uint32_t* idx, const std::uint64_t* vals) const {
    detail::backoff bo(backoff, tid);
    std::uint32_t got = detail::pop_chain(&header->free_top, nodes, k, idx, nullptr, bo);
    if (got < k) {
      atomic_ref<std::uint32_t> fresh(header->fresh);
      // Look before adding: once the pool is exhausted the counter stops growing.
      if (fresh.load(memory_order_relaxed) < capacity) {
        const std::uint32_t want = k - got;
        const std::uint32_t base = fresh.fetch_add(want, memory_order_relaxed);  // only claims indices
        const std::uint32_t avail = base >= capacity ? 0u : (capacity - base < want ? capacity - base : want);
        for (std::uint32_t i = 0; i < avail; ++i) idx[got + i] = base + i;
        got += avail;
      }
    }
    if (got == 0) return 0;
    // Chain: idx[got-1] on top, down to idx[0], whose next is set by push_chain.
    for (std::uint32_t i = 0; i < got; ++i) {
      atomic_ref<std::uint64_t>(nodes[idx[i]].value).store(vals[i], memory_order_relaxed);
      if (i > 0) atomic_ref<std::uint32_t>(nodes[idx[i]].next).store(idx[i - 1] + 1, memory_order_relaxed);
    }
    detail::push_chain(&header->top, nodes, idx[got - 1], idx[0], bo);  // release inside
    return got;
  }

  /// Pop up to k values into vals[] (top first); recycle the nodes.
  STM_HD std::uint32_t pop_batch(std::uint32_t tid, std::uint32_t k, std::uint32_t* idx, std::uint64_t* vals) const {
    detail::backoff bo(backoff, tid);
    const std::uint32_t got = detail::pop_chain(&header->top, nodes, k, idx, vals, bo);
    // The popped nodes are still linked idx[0] -> ... -> idx[got-1]: recycle them as one chain.
    if (got > 0) detail::push_chain(&header->free_top, nodes, idx[0], idx[got - 1], bo);
    return got;
  }
};
static_assert(std::is_trivially_copyable_v<treiber_ref<int>>);

/// Move-only owner of a treiber stack's memory on one backend.
template <class T>
class treiber {
 public:
  static constexpr std::uint32_t max_capacity = 1u << 31;

  /// capacity: nodes in the pool, 1..2^31 (usage_error otherwise).
  treiber(backend where, std::uint64_t capacity, backoff_config bo = {})
      : header_(where, 1), nodes_(where, checked(capacity)) {
    ref_.header = header_.data();
    ref_.nodes = nodes_.data();
    ref_.capacity = static_cast<std::uint32_t>(capacity);
    ref_.backoff = bo;
  }

  treiber_ref<T> ref() const { return ref_; }
  std::uint32_t capacity() const { return ref_.capacity; }
  backend where() const { return nodes_.where(); }

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
    return count + (h[0].fresh < ref_.capacity ? ref_.capacity - h[0].fresh : 0);
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
  treiber_ref<T> ref_{};
};

}  // namespace stm::stack
