// SPDX-License-Identifier: Apache-2.0
// stm/dist/detail/layout.hpp - where a word of the distributed space lives,
// which lock covers it, and the priorities of threads on several PEs.
//
// Placement: block. The space has npes x words_per_pe 32-bit words; global
// word g lives on PE g / words_per_pe at index g % words_per_pe, and its lock
// word lives beside it, on the same PE: lock (index >> shift) of that PE's
// table (coverage: 2^shift words per lock). A lock never covers words of two
// PEs, so a transaction that touches only its own PE's words takes only local
// locks. Block rather than hash placement: a workload chooses what is local
// (the bank's --cross is the share of transfers that leave the home PE), and a
// hash would make almost every transaction remote at N >= 2.
//
// Priorities. The lock word's owner field has 19 bits (stm/lock_word.hpp). It
// is partitioned, not widened: thread t of PE p has priority t x npes + p, so
// priorities are unique across PEs as long as t < max_threads / npes (floor),
// which threads_per_pe_limit() gives and require_pe_threads() checks. The
// interleaving (rather than PE p taking the block [p x M, (p+1) x M)) keeps the
// priority rule from favouring PE 0's threads over every other PE's. Widening
// (a 64-bit lock word) would cost every single-GPU transaction wider atomics;
// 524,288 / npes threads per PE is 262,144 on two GPUs and 131,072 on four
// (docs/multi-gpu.md).
#pragma once

#include <cstdint>
#include <string>

#include "stm/error.hpp"
#include "stm/lock_word.hpp"
#include "stm/platform.hpp"

namespace stm::dist {

/// Most PEs a space has: the interleaved priorities need at least one thread
/// per PE (max_threads / max_pes >= 1), and 2^10 PEs leave 512 threads each.
inline constexpr std::uint32_t max_pes = 1024;
static_assert(lock_word::max_threads / max_pes >= 1, "every PE needs at least one priority");
static_assert(std::uint64_t(lock_word::max_threads - 1) < (std::uint64_t(1) << lock_word::owner_bits),
              "priorities must fit the lock word's owner field");

/// A typed word of the distributed space: PE and index on that PE (4-byte T).
template <class T>
struct gptr {
  std::uint32_t pe = 0;
  std::uint32_t index = 0;
};

/// The shape of a space: PEs, words and locks per PE.
struct layout {
  std::uint32_t npes = 1;
  std::uint32_t words_per_pe = 1;
  std::uint32_t shift = 0;   ///< log2(words per lock)
  std::uint32_t spread = 0;  ///< log2(lock words per lock slot): lock i at [i << spread]

  STM_HD std::uint32_t locks_per_pe() const { return ((words_per_pe - 1) >> shift) + 1; }
  STM_HD std::uint64_t lock_words_per_pe() const { return std::uint64_t(locks_per_pe()) << spread; }
  STM_HD std::uint64_t words() const { return std::uint64_t(npes) * words_per_pe; }
  /// Global word g (block placement).
  template <class T = std::uint32_t>
  STM_HD gptr<T> at(std::uint64_t g) const {
    return gptr<T>{static_cast<std::uint32_t>(g / words_per_pe), static_cast<std::uint32_t>(g % words_per_pe)};
  }
  /// Index (in the PE's lock array) of the lock word covering word `index`.
  STM_HD std::uint32_t lock_slot(std::uint32_t index) const { return (index >> shift) << spread; }
};

/// Threads per PE whose priorities stay distinct across npes PEs.
STM_HD inline constexpr std::uint32_t threads_per_pe_limit(std::uint32_t npes) {
  return npes == 0 ? 0u : lock_word::max_threads / npes;
}

/// The priority of thread `local_tid` of PE `pe` (lower wins), unique across
/// the npes PEs while local_tid < threads_per_pe_limit(npes).
STM_HD inline constexpr std::uint32_t priority(std::uint32_t pe, std::uint32_t local_tid, std::uint32_t npes) {
  return local_tid * npes + pe;
}
static_assert(priority(max_pes - 1, threads_per_pe_limit(max_pes) - 1, max_pes) < lock_word::max_threads,
              "the last thread of the last PE has a priority the owner field holds");
static_assert(priority(1, threads_per_pe_limit(3) - 1, 3) < lock_word::max_threads);

/// usage_error unless npes PEs of `threads` threads each keep distinct priorities.
inline void require_pe_threads(std::uint32_t npes, std::uint64_t threads) {
  if (npes < 1 || npes > max_pes)
    throw usage_error("the number of PEs must be in [1, " + std::to_string(max_pes) + "], got " +
                      std::to_string(npes));
  if (threads > threads_per_pe_limit(npes))
    throw usage_error(std::to_string(threads) + " threads per PE: over " + std::to_string(npes) +
                      " PEs the 19-bit priorities leave at most " + std::to_string(threads_per_pe_limit(npes)) +
                      " threads per PE");
}

/// usage_error unless the shape is valid: npes PEs, at least one word per PE,
/// a coverage and a spread within the lock table's ranges.
inline void check_layout(const layout& l) {
  require_pe_threads(l.npes, 0);
  if (l.words_per_pe == 0) throw usage_error("a distributed space needs at least one word per PE");
  if (l.shift > 20) throw usage_error("at most 2^20 words per lock");
  if (l.spread > 5) throw usage_error("lock spread must be a power of two from 1 to 32 words per lock");
}

}  // namespace stm::dist
