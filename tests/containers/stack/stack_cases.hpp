// SPDX-License-Identifier: Apache-2.0
// tests/containers/stack/stack_cases.hpp - one adapter per stack, so that a
// test body is written once for all four stacks and both backends.
#pragma once

#include <cstdint>

#include "cmp/prstm.hpp"
#include "containers/stack/stack.hpp"
#include "stm/stm.hpp"

namespace stack_test {

struct treiber_k {
  static constexpr const char* name = "treiber";
  static constexpr bool linearizable = true;
  static constexpr bool exact_lifo_sequential = true;
  static constexpr std::uint64_t lifo_capacity_factor = 1;
  template <class T>
  using owner = stm::stack::treiber<T>;
  template <class T>
  static auto ref(const owner<T>& o) { return o.ref(); }
  template <class T>
  static std::uint64_t capacity(const owner<T>& o) { return o.capacity(); }
};

/// A treiber stack that eliminates eagerly: one elimination slot per SM (every
/// warp of an SM meets in it), long offers, short back-off.
inline constexpr stm::stack::treiber_config eager_elimination{{16, 256}, 1, 20000};
template <class T>
struct treiber_eager : stm::stack::treiber<T> {
  treiber_eager(stm::backend where, std::uint64_t capacity) : stm::stack::treiber<T>(where, capacity, eager_elimination) {}
};

struct treiber_elim_k : treiber_k {
  static constexpr const char* name = "treiber_elim";
  template <class T>
  using owner = treiber_eager<T>;
};

struct scan_k {
  static constexpr const char* name = "scan";
  static constexpr bool linearizable = false;
  static constexpr bool exact_lifo_sequential = true;
  static constexpr std::uint64_t lifo_capacity_factor = 1;
  template <class T>
  using owner = stm::stack::scan<T>;
  template <class T>
  static auto ref(const owner<T>& o) { return o.ref(); }
  template <class T>
  static std::uint64_t capacity(const owner<T>& o) { return o.capacity(); }
};

struct sharded_k {
  static constexpr const char* name = "sharded";
  static constexpr bool linearizable = false;
  static constexpr bool exact_lifo_sequential = true;  // while the home shard has room
  static constexpr std::uint64_t lifo_capacity_factor = stm::stack::sharded<int>::default_shards;
  template <class T>
  using owner = stm::stack::sharded<T>;
  template <class T>
  static auto ref(const owner<T>& o) { return o.ref(); }
  template <class T>
  static std::uint64_t capacity(const owner<T>& o) { return o.capacity(); }
};

struct tx_k {
  static constexpr const char* name = "tx";
  static constexpr bool linearizable = true;
  static constexpr bool exact_lifo_sequential = true;
  static constexpr std::uint64_t lifo_capacity_factor = 1;
  template <class T>
  using owner = stm::stack::tx_stack<T>;
  template <class T>
  static auto ref(const owner<T>& o) { return o.template ref<stm::cm::prstm>(); }
  template <class T>
  static std::uint64_t capacity(const owner<T>& o) { return o.capacity(); }
};

/// A tx_stack whose one-shot operations eliminate eagerly: each tries one of
/// two slots before its transaction (patience 0), a push offering for 4 us
/// (the elimination path runs often even on the CPU, where transactions
/// seldom abort).
inline constexpr stm::stack::tx_elimination_config eager_tx_elimination{2, 0, 4096};
template <class T>
struct tx_stack_eager : stm::stack::tx_stack<T> {
  tx_stack_eager(stm::backend where, std::uint64_t capacity) : stm::stack::tx_stack<T>(where, capacity, eager_tx_elimination) {}
};

struct tx_elim_k : tx_k {
  static constexpr const char* name = "tx_elim";
  template <class T>
  using owner = tx_stack_eager<T>;
};

template <class Exec, class Kind>
struct stack_case {
  using exec = Exec;
  using kind = Kind;
};

}  // namespace stack_test
