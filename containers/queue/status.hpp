// containers/queue/status.hpp - what a queue operation reports.
//
// The queues follow the "channel queue" semantics of Scogland & Feng (ICPE
// 2015, section 6): an operation either succeeds, or says why it did not.
// Nothing is ever lost or corrupted when a call fails: full, empty, busy and
// closed are answers, not errors.
#pragma once

#include <cstdint>

#include "stm/platform.hpp"

namespace stm {

enum class queue_status : std::uint32_t {
  success = 0,  ///< the item was enqueued / dequeued
  busy,         ///< non-waiting call only: another operation holds the slot it needs; try again
  full,         ///< no room (ticket queue: capacity reached; ms: node pool exhausted; tx: capacity)
  empty,        ///< nothing to dequeue
  closed,       ///< the queue was closed (ticket queue): this and every later call fails
};

inline constexpr std::uint32_t num_queue_statuses = 5;

STM_HD inline const char* to_string(queue_status s) {
  switch (s) {
    case queue_status::success: return "success";
    case queue_status::busy: return "busy";
    case queue_status::full: return "full";
    case queue_status::empty: return "empty";
    case queue_status::closed: return "closed";
  }
  return "unknown";
}

}  // namespace stm
