// SPDX-License-Identifier: Apache-2.0
// stm/lock_table.hpp - the global lock table: owner (host) and ref (kernels).
//
// A lock covers `bytes_per_lock` consecutive bytes starting at `base`
// (the paper's lock coverage, "hash": with 4-byte words and coverage K,
// bytes_per_lock = 4*K). An address maps to
//     ((addr - base) / bytes_per_lock) mod num_locks,
// so any address is covered (addresses outside [base, base + num_locks *
// bytes_per_lock) alias onto the table, which costs false conflicts only).
// A location must always be accessed with the same width: an 8-byte value is
// locked by the lock of its first byte.
//
// Spread: lock i's word sits at words[i * words_per_lock] (words_per_lock a
// power of two from 1 to 32; the words between are unused). 1 packs 32 lock
// words into each 128-byte line, which keeps a large table small (2.6M locks:
// 10 MB, which fits a large GPU's L2). A small, hot table (thousands of locks under
// full occupancy) can spread its words over separate lines so that CASes on
// different locks do not queue on the same line.
//
// Beside the lock words the table owns two words, each in its own 128-byte
// line (stm/detail/tx_core.hpp says how they are used):
//  - the commit clock (optional, on by default): every update commit
//    increments it; an opaque read skips revalidating the earlier reads while
//    it has not moved. A table without it (clock = false) keeps incremental
//    validation (O(R^2) per attempt of R reads) and spares update commits one
//    contended atomic and one fence: for workloads without long opaque reads.
//    With the clock come the lock stamps: per lock, the clock value of the
//    last commit that wrote under it (64 bits, zero at the start). A read whose
//    lock's stamp is not above the attempt's snapshot is consistent with it
//    although the clock moved, so it re-checks nothing (TinySTM's LSA
//    snapshot extension; docs/stm-core.md#lock-stamps). 8 bytes per lock.
//  - the escalation token (optional, on by default): held by the one update
//    transaction that runs escalated (it aborted too often and now locks what
//    it reads), or shared by read-only ones that run escalated together; 0
//    when free (the fields: lock_table_ref). A table without it (escalation = false) lets no
//    transaction escalate, and spares gpustm's commits the check that no
//    escalated transaction took their read locks over: for workloads whose
//    transactions are all short (or that rely on their manager's progress).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include "stm/backend.hpp"
#include "stm/buffer.hpp"
#include "stm/detail/check.hpp"
#include "stm/error.hpp"
#include "stm/lock_word.hpp"
#include "stm/platform.hpp"

namespace stm {

/// How a lock table throttles contention: admission control's knobs
/// (stm/detail/admission.hpp) and the attempt from which long transactions
/// escalate. The defaults are the measured ones (docs/design-decisions.md#admission-control);
/// lock_table::throttle_from_environment() lets an A/B change them without a
/// rebuild.
struct throttle_config {
  /// Turns a driver's lane may be refused in a row before its attempt runs
  /// without a slot; 0: as long as the gate is full.
  std::uint16_t admission_patience = 8;
  /// Heat (of 1024) from which a first attempt enters the gate; 0: every attempt does.
  std::uint16_t admission_heat = 512;
  /// The attempt from which a long transaction escalates; 0: its descriptor's EscalateAfter.
  std::uint16_t escalate_after = 0;
  /// The longest refusal pause: 128 ns << this.
  std::uint8_t admission_pause_log2 = 7;
  /// 1: an attempt due to escalate before its forced attempt (4 x
  /// EscalateAfter, or a transaction that escalated before) escalates only if
  /// the table's escalation token is free when it starts, else it runs plain;
  /// 0: it waits for the token (stm/detail/tx_escalation.hpp).
  std::uint8_t escalate_when_free = 1;
  /// KiB of an SM's L1 that the sets in local memory of the attempts in
  /// flight under the loop forms may take (stm/detail/admission.hpp,
  /// footprint_gate); 0: no such bound.
  std::uint16_t footprint_kib = 96;
  /// A warp whose bytes are within footprint_kib enters the footprint gate
  /// beside fewer than this many warps, whatever the bytes inside (0 and 1:
  /// only into an empty gate; docs/design-decisions.md#footprint-floor).
  std::uint8_t footprint_min_warps = 2;
  /// A hot lane's sets weigh more in the footprint gate: while its heat is
  /// above admission_heat, 1 + this x (heat - admission_heat) / 1024 times
  /// their bytes (stm/detail/admission.hpp, footprint_charge); 0: bytes alone
  /// (docs/design-decisions.md#footprint-heat).
  std::uint8_t footprint_heat_weight = 16;
  /// In a launch of at least this many warps per SM, a warp whose lanes'
  /// sets cannot fit the footprint budget (its largest lane's unweighted
  /// bytes times the warp's lanes exceed footprint_kib) does not enter the
  /// footprint gate, which would let one such warp per SM run at a time; 0:
  /// such warps enter (alone) in every launch
  /// (stm/detail/admission.hpp, footprint_opens; docs/design-decisions.md#footprint-open).
  std::uint8_t footprint_open_warps = 16;
};
static_assert(sizeof(throttle_config) == 14 && std::is_trivially_copyable_v<throttle_config>);

/// Trivially copyable view of a lock table, passed by value into kernels.
struct lock_table_ref {
  std::uint32_t* words = nullptr;
  std::uint32_t num_locks = 0;
  std::uint32_t shift = 0;  // log2(bytes_per_lock)
  std::uint32_t spread = 0; // log2(words_per_lock)
  std::uintptr_t base = 0;
  std::uint64_t* clock = nullptr;       // commit clock; nullptr: the table has none
  std::uint64_t* stamps = nullptr;      // per lock (not spread): the clock of its last writer; with the clock only
  std::uint64_t* escalation = nullptr;  // escalation token (gate_* below): 0 free; nullptr: none
  // Admission gates (stm/detail/admission.hpp), one per SM: word 0 of a
  // group's 128-byte line counts the attempts inside, word 1 is its limit,
  // word 2 the footprint gate's: bits 0-23 the bytes of sets in local memory
  // inside, weighted by heat (footprint_charge), bits 24-31 the warps inside.
  // nullptr: no admission control.
  std::uint32_t* admission = nullptr;
  std::uint32_t admission_groups = 1;
  throttle_config throttle{};  // admission's knobs and the escalation attempt (above)

