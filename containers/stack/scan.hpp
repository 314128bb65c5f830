// SPDX-License-Identifier: Apache-2.0
// containers/stack/scan.hpp - the Scan Stack of Noah South (2022), as Azad,
// Sehgal and Patel implement it on a GPU ("Scan Stack: A Search-based
// Concurrent Stack for GPU", 2025): an
// array stack without a top pointer. Threads find the top by scanning cells
// that are EMPTY, INVALID (popped, not yet re-validated) or hold a value.
//
//   stm::stack::scan<int> s(stm::backend::gpu, 1 << 16);
//   auto r = s.ref();   ... r.exec(tid, kind, v) / r.push(tid, v) / r.pop(tid, v)
//
// Mechanics (as in their implementation): the lowest-area scan jumps `granularity` cells at
// a time to the first EMPTY one, starting from a shared hint of the last top
// (their "dynamic LA" future work; the hint only speeds the search up),
// then steps to the exact boundary (first EMPTY cell with an EMPTY cell
// above: a single EMPTY cell below values is a hole, see step-over). Both
// operations then lower the boundary over the EMPTY and INVALID cells right
// under it (re-validating INVALID -> EMPTY). push CASes the boundary cell EMPTY -> value;
// pop scans down from the boundary, re-validates INVALID cells under an EMPTY
// one and CASes the first value cell to INVALID. A lost CAS sends the thread to grid-wide
// elimination-backoff (detail/exchanger.hpp) before it rescans. Before all
// of this, exec() pairs pushes with pops inside the warp (detail/warp.hpp).
// Their block-level elimination needs every thread of a block at a
// __syncthreads(), which a per-thread call cannot promise: it is not provided.
//
// Guarantees
//  - Conservation: every pushed value is popped at most once and never lost
//    (every cell changes only by CAS).
//  - Lock-free (a lost CAS means another operation won one; an offer in an
//    elimination slot is withdrawn after config.offer_ns).
//  - NOT linearizable. Their step-over problem remains: a re-validation
//    (INVALID -> EMPTY) racing with a push into the cell above leaves an EMPTY
//    hole below a value; a later push may fill the hole (below a value pushed
//    earlier) and a pop that starts below a hole does not see values above it
//    (it may report empty while values exist). Sequential use is exact LIFO.
//  - Reserved values: the bit patterns all-ones and all-ones minus one (for
//    int: -1 and -2; for float/double: two NaN patterns) mark EMPTY and
//    INVALID cells; a push of them returns op_status::rejected.
//    (Cells store the complement of the value, so zeroed memory is all EMPTY.)
//  - push returns full when the boundary is the end of the array.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "containers/stack/common.hpp"
#include "containers/stack/detail/backoff.hpp"
#include "containers/stack/detail/exchanger.hpp"
#include "containers/stack/detail/warp.hpp"
#include "stm/buffer.hpp"
#include "stm/error.hpp"

namespace stm::stack {

struct scan_config {
  std::uint32_t granularity = 8;          ///< lowest-area step (cells)
  std::uint32_t elimination_slots = 4096; ///< grid-wide elimination slots
  std::uint32_t offer_ns = 2048;          ///< how long a push waits in a slot
  backoff_config backoff{};
};

namespace detail {
struct scan_hint {
  alignas(128) std::uint32_t top;
};
}  // namespace detail

template <class T>
struct scan_ref {
  static_assert(is_stack_value<T>, "stack values are trivially copyable 4- or 8-byte types");
  using word = detail::word_t<T>;
  static constexpr word cell_empty = 0, cell_invalid = 1;  // complements of the reserved values

  word* cells = nullptr;
  detail::scan_hint* hint = nullptr;
  detail::exchange_slot* slots = nullptr;
  std::uint32_t capacity = 0;
  scan_config config{};

  /// True for the two reserved bit patterns (all-ones, all-ones minus one).
  STM_HD static bool reserved(const T& v) { return static_cast<word>(~detail::bits_of(v)) <= cell_invalid; }

  STM_HD op_status push(std::uint32_t tid, T value) const { return exec(tid, op_kind::push, value); }
  STM_HD op_status pop(std::uint32_t tid, T& out) const { return exec(tid, op_kind::pop, out); }

  STM_HD op_status exec(std::uint32_t tid, op_kind kind, T& value) const {
    const bool is_push = kind == op_kind::push;
    const bool rejected = is_push && reserved(value);
    const std::uint32_t mask = platform::ballot(platform::active_mask(), !rejected);
    if (rejected) return op_status::rejected;
    word bits = is_push ? detail::bits_of(value) : word(0);
    const detail::warp_plan plan = detail::warp_eliminate(mask, is_push, bits);
    if (!plan.eliminated) {
      const op_status st = is_push ? push_one(tid, bits) : pop_one(tid, bits);
      if (st != op_status::ok) return st;
    }
    if (!is_push) value = detail::value_of<T>(bits);
    return op_status::ok;
  }

 private:
  STM_HD word load(std::uint32_t i) const { return atomic_ref<word>(cells[i]).load(memory_order_relaxed); }

  /// The boundary: the first EMPTY cell whose upper neighbour is EMPTY too (or
  /// the last cell), found from the hint; capacity when every cell is taken.
  STM_HD std::uint32_t boundary() const {
    const std::uint32_t g = config.granularity;
    std::uint32_t i = atomic_ref<std::uint32_t>(hint->top).load(memory_order_relaxed);
    if (i >= capacity) i = capacity - 1;
    i -= i % g;
    // Lowest area: down while the coarse cell is EMPTY, then up to the first EMPTY coarse cell.
    while (i >= g && load(i) == cell_empty) i -= g;
    while (i < capacity && load(i) != cell_empty) i += g;
    std::uint32_t j = i >= g ? i - g : 0;
    for (; j < capacity; ++j)
      if (load(j) == cell_empty && (j + 1 == capacity || load(j + 1) == cell_empty)) break;
    return j;
  }

