// SPDX-License-Identifier: Apache-2.0
// containers/stack/detail/batch_exchanger.hpp - grid-wide elimination of whole
// batches (the elimination-backoff of Hendler, Shavit and Yerushalmi, at the
// granularity of a warp leader's batch): a push batch that lost its CAS on the
// stack's top offers its values in a slot for a short while; a pop batch that
// lost its CAS takes values off the top of an offer. One offer can serve
// several pop batches, each taking the values at the top of what is left.
//
// Slot state word (64 bits): seq << 8 | count << 2 | st
//   st    bits 0-1   free 0, filling 1, offered 2
//   count bits 2-7   while offered: values still in the offer, 0..32; they are
//                    values[0..count), values[count-1] the top
//   seq   bits 8-63  round of the slot: free(seq) -> filling(seq) ->
//                    offered(seq, k) -> ... -> free(seq + 1)
// Only the offering push moves a slot free -> filling -> offered and back to
// free(seq + 1) (its withdraw); a pop only lowers the count of an offered
// state. Within a round the state never repeats, and the seq of a round is
// never reused (56 bits), so a pop's CAS offered(seq, c) -> offered(seq, c - n)
// succeeds only if nothing changed since it read values[c-n..c): those are its
// values, and nobody else can take them.
//
// Synchronization table
//   push: CAS free(seq) -> filling(seq) (acquire: pairs with the release of the
//         previous round's withdraw, whose release sequence holds that round's
//         takes, so their value loads happen before our value stores);
//         value stores (relaxed); store offered(seq, k) (release)
//   pop:  load offered(seq, c) (acquire: pairs with the offer's release store,
//         continued by the release sequence of earlier takes' RMWs); value
//         loads (relaxed); CAS -> offered(seq, c - n) (acq_rel; its release
//         orders the value loads before the withdraw and the slot's next round)
//   push: polls the count (relaxed), then withdraws with CAS offered(seq, c) ->
//         free(seq + 1) (acq_rel; on failure it retries with the lower count it
//         read). The count it withdraws with is what no pop took.
// Linearization: a pop's successful CAS completes its n pops, each paired with
// one of the offered pushes (push x immediately followed by pop x); both calls
// are in progress then (the pusher is still waiting in the slot).
// Progress: an offer waits a bounded time (wait_ns) and is always withdrawn by
// its pusher; a withdraw CAS fails only when a pop took values, at most count
// times. Nothing here blocks anyone else.
#pragma once

#include <cstdint>

#include "stm/platform.hpp"