  STM_HD std::uint32_t index_of(const void* p) const {
    // The modulo only for an address outside the covered range: an integer
    // division is some twenty dependent instructions at the start of every
    // access.
    const auto i = static_cast<std::uint32_t>((reinterpret_cast<std::uintptr_t>(p) - base) >> shift);
    return i < num_locks ? i : i % num_locks;
  }
  STM_HD std::uint32_t* word_ptr(std::uint32_t idx) const { return words + (std::size_t(idx) << spread); }
  STM_HD atomic_ref<std::uint32_t> word(std::uint32_t idx) const { return atomic_ref<std::uint32_t>(*word_ptr(idx)); }
  STM_HD bool has_clock() const { return clock != nullptr; }
  STM_HD atomic_ref<std::uint64_t> clock_word() const { return atomic_ref<std::uint64_t>(*clock); }
  STM_HD atomic_ref<std::uint64_t> stamp(std::uint32_t idx) const { return atomic_ref<std::uint64_t>(stamps[idx]); }
  STM_HD atomic_ref<std::uint64_t> escalation_word() const { return atomic_ref<std::uint64_t>(*escalation); }
  static constexpr std::uint32_t admission_stride = 32;  // 128 bytes per group
  STM_HD atomic_ref<std::uint32_t> admission_active(std::uint32_t g) const {
    return atomic_ref<std::uint32_t>(admission[std::size_t(g) * admission_stride]);
  }
  STM_HD atomic_ref<std::uint32_t> admission_limit(std::uint32_t g) const {
    return atomic_ref<std::uint32_t>(admission[std::size_t(g) * admission_stride + 1]);
  }
  STM_HD atomic_ref<std::uint32_t> admission_footprint(std::uint32_t g) const {
    return atomic_ref<std::uint32_t>(admission[std::size_t(g) * admission_stride + 2]);
  }
  /// The footprint word's fields (above): one warp, and the bytes' mask.
  static constexpr std::uint32_t footprint_warp_shift = 24, footprint_warp = 1u << footprint_warp_shift;
  static constexpr std::uint32_t footprint_bytes_mask = footprint_warp - 1;