  /// Lower boundary e over the cells right under it that are EMPTY (holes) or
  /// INVALID (re-validated: INVALID -> EMPTY), top down, until a value cell;
  /// returns the lowered boundary. (Lowering over an EMPTY cell that another
  /// thread has just re-validated keeps two pushes from leaving a hole.)
  STM_HD std::uint32_t settle(std::uint32_t e) const {
    while (e > 0) {
      word c = load(e - 1);
      if (c == cell_invalid &&
          !atomic_ref<word>(cells[e - 1]).compare_exchange_strong(c, cell_empty, memory_order_relaxed) &&
          c != cell_empty)
        break;  // the cell took a value meanwhile
      if (c != cell_invalid && c != cell_empty) break;
      --e;
    }
    return e;
  }

  STM_HD void set_hint(std::uint32_t v) const {
    atomic_ref<std::uint32_t> h(hint->top);
    if (h.load(memory_order_relaxed) != v) h.store(v, memory_order_relaxed);  // a hint: no ordering needed
  }

  STM_HD detail::exchange_slot* random_slot(std::uint32_t tid, std::uint32_t attempt) const {
    const std::uint32_t x = (tid * 2654435761u) ^ (attempt * 40503u + 0x9E3779B9u);
    return slots + (x >> 7) % config.elimination_slots;
  }

  STM_HD op_status push_one(std::uint32_t tid, word bits) const {
    detail::backoff bo(config.backoff, tid);
    const word enc = static_cast<word>(~bits);
    for (std::uint32_t attempt = 0;; ++attempt) {
      const std::uint32_t e = settle(boundary());
      if (e >= capacity) return op_status::full;
      word expect = cell_empty;
      // relaxed: the cell holds the whole value; a pop's CAS reads it with the value
      if (atomic_ref<word>(cells[e]).compare_exchange_strong(expect, enc, memory_order_relaxed)) {
        set_hint(e + 1);
        return op_status::ok;
      }
      if (detail::exchange_push(random_slot(tid, attempt), bits, config.offer_ns)) return op_status::ok;
      bo.wait();
    }
  }

  STM_HD op_status pop_one(std::uint32_t tid, word& bits) const {
    detail::backoff bo(config.backoff, tid);
    for (std::uint32_t attempt = 0;; ++attempt) {
      std::uint32_t i = settle(boundary());
      bool lost = false;
      while (i-- > 0) {
        word c = load(i);
        if (c == cell_empty) continue;  // a hole (step-over)
        if (c == cell_invalid) {
          // Re-validate a popped cell right under the empty area.
          if (i + 1 == capacity || load(i + 1) == cell_empty) {
            word expect = cell_invalid;
            atomic_ref<word>(cells[i]).compare_exchange_strong(expect, cell_empty, memory_order_relaxed);
          }
          continue;
        }
        if (atomic_ref<word>(cells[i]).compare_exchange_strong(c, cell_invalid, memory_order_relaxed)) {
          bits = static_cast<word>(~c);
          set_hint(i);
          return op_status::ok;
        }
        lost = true;
        break;
      }
      if (!lost) return op_status::empty;
      std::uint64_t got = 0;
      if (detail::exchange_pop(random_slot(tid, attempt), got)) {
        bits = static_cast<word>(got);
        return op_status::ok;
      }
      bo.wait();
    }
  }
};
static_assert(std::is_trivially_copyable_v<scan_ref<int>>);

template <class T>
class scan {
 public:
  /// capacity: cells, 1..2^31; granularity and elimination_slots >= 1.
  scan(backend where, std::uint64_t capacity, scan_config cfg = {}) {
    if (capacity == 0) throw usage_error("a stack needs a capacity of at least 1");
    if (capacity > (1u << 31)) throw usage_error("scan stack capacity is at most 2^31 cells, got " + std::to_string(capacity));
    if (cfg.granularity == 0) throw usage_error("scan stack: the lowest-area granularity must be at least 1");
    if (cfg.elimination_slots == 0) throw usage_error("scan stack: at least one elimination slot is needed");
    cells_ = buffer<detail::word_t<T>>(where, capacity);
    hint_ = buffer<detail::scan_hint>(where, 1);
    slots_ = buffer<detail::exchange_slot>(where, cfg.elimination_slots);
    ref_.cells = cells_.data();
    ref_.hint = hint_.data();
    ref_.slots = slots_.data();
    ref_.capacity = static_cast<std::uint32_t>(capacity);
    ref_.config = cfg;
  }

  scan_ref<T> ref() const { return ref_; }
  std::uint32_t capacity() const { return ref_.capacity; }

  /// Values in the cells, top first (quiescent only).
  std::vector<T> contents() const {
    const auto c = cells_.to_vector();
    std::vector<T> out;
    for (std::size_t i = c.size(); i-- > 0;)
      if (c[i] > scan_ref<T>::cell_invalid) out.push_back(detail::value_of<T>(static_cast<detail::word_t<T>>(~c[i])));
    return out;
  }

 private:
  buffer<detail::word_t<T>> cells_;
  buffer<detail::scan_hint> hint_;
  buffer<detail::exchange_slot> slots_;
  scan_ref<T> ref_{};
};

}  // namespace stm::stack
