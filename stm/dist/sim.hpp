// SPDX-License-Identifier: Apache-2.0
// stm/dist/sim.hpp - N simulated PEs in one process: the distributed space's
// words and lock words, each PE's in buffers of its own, on the CPU backend
// (what the tests and TSan check) or on one GPU (the protocol's cost beside
// the single-GPU core, without a second GPU).
#pragma once

#include <cstdint>
#include <vector>

#include "stm/backend.hpp"
#include "stm/buffer.hpp"
#include "stm/dist/detail/layout.hpp"
#include "stm/dist/detail/transport.hpp"
#include "stm/lock_word.hpp"

namespace stm::dist {

/// Owner of a simulated space: per PE a data buffer (words_per_pe words, all
/// zero at first) and a lock buffer (every lock free at version 0).
class sim_space {
 public:
  sim_space(backend where, const layout& shape) : shape_(checked(shape)) {
    data_.reserve(shape.npes);
    locks_.reserve(shape.npes);
    std::vector<std::uint32_t*> bases(2 * std::size_t(shape.npes));
    for (std::uint32_t p = 0; p < shape.npes; ++p) {
      data_.emplace_back(where, shape.words_per_pe);
      locks_.emplace_back(where, static_cast<std::size_t>(shape.lock_words_per_pe()));
      bases[static_cast<std::uint32_t>(region::data) * shape.npes + p] = data_.back().data();
      bases[static_cast<std::uint32_t>(region::locks) * shape.npes + p] = locks_.back().data();
    }
    table_ = buffer<std::uint32_t*>(where, bases.size());
    table_.upload(bases);
  }

  const layout& shape() const { return shape_; }
  backend where() const { return table_.where(); }
  sim_transport transport() const { return sim_transport{table_.data(), shape_.npes}; }

  /// PE pe's words (host copies).
  std::vector<std::uint32_t> words(std::uint32_t pe) const { return data_.at(pe).to_vector(); }
  void set_words(std::uint32_t pe, const std::vector<std::uint32_t>& v) { data_.at(pe).upload(v); }
  /// PE pe's lock words, lock i at [i] (after a run every one must be free).
  std::vector<std::uint32_t> lock_words(std::uint32_t pe) const {
    const std::vector<std::uint32_t> all = locks_.at(pe).to_vector();
    std::vector<std::uint32_t> out(shape_.locks_per_pe());
    for (std::uint32_t i = 0; i < out.size(); ++i) out[i] = all[std::size_t(i) << shape_.spread];
    return out;
  }
  /// Locks of every PE that are not free (0 after a clean run).
  std::uint64_t held_locks() const {
    std::uint64_t n = 0;
    for (std::uint32_t p = 0; p < shape_.npes; ++p)
      for (std::uint32_t w : lock_words(p)) n += lock_word::is_free(w) ? 0 : 1;
    return n;
  }

 private:
  static const layout& checked(const layout& l) {
    check_layout(l);
    return l;
  }
  layout shape_;
  std::vector<buffer<std::uint32_t>> data_, locks_;
  buffer<std::uint32_t*> table_;
};

}  // namespace stm::dist