  /// The escalation token's fields (docs/stm-core.md#escalation):
  /// bits 0-31 the exclusive holder's tid + 1 (0: none), bit 32 an exclusive
  /// escalation waits (no new shared one enters), bits 33-63 the count of
  /// shared (read-only) escalated transactions.
  static constexpr std::uint64_t gate_holder_mask = 0xFFFFFFFFull;
  static constexpr std::uint64_t gate_intent = 1ull << 32;
  static constexpr std::uint32_t gate_reader_shift = 33;
  static constexpr std::uint64_t gate_reader = 1ull << gate_reader_shift;
};
static_assert(std::is_trivially_copyable_v<lock_table_ref>);

/// Owner of the lock words (all start unlocked at version 0).
class lock_table {
 public:
  /// num_locks >= 1; bytes_per_lock a power of two >= 4; words_per_lock a
  /// power of two from 1 to 32 (the spread above); clock: whether update
  /// commits keep the commit clock, escalation: whether long transactions may
  /// escalate (both above). Throws usage_error otherwise, or when the table
  /// does not fit in (device) memory.
  /// admission: whether attempts that keep aborting pass an adaptive gate
  /// per SM (stm/detail/admission.hpp); by default on, off when the
  /// environment variable STM_ADMISSION is 0 (docs/design-decisions.md#admission-control).
  lock_table(backend where, std::uint64_t num_locks, const void* base, std::uint64_t bytes_per_lock,
             std::uint32_t words_per_lock = 1, bool clock = true, bool escalation = true,
             bool admission = admission_default())
      : words_(where, checked_size(num_locks, words_per_lock)),
        sync_(where, 2 * sync_stride),
        stamps_(where, clock ? static_cast<std::size_t>(num_locks) : 0),
        admission_(where, admission ? std::size_t(admission_groups_of(where)) * lock_table_ref::admission_stride : 0) {
    if (bytes_per_lock < 4 || (bytes_per_lock & (bytes_per_lock - 1)) != 0)
      throw usage_error("lock coverage must be a power of two of at least 4 bytes, got " +
                        std::to_string(bytes_per_lock));
    ref_.words = words_.data();
    ref_.num_locks = static_cast<std::uint32_t>(num_locks);
    ref_.base = reinterpret_cast<std::uintptr_t>(base);
    while ((std::uint64_t(1) << ref_.shift) < bytes_per_lock) ++ref_.shift;
    while ((1u << ref_.spread) < words_per_lock) ++ref_.spread;
    ref_.clock = clock ? sync_.data() : nullptr;
    ref_.stamps = clock ? stamps_.data() : nullptr;
    ref_.escalation = escalation ? sync_.data() + sync_stride : nullptr;
    if (admission) {
      ref_.admission_groups = admission_groups_of(where);
      std::vector<std::uint32_t> init(std::size_t(ref_.admission_groups) * lock_table_ref::admission_stride, 0u);
      for (std::uint32_t g = 0; g < ref_.admission_groups; ++g)
        init[std::size_t(g) * lock_table_ref::admission_stride + 1] = initial_admission_limit;
      admission_.upload(init);
      ref_.admission = admission_.data();
    }
    ref_.throttle = throttle_from_environment();
  }

