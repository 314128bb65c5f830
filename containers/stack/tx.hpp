// containers/stack/tx.hpp - the STM-backed stack: an array and a top index,
// every push and pop one PR-STM transaction, under any contention manager.
//
//   stm::stack::tx_stack<int> s(stm::backend::gpu, 1 << 16);
//   auto r = s.ref<stm::cm::prstm>();          // or through stm::cm::dispatch
//   ... in a kernel: r.push(tid, 42); int v; r.pop(tid, v);
//
// Guarantees
//  - Linearizable LIFO stack: each operation is one serializable transaction
//    (reads top, reads/writes one cell, writes top); a transaction commits at
//    one instant inside its call.
//  - Progress: that of the contention manager (PR-STM: the highest-priority
//    running transaction is never aborted by a lower one, so some operation
//    always completes; no thread waits on another).
//  - Logical thread ids: distinct among concurrent callers and below
//    stm::lock_word::max_threads (the transaction's priority).
//  - Values: any trivially copyable 4- or 8-byte T; nothing reserved.
//  - full / empty are semantic aborts: the transaction ends without retry.
//  - Every call can add its transaction counters (commits, aborts by cause) to
//    a caller's tx_counters, e.g. to report abort rates.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "cmp/prstm.hpp"
#include "containers/stack/common.hpp"
#include "stm/buffer.hpp"
#include "stm/lock_table.hpp"
#include "stm/tx.hpp"
#include "stm/tx_macros.hpp"

namespace stm::stack {

template <class T, class CM = cm::prstm>
struct tx_stack_ref {
  static_assert(is_stack_value<T>, "stack values are trivially copyable 4- or 8-byte types");
  using word = detail::word_t<T>;
  using config = tx_config<2, 2>;  // top + one cell
  word* cells = nullptr;           // cells[capacity] is the top index
  std::uint32_t capacity = 0;
  lock_table_ref locks{};

  STM_HD stack_status push(std::uint32_t tid, T value, tx_counters* acc = nullptr) const {
    return exec(tid, op_kind::push, value, acc);
  }
  STM_HD stack_status pop(std::uint32_t tid, T& out, tx_counters* acc = nullptr) const {
    return exec(tid, op_kind::pop, out, acc);
  }

  STM_HD stack_status exec(std::uint32_t tid, op_kind kind, T& value, tx_counters* acc = nullptr) const {
    transaction<CM, config> tx(locks, tid);
    word* top = cells + capacity;
    stack_status st = stack_status::ok;
    word out = 0;
    if (kind == op_kind::push) {
      const word bits = detail::bits_of(value);
      TX_BEGIN(tx) {
        st = stack_status::ok;
        const word t = TX_READ(tx, top);
        if (t >= capacity) {
          st = stack_status::full;
          TX_SEMANTIC_ABORT(tx);
        }
        TX_WRITE(tx, &cells[t], bits);
        TX_WRITE(tx, top, static_cast<word>(t + 1));
      }
      TX_END(tx);
    } else {
      TX_BEGIN(tx) {
        st = stack_status::ok;
        const word t = TX_READ(tx, top);
        if (t == 0) {
          st = stack_status::empty;
          TX_SEMANTIC_ABORT(tx);
        }
        out = TX_READ(tx, &cells[t - 1]);
        TX_WRITE(tx, top, static_cast<word>(t - 1));
      }
      TX_END(tx);
    }
    if (acc) *acc += tx.counters();
    // The sets hold two entries at most: a capacity abort cannot happen.
    if (st == stack_status::ok && kind == op_kind::pop) value = detail::value_of<T>(out);
    return st;
  }
};

/// Move-only owner of an STM-backed stack: the cells, the top and the lock
/// table covering them (one lock per cell, so that push and pop conflict only
/// on the cells they touch and on the top).
template <class T>
class tx_stack {
 public:
  using word = detail::word_t<T>;

  /// capacity: 1 .. 2^31 values; usage_error otherwise.
  tx_stack(backend where, std::uint64_t capacity)
      : cells_(where, checked(capacity) + 1),
        // No commit clock: a transaction reads at most two locations, so opacity
        // is cheap without it, and it would be a second hot word per push/pop.
        locks_(where, capacity + 1, cells_.data(), sizeof(word), 1, /*clock=*/false),
        capacity_(static_cast<std::uint32_t>(capacity)) {}

  template <class CM = cm::prstm>
  tx_stack_ref<T, CM> ref() const {
    tx_stack_ref<T, CM> r;
    r.cells = cells_.data();
    r.capacity = capacity_;
    r.locks = locks_.ref();
    return r;
  }
  std::uint32_t capacity() const { return capacity_; }
  const lock_table& locks() const { return locks_; }

  /// Values on the stack, top first (quiescent only).
  std::vector<T> contents() const {
    const auto c = cells_.to_vector();
    const word top = c[capacity_];
    if (top > capacity_) throw std::logic_error("tx stack: top index beyond the capacity");
    std::vector<T> out;
    for (word i = top; i-- > 0;) out.push_back(detail::value_of<T>(c[i]));
    return out;
  }

 private:
  static std::size_t checked(std::uint64_t capacity) {
    if (capacity == 0) throw usage_error("a stack needs a capacity of at least 1");
    if (capacity > (1u << 31)) throw usage_error("tx stack capacity is at most 2^31 values, got " + std::to_string(capacity));
    return static_cast<std::size_t>(capacity);
  }
  buffer<word> cells_;
  lock_table locks_;
  std::uint32_t capacity_;
};

static_assert(std::is_trivially_copyable_v<tx_stack_ref<int>>);

}  // namespace stm::stack
