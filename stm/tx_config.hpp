// SPDX-License-Identifier: Apache-2.0
// stm/tx_config.hpp - the public types that describe a transaction: its
// capacities and options (tx_config), the outcome of an attempt (tx_status)
// and why an attempt aborted (abort_cause).
#pragma once

#include <cstdint>

namespace stm {

/// Capacities of a descriptor's sets, and whether reads are validated
/// incrementally. Opaque = true: every read re-validates the earlier reads, so
/// the body only ever sees a consistent snapshot (opacity; O(R^2) checks for R
/// reads). Opaque = false: reads are validated at commit only, and a body may
/// see values of different moments until then (cheaper for long read sets;
/// the body must then tolerate arbitrary values without crashing or looping).
/// Such a read never leaves the body: one that met a final lock is noted and
/// fails the commit (cause read_locked) before it takes any lock, so the loads
/// of consecutive reads are in flight together instead of one round trip each;
/// so, for an update, is one that met a lock word the manager says the commit
/// would lose on (dooms_read; prstm: a pre-lock of a higher priority; cause
/// prelock).
///
/// With a lock table that keeps the commit clock (the default), an opaque read
/// re-validates the earlier reads only when an update committed since the last
/// validation (docs/stm-core.md#commit-clock): O(R) per attempt while
/// nothing commits, the same checks as without a clock otherwise.
///
/// Record = true: the descriptor logs its history into a stm::history
/// (stm/history.hpp; for tests and checking, slower); false costs nothing.
/// It stays the fourth parameter (positional uses predate escalation).
///
/// EscalateAfter (0: never) and EscalateMinReads: a transaction escalates
/// (docs/stm-core.md#escalation) at its attempt EscalateAfter (0-based) once one
/// of its attempts read at least EscalateMinReads locations, if it has not
/// written yet or at least half of its aborts lost a lock of its write set
/// (a pre-lock refused or stolen), and at attempt
/// 4 x EscalateAfter in any case; a descriptor with MaxReads below
/// EscalateMinReads never does. A lock table's throttle may stand in for
/// EscalateAfter (stm::throttle_config::escalate_after, 0 by default: not).
template <std::uint32_t MaxReads = 32, std::uint32_t MaxWrites = 16, bool Opaque = true, bool Record = false,
          std::uint32_t EscalateAfter = 8, std::uint32_t EscalateMinReads = 16>
struct tx_config {
  static_assert(MaxReads >= 1 && MaxWrites >= 1, "sets need a capacity of at least one");
  static_assert(MaxReads <= 65535 && MaxWrites <= 65535, "set capacities are 16-bit");
  static constexpr std::uint32_t max_reads = MaxReads;
  static constexpr std::uint32_t max_writes = MaxWrites;
  static constexpr bool opaque = Opaque;
  static constexpr bool record = Record;
  static constexpr std::uint32_t escalate_after = EscalateAfter;
  static constexpr std::uint32_t escalate_min_reads = EscalateMinReads;
  /// Whether this descriptor can escalate at all: not when it holds fewer
  /// reads than EscalateMinReads (small descriptors compile without it).
  static constexpr bool escalates = EscalateAfter != 0 && EscalateMinReads <= MaxReads;
  /// Accesses inlined at each site of the body (outlined_accesses: not).
  static constexpr bool outlined = false;
};

/// Config, with the descriptor's read, write and abort paths compiled once,
/// out of line, and called from each access of the body, instead of inlined
/// at each. For bodies of many access sites (dozens of TX_READ and TX_WRITE,
/// as vacation's): inlined, every site copies the read or write path with its
/// rare branches (escalation, polling, the abort), the kernel grows to
/// hundreds of kB of code, and its speed then hangs on instruction fetch and
/// on where the compiler lays the hot paths out. The price: the descriptor's
/// fields live in memory instead of registers, which costs a short body (a
/// loop of reads, or a few accesses) more than it saves. Small sets (at most
/// 8 reads and 8 writes) are never outlined. Measurements:
/// docs/design-decisions.md#outlined-accesses.
template <class Config>
struct outlined_accesses : Config {
  static constexpr bool outlined = true;
};

/// Outcome of the current attempt.
enum class tx_status : std::uint32_t { active, committed, aborted, semantic };

/// Why an attempt aborted.
enum class abort_cause : std::uint32_t {
  read_locked = 0,  ///< a read or write found its location's lock held (final lock)
  validation,       ///< a read's version or value moved (at a read or at commit); or an attempt escalated as read-only wrote
  prelock,          ///< pre-lock refused (a higher-priority pre-lock, a held lock, a moved version), or a read of an update saw a pre-lock the manager says the commit loses to (dooms_read)
  lock,             ///< final lock failed: our pre-lock was stolen by a higher priority
  capacity,         ///< read, write or lock set full (raise the tx_config capacities)
  semantic,         ///< the body declared a semantic conflict (TX_SEMANTIC_ABORT)
};
inline constexpr std::uint32_t num_abort_causes = 6;

inline const char* to_string(abort_cause c) {
  switch (c) {
    case abort_cause::read_locked: return "read_locked";
    case abort_cause::validation: return "validation";
    case abort_cause::prelock: return "prelock";
    case abort_cause::lock: return "lock";
    case abort_cause::capacity: return "capacity";
    case abort_cause::semantic: return "semantic";
  }
  return "unknown";
}

}  // namespace stm
