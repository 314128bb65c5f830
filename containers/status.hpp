// SPDX-License-Identifier: Apache-2.0
// containers/status.hpp - stm::op_status, what an operation of any container
// reports, and the conventions every container of containers/ follows.
//
// Conventions
//  - Folder = namespace: containers/stack -> stm::stack, containers/queue ->
//    stm::queue, containers/list -> stm::list, containers/skiplist ->
//    stm::skiplist; what they share (this header) is in stm.
//  - Owner + ref: a move-only owner holds the memory on one backend; ref()
//    gives the trivially copyable handle that kernels and CPU threads use.
//  - Thread id first: every operation takes the caller's logical thread id
//    as its first argument, even where the algorithm does not use it, so that
//    code can switch containers without changing its calls. Transactional
//    containers use it as the priority (distinct among concurrent callers,
//    below stm::lock_word::max_threads); the native stacks spread back-off
//    and elimination slots with it; the other native containers ignore it.
//  - One status: every operation returns op_status (below); contains(tid, k)
//    returns ok when k is present and not_found when it is not.
//  - Contents: contents() on the owner, at a quiescent point (no launch or
//    thread using the container), is what it holds, in its order (stacks top
//    first, queues front first, sets ascending, sequences in sequence order).
//  - The contention manager of a transactional container (tx_stack,
//    tx_queue, tx_set, tx_skiplist) is chosen in one place, the ref:
//    owner.ref<CM>() or owner.ref(cm) (default stm::cm::prstm; tx_set and
//    tx_skiplist also take the descriptor, ref<CM, Config>()). Why there: a
//    kernel then calls r.push(tid, v) with no `.template`, the manager's
//    tuning (a value) travels with the handle, and every one-shot operation
//    of that handle runs under one manager, as the progress guarantee the
//    header states assumes. An operation on a caller's transaction runs under
//    that transaction's manager instead; use the same one.
//  - Composition: every transactional container also offers its operations
//    on a caller's transaction (push(tx, v), enqueue(tx, v), insert(tx, k,
//    slot), ...), so that several containers and the caller's own words
//    commit together; containers/stack/tx.hpp says what a caller must do.
#pragma once

#include <cstdint>

#include "stm/platform.hpp"

namespace stm {

enum class op_status : std::uint32_t {
  ok = 0,     ///< done (pop / dequeue: the value is in the out-parameter; contains: present)
  empty,      ///< pop / dequeue found nothing to take
  full,       ///< no room: capacity reached, node pool exhausted until the next reclaim()
  exists,     ///< insert: the key is already present
  not_found,  ///< remove: the key is absent; contains: absent; insert_after: the target is absent
  capacity,   ///< a transactional operation overflowed its read or write set (nothing changed)
  aborted,    ///< an operation on a caller's transaction: that transaction aborted (leave the body;
              ///< TX_END retries it, and TX_SEMANTIC_ABORT on an aborted transaction changes nothing)
  busy,       ///< a non-waiting ticket-queue call: another caller holds the slot it needs; try again
  closed,     ///< the ticket queue was closed: this and every later call fails
  rejected,   ///< push of a value the (scan) stack reserves; or an operation on a caller's transaction of
              ///< another lock table than the container's (rule composed-table: nothing read or written; with
              ///< STM_CHECKS, as in debug builds, the program stops instead, stm/detail/check.hpp)
};

inline constexpr std::uint32_t num_op_statuses = 10;

STM_HD inline const char* to_string(op_status s) {
  switch (s) {
    case op_status::ok: return "ok";
    case op_status::empty: return "empty";
    case op_status::full: return "full";
    case op_status::exists: return "exists";
    case op_status::not_found: return "not_found";
    case op_status::capacity: return "capacity";
    case op_status::aborted: return "aborted";
    case op_status::busy: return "busy";
    case op_status::closed: return "closed";
    case op_status::rejected: return "rejected";
  }
  return "unknown";
}

}  // namespace stm
