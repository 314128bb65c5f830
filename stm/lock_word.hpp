// SPDX-License-Identifier: Apache-2.0
// stm/lock_word.hpp - the 32-bit PR-STM lock word, bit by bit.
//
//   31      30         29 ............ 11   10 ......... 0
//  +------+----------+--------------------+---------------+
//  | lock | pre-lock |  owner (19 bits)   | version (11)  |
//  +------+----------+--------------------+---------------+
//
//  version  bumped (mod 2048) by every commit that wrote a location under this
//           lock; a read records it and validation compares it.
//  owner    priority of the thread holding the pre-lock (or the final lock).
//           Lower value = higher priority: the logical thread id, so thread 0
//           wins every conflict it takes part in.
//  pre-lock set by a committing transaction that claims the lock; a thread
//           of higher priority may steal it (CAS over it with its own id).
//  lock     the final lock: set only by the pre-lock holder, never stolen;
//           while set, the owner is writing back its values.
//  both     shared (read) lock: held by escalated read-only transactions
//           (docs/stm-core.md#escalation); the owner field counts
//           their holds. Nobody writes under it; plain readers may read
//           through it, committers and writers treat it as taken.
//
// Unlocked: both flag bits clear and the owner field zero.
//
// Version wrap. 11 bits wrap after 2048 commits. A read is therefore validated
// by version AND by value (the descriptor keeps the value it read), so a stale
// read slips through only if exactly k*2048 commits hit its lock while the
// transaction ran AND the location holds the same bits again.
//
// Owners beyond 2^19. A transaction needs a distinct priority per logical
// thread; launches with more than max_threads (524,288) logical threads are
// refused with an error (full occupancy of a GPU of 132 SMs is 270,336 threads).
#pragma once

#include <cstdint>

#include "stm/platform.hpp"

namespace stm::lock_word {

inline constexpr std::uint32_t version_bits = 11;
inline constexpr std::uint32_t owner_bits = 19;
inline constexpr std::uint32_t version_mask = (1u << version_bits) - 1u;  // bits 0..10
inline constexpr std::uint32_t owner_shift = version_bits;                // bits 11..29
inline constexpr std::uint32_t owner_mask = ((1u << owner_bits) - 1u) << owner_shift;
inline constexpr std::uint32_t prelock_bit = 1u << 30;
inline constexpr std::uint32_t lock_bit = 1u << 31;

/// Number of distinct owners (logical threads) a lock word can name.
inline constexpr std::uint32_t max_threads = 1u << owner_bits;
inline constexpr std::uint32_t max_version = version_mask;

STM_HD constexpr std::uint32_t version(std::uint32_t w) { return w & version_mask; }
STM_HD constexpr std::uint32_t owner(std::uint32_t w) { return (w & owner_mask) >> owner_shift; }
STM_HD constexpr bool is_locked(std::uint32_t w) { return (w & lock_bit) != 0; }
STM_HD constexpr bool is_prelocked(std::uint32_t w) { return (w & prelock_bit) != 0; }
STM_HD constexpr bool is_free(std::uint32_t w) { return (w & (lock_bit | prelock_bit)) == 0; }
/// Shared (read) lock: both flag bits.
STM_HD constexpr bool is_shared(std::uint32_t w) { return (w & (lock_bit | prelock_bit)) == (lock_bit | prelock_bit); }
/// A final lock proper (lock bit without the pre-lock bit): its owner writes back.
STM_HD constexpr bool is_final(std::uint32_t w) { return (w & (lock_bit | prelock_bit)) == lock_bit; }
/// Free or shared: nobody claims the location for a write.
STM_HD constexpr bool is_settled(std::uint32_t w) { return ((w ^ (w << 1)) & lock_bit) == 0; }
/// The shared lock's holds (the owner field), one added: shared_one.
inline constexpr std::uint32_t shared_one = 1u << owner_shift;
STM_HD constexpr std::uint32_t holds(std::uint32_t w) { return owner(w); }
STM_HD constexpr std::uint32_t make_shared(std::uint32_t v, std::uint32_t holds_n) {
  return lock_bit | prelock_bit | ((holds_n << owner_shift) & owner_mask) | (v & version_mask);
}

STM_HD constexpr std::uint32_t next_version(std::uint32_t v) { return (v + 1u) & version_mask; }

STM_HD constexpr std::uint32_t make_unlocked(std::uint32_t v) { return v & version_mask; }
STM_HD constexpr std::uint32_t make_prelocked(std::uint32_t v, std::uint32_t owner_id) {
  return prelock_bit | ((owner_id << owner_shift) & owner_mask) | (v & version_mask);
}
STM_HD constexpr std::uint32_t make_locked(std::uint32_t v, std::uint32_t owner_id) {
  return lock_bit | ((owner_id << owner_shift) & owner_mask) | (v & version_mask);
}

}  // namespace stm::lock_word