  /// STM_ADMISSION=1 in the environment turns admission control on for the
  /// tables built with the default (A/B runs without a rebuild).
  static bool admission_default() {
    const char* e = std::getenv("STM_ADMISSION");
    return e == nullptr || std::string(e) != "0";
  }
  bool has_admission() const { return ref_.admission != nullptr; }
  /// The throttle_config defaults, overridden from the environment:
  /// STM_ADMISSION_PATIENCE (0 to 65535), STM_ADMISSION_HEAT (0 to 1024),
  /// STM_ADMISSION_PAUSE_LOG2 (0 to 12), STM_ESCALATE_AFTER (0 to 1024),
  /// STM_ESCALATE_WHEN_FREE (0 or 1), STM_FOOTPRINT_KIB (0 to 4096),
  /// STM_FOOTPRINT_MIN_WARPS (0 to 64), STM_FOOTPRINT_HEAT_WEIGHT (0 to 64),
  /// STM_FOOTPRINT_OPEN_WARPS (0 to 64).
  /// usage_error for a value out of range (stm_bench checks them with its
  /// input, before any work). Every table reads them when it is built.
  static throttle_config throttle_from_environment() {
    throttle_config k;
    auto read = [](const char* name, std::uint64_t max, std::uint64_t fallback) -> std::uint64_t {
      const char* e = std::getenv(name);
      if (e == nullptr || *e == 0) return fallback;
      char* end = nullptr;
      const unsigned long long v = std::strtoull(e, &end, 10);
      if (*end != 0 || v > max)
        throw usage_error(std::string(name) + " must be an integer from 0 to " + std::to_string(max) + ", got " + e);
      return v;
    };
    k.admission_patience = static_cast<std::uint16_t>(read("STM_ADMISSION_PATIENCE", 65535, k.admission_patience));
    k.admission_heat = static_cast<std::uint16_t>(read("STM_ADMISSION_HEAT", 1024, k.admission_heat));
    k.admission_pause_log2 = static_cast<std::uint8_t>(read("STM_ADMISSION_PAUSE_LOG2", 12, k.admission_pause_log2));
    k.escalate_after = static_cast<std::uint16_t>(read("STM_ESCALATE_AFTER", 1024, k.escalate_after));
    k.escalate_when_free = static_cast<std::uint8_t>(read("STM_ESCALATE_WHEN_FREE", 1, k.escalate_when_free));
    k.footprint_kib = static_cast<std::uint16_t>(read("STM_FOOTPRINT_KIB", 4096, k.footprint_kib));
    k.footprint_min_warps = static_cast<std::uint8_t>(read("STM_FOOTPRINT_MIN_WARPS", 64, k.footprint_min_warps));
    k.footprint_heat_weight = static_cast<std::uint8_t>(read("STM_FOOTPRINT_HEAT_WEIGHT", 64, k.footprint_heat_weight));
    k.footprint_open_warps = static_cast<std::uint8_t>(read("STM_FOOTPRINT_OPEN_WARPS", 64, k.footprint_open_warps));
    return k;
  }
  throttle_config throttle() const { return ref_.throttle; }
  /// Between launches (kernels hold copies of ref()).
  void set_throttle(const throttle_config& k) { ref_.throttle = k; }
  /// Set every gate's limit (between launches: tests, tuning). It still
  /// adapts from there within [16, 2048] (stm/detail/admission.hpp).
  void set_admission_limits(std::uint32_t n) {
    if (!has_admission()) return;
    std::vector<std::uint32_t> all = admission_.to_vector();
    for (std::uint32_t g = 0; g < ref_.admission_groups; ++g) all[std::size_t(g) * lock_table_ref::admission_stride + 1] = n;
    admission_.upload(all);
  }
  /// Attempts inside a gate now, summed over the gates (0 between launches:
  /// every slot taken was given back).
  std::uint64_t admission_in_flight() const { return summed_over_groups(0); }
  /// Weighted bytes inside the footprint gates now, summed (0 between launches).
  std::uint64_t footprint_in_flight() const { return summed_over_groups(2, 0, lock_table_ref::footprint_bytes_mask); }
  /// Warps inside the footprint gates now, summed (0 between launches).
  std::uint64_t footprint_warps_in_flight() const { return summed_over_groups(2, lock_table_ref::footprint_warp_shift); }
  /// Each gate's limit now (tests, reports).
  std::vector<std::uint32_t> admission_limits() const {
    std::vector<std::uint32_t> out;
    if (!has_admission()) return out;
    const std::vector<std::uint32_t> all = admission_.to_vector();
    for (std::uint32_t g = 0; g < ref_.admission_groups; ++g)
      out.push_back(all[std::size_t(g) * lock_table_ref::admission_stride + 1]);
    return out;
  }

  lock_table_ref ref() const { return ref_; }
  std::uint32_t size() const { return ref_.num_locks; }
  backend where() const { return words_.where(); }
  std::uint32_t words_per_lock() const { return 1u << ref_.spread; }
  bool has_clock() const { return ref_.clock != nullptr; }
  /// The commit clock (0 without one) and the escalation token (tests: the
  /// token must be free after a run).
  std::uint64_t clock_value() const { return has_clock() ? sync_.to_vector()[0] : 0; }
  std::uint64_t escalation_holder() const { return sync_.to_vector()[sync_stride]; }

  /// A spread for a table of n locks: a 128-byte line per lock word up to
  /// 16,384 locks (2 MB), packed above: a small table is hot, and a line per
  /// lock word keeps CASes on different locks from queuing on one line; a
  /// large one is cold, and packing keeps it in L2
  /// (docs/design-decisions.md#lock-spread).
  static std::uint32_t auto_spread(std::uint64_t n) { return n <= 16384 ? 32u : 1u; }
  /// Bytes a table of n locks holds (its lock words, the stamps when it keeps
  /// the clock, the clock and token lines and the admission gates, counted
  /// for the largest GPU): what a memory estimate counts for it. Spread 0
  /// means auto_spread(n).
  static std::uint64_t footprint(std::uint64_t n, std::uint32_t words_per_lock = 0, bool clock = true) {
    const std::uint64_t spread = words_per_lock ? words_per_lock : auto_spread(n);
    return n * spread * 4 + (clock ? n * 8 : 0) + 2 * sync_stride * 8 + 256 * lock_table_ref::admission_stride * 4;
  }
  /// Copy of the lock words, lock i at [i] (tests: after a run every word must be free).
  std::vector<std::uint32_t> snapshot() const {
    std::vector<std::uint32_t> all = words_.to_vector();
    if (ref_.spread == 0) return all;
    std::vector<std::uint32_t> out(ref_.num_locks);
    for (std::uint32_t i = 0; i < ref_.num_locks; ++i) out[i] = all[std::size_t(i) << ref_.spread];
    return out;
  }