namespace stm::stack::detail {

inline constexpr std::uint32_t batch_max = 32;

struct alignas(128) batch_slot {
  std::uint64_t state;
  std::uint64_t eliminated;  // values taken through this slot (diagnostics; relaxed counter)
  std::uint64_t values[batch_max];
};

inline constexpr std::uint64_t bx_free = 0, bx_filling = 1, bx_offered = 2;
/// Poll gap of a waiting offer.
inline constexpr std::uint32_t bx_poll_ns = 128;

STM_HD inline std::uint64_t bx_st(std::uint64_t s) { return s & 3u; }
STM_HD inline std::uint32_t bx_count(std::uint64_t s) { return static_cast<std::uint32_t>(s >> 2) & 63u; }
STM_HD inline std::uint64_t bx_seq_bits(std::uint64_t s) { return s & ~std::uint64_t(0xFF); }

/// First slot among slots[(start + i) % count], i < count, whose state is
/// `want` (for offered: with values left); count when none. Loads in chunks
/// of four independent relaxed loads. `seen` receives the state read.
STM_HD inline std::uint32_t bx_find(batch_slot* slots, std::uint32_t count, std::uint32_t start, std::uint64_t want,
                                    std::uint64_t& seen) {
  constexpr std::uint32_t chunk = 4;
  for (std::uint32_t base = 0; base < count; base += chunk) {
    std::uint64_t s[chunk];
    std::uint32_t at[chunk];
    STM_UNROLL
    for (std::uint32_t j = 0; j < chunk; ++j) {
      std::uint32_t i = start + (base + j < count ? base + j : 0u);
      if (i >= count) i -= count;
      at[j] = i;
      s[j] = atomic_ref<std::uint64_t>(slots[i].state).load(memory_order_relaxed);
    }
    for (std::uint32_t j = 0; j < chunk && base + j < count; ++j)
      if (bx_st(s[j]) == want && (want != bx_offered || bx_count(s[j]) > 0)) {
        seen = s[j];
        return at[j];
      }
  }
  return count;
}

/// Offer vals[0..k) (k in 1..32, vals[k-1] the top) in a free slot among
/// slots[0..count) (searched from `start`), wait up to wait_ns for pops, then
/// withdraw. Returns how many values pops took: always the top ones,
/// vals[k-n..k). `offered` tells whether a slot was free (else nothing waited).
STM_HD inline std::uint32_t offer_batch(batch_slot* slots, std::uint32_t count, std::uint32_t start,
                                        const std::uint64_t* vals, std::uint32_t k, std::uint32_t wait_ns,
                                        bool& offered) {
  offered = false;
  std::uint64_t s = 0;
  const std::uint32_t i = bx_find(slots, count, start, bx_free, s);
  if (i == count) return 0;
  atomic_ref<std::uint64_t> st(slots[i].state);
  const std::uint64_t seq = bx_seq_bits(s);
  // acquire: the previous round's value loads (by its takes) happen before our value stores
  if (!st.compare_exchange_strong(s, seq | bx_filling, memory_order_acquire, memory_order_relaxed)) return 0;
  offered = true;
  for (std::uint32_t j = 0; j < k; ++j) atomic_ref<std::uint64_t>(slots[i].values[j]).store(vals[j], memory_order_relaxed);
  std::uint64_t cur = seq | (std::uint64_t(k) << 2) | bx_offered;
  st.store(cur, memory_order_release);  // the values before the offer; pairs with take_batch's acquire
  for (std::uint32_t spent = 0; spent < wait_ns; spent += bx_poll_ns) {
    platform::backoff_ns(bx_poll_ns);
    cur = st.load(memory_order_relaxed);
    if (bx_count(cur) == 0) break;
  }
  // Withdraw; a failure means a pop lowered the count: retry with what it left.
  while (!st.compare_exchange_strong(cur, seq + 0x100u, memory_order_acq_rel, memory_order_relaxed)) {
  }
  const std::uint32_t taken = k - bx_count(cur);
  if (taken > 0) atomic_ref<std::uint64_t>(slots[i].eliminated).fetch_add(taken, memory_order_relaxed);
  return taken;
}

/// Take up to m (1..32) values from an offer among slots[0..count) (searched
/// from `start`): out[0..n) receives them, the offer's top first. Returns n
/// (0: no offer found, or it was withdrawn or emptied meanwhile).
STM_HD inline std::uint32_t take_batch(batch_slot* slots, std::uint32_t count, std::uint32_t start, std::uint64_t* out,
                                       std::uint32_t m) {
  std::uint64_t s = 0;
  const std::uint32_t i = bx_find(slots, count, start, bx_offered, s);
  if (i == count) return 0;
  atomic_ref<std::uint64_t> st(slots[i].state);
  s = st.load(memory_order_acquire);  // pairs with the offer's release store (continued by earlier takes)
  // A failed CAS means another pop took values (or the offer ended): a few tries at most.
  for (std::uint32_t tries = 0; tries < 4 && bx_st(s) == bx_offered && bx_count(s) > 0; ++tries) {
    const std::uint32_t c = bx_count(s), n = c < m ? c : m;
    for (std::uint32_t j = 0; j < n; ++j)
      out[j] = atomic_ref<std::uint64_t>(slots[i].values[c - 1 - j]).load(memory_order_relaxed);
    // acq_rel: release orders our value loads before the withdraw and the next round;
    // acquire on failure: the state read is used for the next try's value loads
    if (st.compare_exchange_strong(s, s - (std::uint64_t(n) << 2), memory_order_acq_rel, memory_order_acquire))
      return n;
  }
  return 0;
}

}  // namespace stm::stack::detail
