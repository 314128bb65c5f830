// SPDX-License-Identifier: Apache-2.0
// containers/stack/detail/exchanger.hpp - grid-wide elimination slots (the
// elimination back-off of Hendler, Shavit and Yerushalmi, SPAA 2004, as the
// Scan Stack uses it):
// a push that lost a CAS offers its value in a random slot for a short while;
// a pop that lost a CAS looks for an offer in a random slot and takes it.
//
// Slot state word: seq << 2 | st, st in {free 0, filling 1, offered 2, taken 3}.
// The sequence number grows with every offer, so a pop's CAS offered -> taken
// only succeeds on the very offer whose value it read.
//
// Synchronization table
//   pusher: CAS free->filling (acquire) ; value store ; store offered (release)
//   popper: load offered (acquire, pairs with the offer's release) ; value load ;
//           CAS offered->taken (acq_rel: the value load happens before the
//           pusher frees the slot, whose failed withdraw CAS reads it with acquire)
//   pusher: withdraw CAS offered->free(seq+1) (acq_rel) or, when taken,
//           store free(seq+1) (release: pairs with the next pusher's acquire CAS)
#pragma once

#include <cstdint>

#include "stm/platform.hpp"

namespace stm::stack::detail {

struct exchange_slot {
  std::uint32_t state;
  std::uint32_t unused;
  std::uint64_t value;
};

inline constexpr std::uint32_t xs_free = 0, xs_filling = 1, xs_offered = 2, xs_taken = 3;

/// Offer `bits` in *slot for about wait_ns; true when a pop took it.
STM_HD inline bool exchange_push(exchange_slot* slot, std::uint64_t bits, std::uint32_t wait_ns) {
  atomic_ref<std::uint32_t> st(slot->state);
  std::uint32_t s = st.load(memory_order_relaxed);
  if ((s & 3u) != xs_free) return false;
  const std::uint32_t seq = s >> 2;
  // acquire: the previous round's pop (its value load) happens before our value store
  if (!st.compare_exchange_strong(s, (seq << 2) | xs_filling, memory_order_acquire, memory_order_relaxed)) return false;
  atomic_ref<std::uint64_t>(slot->value).store(bits, memory_order_relaxed);
  st.store((seq << 2) | xs_offered, memory_order_release);  // the value before the offer; pairs with exchange_pop's acquire
  for (std::uint32_t spent = 0; spent < wait_ns; spent += 256) {
    platform::backoff_ns(256);
    if ((st.load(memory_order_relaxed) & 3u) == xs_taken) break;
  }
  std::uint32_t expect = (seq << 2) | xs_offered;
  // acq_rel: on failure we read the pop's taken (its value load is before our reuse)
  if (st.compare_exchange_strong(expect, ((seq + 1) << 2) | xs_free, memory_order_acq_rel, memory_order_acquire))
    return false;  // withdrawn: nobody took it
  st.store(((seq + 1) << 2) | xs_free, memory_order_release);  // taken: free the slot for the next offer
  return true;
}

/// Take an offer from *slot if there is one; true with its bits in `out`.
STM_HD inline bool exchange_pop(exchange_slot* slot, std::uint64_t& out) {
  atomic_ref<std::uint32_t> st(slot->state);
  std::uint32_t s = st.load(memory_order_acquire);  // pairs with the offer's release store
  if ((s & 3u) != xs_offered) return false;
  const std::uint64_t v = atomic_ref<std::uint64_t>(slot->value).load(memory_order_relaxed);
  if (!st.compare_exchange_strong(s, (s & ~3u) | xs_taken, memory_order_acq_rel, memory_order_relaxed)) return false;
  out = v;
  return true;
}

}  // namespace stm::stack::detail