 private:
  /// Word k of every gate's line (0: attempts inside, 2: the footprint gate's),
  /// its field (shifted right by `shift`, then masked) summed; 0 without admission.
  std::uint64_t summed_over_groups(std::uint32_t k, std::uint32_t shift = 0, std::uint32_t mask = ~0u) const {
    std::uint64_t n = 0;
    if (!has_admission()) return n;
    const std::vector<std::uint32_t> all = admission_.to_vector();
    for (std::uint32_t g = 0; g < ref_.admission_groups; ++g)
      n += (all[std::size_t(g) * lock_table_ref::admission_stride + k] >> shift) & mask;
    return n;
  }
  static std::size_t checked_size(std::uint64_t n, std::uint32_t words_per_lock) {
    if (n == 0) throw usage_error("the lock table needs at least one lock");
    if (n > 0xFFFFFFFFull) throw usage_error("the lock table has at most 2^32-1 locks, asked for " + std::to_string(n));
    if (words_per_lock == 0 || words_per_lock > 32 || (words_per_lock & (words_per_lock - 1)) != 0)
      throw usage_error("lock spread must be a power of two from 1 to 32 words per lock, got " +
                        std::to_string(words_per_lock));
    return static_cast<std::size_t>(n) * words_per_lock;
  }
  static constexpr std::size_t sync_stride = 16;  // 128 bytes of 64-bit words: clock and token in separate lines
  /// Slots of a gate at the start: an SM's eighth (its limit adapts from there).
  static constexpr std::uint32_t initial_admission_limit = 256;
  /// One gate per SM on the GPU; one on the CPU (sm_id() is 0 there).
  static std::uint32_t admission_groups_of(backend where) {
    return where == backend::gpu ? std::max<std::uint32_t>(1u, sm_count(where)) : 1u;
  }
  buffer<std::uint32_t> words_;
  buffer<std::uint64_t> sync_;  // [0] commit clock, [sync_stride] escalation token
  buffer<std::uint64_t> stamps_;  // the lock stamps (lock_table_ref::stamps); empty without a clock
  buffer<std::uint32_t> admission_;  // the gates (lock_table_ref::admission)
  lock_table_ref ref_{};
};

}  // namespace stm

namespace stm {
/// Refuse (usage_error) a transactional launch with more logical threads than
/// the lock word's 19-bit owner field can name as distinct priorities.
inline void require_priorities(std::uint64_t threads) {
  if (threads > lock_word::max_threads)
    throw usage_error(std::to_string(threads) + " threads: PR-STM priorities are 19 bits, at most " +
                      std::to_string(lock_word::max_threads) + " threads per launch");
}

/// A transaction's logical thread id is its priority, so it must be below
/// lock_word::max_threads (rule thread-id; stm::transaction checks it when it
/// gets one). On the host (the CPU backend) a larger id throws usage_error,
/// which the launch rethrows; on the GPU the kernel traps and the launch fails
/// (STM_CUDA_CHECK_LAUNCH; the workloads refuse such a launch beforehand, on
/// the host, with require_priorities). With STM_CHECKS (debug builds) the
/// device prints the rule and the place first; without, it prints nothing: a
/// printf calls a function outside the kernel, and one such call anywhere in a
/// kernel puts a block-scope barrier in front of every fence of its commits
/// (docs/design-decisions.md#no-device-printf).
STM_HD inline void require_thread_id(std::uint32_t tid) {
  if (tid < lock_word::max_threads) return;
#if STM_ON_DEVICE
#if STM_CHECKS
  detail::check_failed("thread-id", "a transaction's thread id must be below lock_word::max_threads (524288)",
                       __FILE__, __LINE__);
#else
  __trap();
#endif
#else
  throw usage_error("rule thread-id broken: transaction thread id " + std::to_string(tid) +
                    " is not below lock_word::max_threads (" + std::to_string(lock_word::max_threads) +
                    "): PR-STM priorities are 19 bits");
#endif
}
}  // namespace stm
