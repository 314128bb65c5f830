// SPDX-License-Identifier: Apache-2.0
// containers/detail/tx_ops.hpp - what the transactional containers (tx_stack,
// tx_queue, tx_set, tx_skiplist) share: the test that an argument is a
// caller's transaction, the sum of transaction counters, and the lock table a
// container's transactions use (its own, or one the caller shares).
#pragma once

#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>

#include "containers/status.hpp"
#include "stm/detail/check.hpp"
#include "stm/error.hpp"
#include "stm/lock_table.hpp"
#include "stm/lock_word.hpp"
#include "stm/stats.hpp"

namespace stm::containers::detail {

/// Selects the composed form of an operation (its first argument a caller's
/// stm::transaction) over the one-shot form (a thread id).
template <class Tx>
using if_transaction = typename Tx::config;

/// A composed operation decides on what it read (full, empty, exists, not
/// found) and the caller may act on that answer (TX_SEMANTIC_ABORT): with an
/// opaque descriptor every value a body sees belongs to one snapshot, so the
/// answer is a fact of the state the transaction commits against.
template <class Tx>
inline constexpr bool composes = Tx::config::opaque;
#define STM_REQUIRE_OPAQUE(Tx)                                                                              \
  static_assert(::stm::containers::detail::composes<Tx>,                                                  \
                "a container operation on a caller's transaction needs an opaque descriptor (tx_config's " \
                "Opaque = true, the default)")

/// Rule composed-table: a container operation on a caller's transaction runs
/// only on a transaction of the container's own lock table (one table for
/// everything composed). On another table its reads and writes would be
/// covered by locks that the container's one-shot operations never look at:
/// updates are lost silently. The test is one pointer compare, in every build:
/// true when the tables match; otherwise, with STM_CHECKS, the program stops
/// naming the rule and the operation's place; without, false (the operation
/// then returns op_status::rejected, reading and writing nothing).
template <class Tx>
STM_HD inline bool same_table(const Tx& tx, const lock_table_ref& mine, [[maybe_unused]] const char* file,
                              [[maybe_unused]] int line) {
  if (tx.locks().words == mine.words) return true;
#if STM_CHECKS
  ::stm::detail::check_failed("composed-table",
                              "a container operation on a transaction of another lock table (build the containers "
                              "used together on one shared lock_table and the transaction on r.locks())",
                              file, line);
#else
  return false;
#endif
}
/// First statement of every operation on a caller's transaction `tx` (in a
/// container handle with locks()): the checks of the descriptor's type and of
/// its table (returns op_status::rejected on another table).
#define STM_COMPOSED_OP(Tx, tx)                                                      \
  STM_REQUIRE_OPAQUE(Tx);                                                            \
  if (!::stm::containers::detail::same_table((tx), locks(), __FILE__, __LINE__))     \
  return ::stm::op_status::rejected

/// The lock table of a transactional container: one it owns, or the caller's
/// (then several containers, and the caller's own words, are covered by one
/// table and compose in one transaction). Movable: the table's words do not
/// move, so refs taken before a move stay valid.
class tx_locks {
 public:
  explicit tx_locks(lock_table own) : own_(std::make_unique<lock_table>(std::move(own))) {}
  tx_locks(backend where, const lock_table& shared) : shared_(&shared) {
    if (shared.where() != where) throw usage_error("a container and the lock table it shares must live on the same backend");
  }
  const lock_table& table() const { return shared_ ? *shared_ : *own_; }
  lock_table_ref ref() const { return table().ref(); }
  /// After a launch every lock must be free again (tests).
  bool all_free() const {
    for (auto word : table().snapshot())
      if (!lock_word::is_free(word)) return false;
    return true;
  }

 private:
  std::unique_ptr<lock_table> own_;  // a pointer: the owner moves, the table does not
  const lock_table* shared_ = nullptr;
};

}  // namespace stm::containers::detail
