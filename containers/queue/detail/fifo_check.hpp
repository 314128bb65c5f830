// SPDX-License-Identifier: Apache-2.0
// containers/queue/detail/fifo_check.hpp - host-side check of a recorded
// producer/consumer run (tests and stm_bench use it).
//
// Items are tagged (producer << 32) | sequence, producer p enqueuing sequences
// 0, 1, ..., per_producer - 1 in order. Each consumer records what it dequeued,
// in order, in its own row. The check proves
//  - conservation: every item that was enqueued was dequeued exactly once and
//    nothing else came out;
//  - per-producer FIFO: within each consumer's row, items of one producer
//    appear in increasing sequence (what any FIFO queue guarantees).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace stm::queue::detail {

inline std::uint64_t fifo_item(std::uint32_t producer, std::uint32_t seq) {
  return (std::uint64_t(producer) << 32) | seq;
}

/// rows: consumers x per_consumer items (row-major). Returns "" when both
/// properties hold, else the first violation found.
inline std::string check_fifo_run(const std::vector<std::uint64_t>& rows, std::uint64_t consumers,
                                  std::uint64_t per_consumer, std::uint64_t producers, std::uint64_t per_producer) {
  if (rows.size() != consumers * per_consumer) return "recorded " + std::to_string(rows.size()) + " items, expected " +
                                                       std::to_string(consumers * per_consumer);
  if (consumers * per_consumer != producers * per_producer)
    return "consumers take " + std::to_string(consumers * per_consumer) + " items but producers make " +
           std::to_string(producers * per_producer);
  std::vector<std::uint8_t> seen(producers * per_producer, 0);
  std::vector<std::uint64_t> last(producers, 0), stamp(producers, ~std::uint64_t(0));
  for (std::uint64_t c = 0; c < consumers; ++c) {
    for (std::uint64_t j = 0; j < per_consumer; ++j) {
      const std::uint64_t v = rows[c * per_consumer + j];
      const std::uint64_t p = v >> 32, s = v & 0xFFFFFFFFu;
      if (p >= producers || s >= per_producer)
        return "consumer " + std::to_string(c) + " dequeued an item never enqueued (producer " + std::to_string(p) +
               ", sequence " + std::to_string(s) + ")";
      if (seen[p * per_producer + s]++)
        return "item (producer " + std::to_string(p) + ", sequence " + std::to_string(s) + ") dequeued twice";
      if (stamp[p] == c && s <= last[p])
        return "consumer " + std::to_string(c) + " saw producer " + std::to_string(p) + "'s item " + std::to_string(s) +
               " after its item " + std::to_string(last[p]) + " (FIFO order broken)";
      stamp[p] = c;
      last[p] = s;
    }
  }
  // consumers * per_consumer == producers * per_producer and no duplicates:
  // every item was seen exactly once.
  return "";
}

}  // namespace stm::queue::detail
