// SPDX-License-Identifier: Apache-2.0
// stm/tx_sets.hpp - the entries of a transaction's read, write and lock sets,
// as a contention manager reads and updates them at commit (stm/manager.hpp),
// and the relaxed word access every validation uses.
//
// A descriptor (stm::tx_descriptor, stm/manager.hpp) holds reads[0, n_reads),
// writes[0, n_writes) and locks[0, n_locks): one read entry per transactional
// read, one write entry per written location (the value buffered until
// commit), one lock entry per distinct lock of the write set.
#pragma once

#include <cstdint>

#include "stm/lock_word.hpp"
#include "stm/platform.hpp"

namespace stm {

/// Relaxed atomic load of a 4- or 8-byte word at addr (size in bytes): how a
/// validation looks at a location again.
STM_HD inline std::uint64_t load_word(const void* addr, std::uint32_t size) {
  if (size == 4)
    return atomic_ref<std::uint32_t>(*static_cast<std::uint32_t*>(const_cast<void*>(addr))).load(memory_order_relaxed);
  return atomic_ref<std::uint64_t>(*static_cast<std::uint64_t*>(const_cast<void*>(addr))).load(memory_order_relaxed);
}

/// One transactional read: the location, the bits it returned and the lock
/// word it saw.
struct read_entry {
  const void* addr;
  std::uint64_t value;   ///< bits read (validated again at commit: version wrap)
  std::uint32_t lock;    ///< lock index
  /// The lock word as the read loaded it, kept whole: the version is extracted
  /// where it is compared (version()), not in the read, whose one use of the
  /// word is then the read note (a select); an extraction there would make the
  /// next read's loads wait for this one's.
  std::uint32_t word;
  std::uint8_t size;     ///< 4 or 8
  std::uint8_t stolen;   ///< 1: this entry's lock was pre-locked by us at validation (released by the core)
  std::uint8_t covered;  ///< 1: its lock is in our write set (set at commit, mark_covered)
  std::uint8_t held;     ///< 1: escalated, this read took its lock as our final lock (released at its version)
  /// The lock version seen by the read.
  STM_HD std::uint32_t version() const { return lock_word::version(word); }
};

/// One buffered write: stored at addr by the commit's write-back.
struct write_entry {
  void* addr;
  std::uint64_t value;
  std::uint8_t size;  ///< 4 or 8
};

/// States of a lock entry: not held, pre-locked by us, final-locked by us.
inline constexpr std::uint8_t lock_none = 0, lock_pre = 1, lock_final = 2;

/// One lock of the write set.
struct lock_entry {
  std::uint32_t lock;     ///< lock index
  std::uint16_t version;  ///< version when first written (PR-STM's Algorithm 1, line 20)
  std::uint8_t state;     ///< lock_none / lock_pre / lock_final
};

}  // namespace stm
