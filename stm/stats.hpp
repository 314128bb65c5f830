// SPDX-License-Identifier: Apache-2.0
// stm/stats.hpp - what a run counts: commits, and aborts by cause.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "stm/buffer.hpp"
#include "stm/platform.hpp"
#include "stm/tx_config.hpp"

namespace stm {

/// Per-thread counters, kept in the transaction descriptor.
struct tx_counters {
  std::uint64_t commits = 0;
  std::uint64_t aborts[num_abort_causes] = {};
  std::uint64_t steals = 0;  ///< pre-locks this thread stole from lower priorities
  std::uint64_t escalations = 0;  ///< attempts run escalated (stm/detail/tx_core.hpp)

  STM_HD std::uint64_t total_aborts() const {
    std::uint64_t s = 0;
    for (auto a : aborts) s += a;
    return s;
  }
  /// Add another descriptor's counters (every field).
  STM_HD tx_counters& operator+=(const tx_counters& o) {
    commits += o.commits;
    for (std::uint32_t i = 0; i < num_abort_causes; ++i) aborts[i] += o.aborts[i];
    steals += o.steals;
    escalations += o.escalations;
    return *this;
  }
};

/// Slots of the global statistics block.
inline constexpr std::uint32_t stats_slot_commits = 0;
inline constexpr std::uint32_t stats_slot_aborts = 1;  // num_abort_causes slots
inline constexpr std::uint32_t stats_slot_steals = stats_slot_aborts + num_abort_causes;
inline constexpr std::uint32_t stats_slot_escalations = stats_slot_steals + 1;
inline constexpr std::uint32_t stats_slots = stats_slot_escalations + 1;

/// Trivially copyable view of the global statistics block.
struct stats_ref {
  std::uint64_t* slots = nullptr;

  /// Add one thread's counters (call once per thread, at its end).
  STM_HD void add(const tx_counters& c) const {
    add_slot(stats_slot_commits, c.commits);
    for (std::uint32_t i = 0; i < num_abort_causes; ++i) add_slot(stats_slot_aborts + i, c.aborts[i]);
    add_slot(stats_slot_steals, c.steals);
    add_slot(stats_slot_escalations, c.escalations);
  }

 private:
  STM_HD void add_slot(std::uint32_t i, std::uint64_t v) const {
    if (v) atomic_ref<std::uint64_t>(slots[i]).fetch_add(v, memory_order_relaxed);
  }
};
static_assert(std::is_trivially_copyable_v<stats_ref>);

/// Host-side totals of a run.
struct tx_stats {
  std::uint64_t commits = 0;
  std::uint64_t aborts[num_abort_causes] = {};
  std::uint64_t steals = 0;
  std::uint64_t escalations = 0;

  std::uint64_t total_aborts() const {
    std::uint64_t s = 0;
    for (auto a : aborts) s += a;
    return s;
  }
  /// aborts / (commits + aborts)
  double abort_rate() const {
    const double all = double(commits) + double(total_aborts());
    return all > 0 ? double(total_aborts()) / all : 0.0;
  }
  tx_stats& operator+=(const tx_stats& o) {
    commits += o.commits;
    for (std::uint32_t i = 0; i < num_abort_causes; ++i) aborts[i] += o.aborts[i];
    steals += o.steals;
    escalations += o.escalations;
    return *this;
  }
};

/// Owner of a statistics block on a backend.
class stats_block {
 public:
  explicit stats_block(backend where) : slots_(where, stats_slots) {}
  stats_ref ref() const { return stats_ref{slots_.data()}; }
  void reset() { slots_.fill(0); }
  tx_stats read() const {
    auto v = slots_.to_vector();
    tx_stats s;
    s.commits = v[stats_slot_commits];
    for (std::uint32_t i = 0; i < num_abort_causes; ++i) s.aborts[i] = v[stats_slot_aborts + i];
    s.steals = v[stats_slot_steals];
    s.escalations = v[stats_slot_escalations];
    return s;
  }

 private:
  buffer<std::uint64_t> slots_;
};

}  // namespace stm
