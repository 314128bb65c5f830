// SPDX-License-Identifier: Apache-2.0
// stm/dist/sim.hpp - N simulated PEs in one process: the distributed space's
// words and lock words, each PE's in buffers of its own, on the CPU backend
// (what the tests and TSan check) or on one GPU (the protocol's cost beside
// the single-GPU core, without a second GPU).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stm/backend.hpp"
#include "stm/buffer.hpp"
#include "stm/error.hpp"
#include "stm/dist/detail/layout.hpp"
#include "stm/dist/detail/transport.hpp"
#include "stm/lock_word.hpp"

namespace stm::dist {

/// Owner of a simulated space: the data words of every PE in one buffer
/// (words_per_pe per PE, all zero at first) and their lock words in another
/// (lock_words_per_pe per PE, every lock free at version 0); PE p's part of
/// each at p x its words per PE.
class sim_space {
 public:
  sim_space(backend where, const layout& shape)
      : shape_(checked(shape)),
        data_(where, std::size_t(shape.npes) * shape.words_per_pe),
        locks_(where, static_cast<std::size_t>(std::uint64_t(shape.npes) * shape.lock_words_per_pe())) {}

  const layout& shape() const { return shape_; }
  backend where() const { return data_.where(); }
  sim_transport transport() const {
    sim_transport t;
    t.base[static_cast<std::uint32_t>(region::data)] = data_.data();
    t.base[static_cast<std::uint32_t>(region::locks)] = locks_.data();
    t.stride[static_cast<std::uint32_t>(region::data)] = shape_.words_per_pe;
    t.stride[static_cast<std::uint32_t>(region::locks)] = shape_.lock_words_per_pe();
    return t;
  }

  /// PE pe's words (host copies).
  std::vector<std::uint32_t> words(std::uint32_t pe) const {
    std::vector<std::uint32_t> out(shape_.words_per_pe);
    data_.download(out.data(), out.size(), std::size_t(checked_pe(pe)) * shape_.words_per_pe);
    return out;
  }
  void set_words(std::uint32_t pe, const std::vector<std::uint32_t>& v) {
    if (v.size() > shape_.words_per_pe) throw usage_error("set_words: more words than a PE holds");
    data_.upload(v.data(), v.size(), std::size_t(checked_pe(pe)) * shape_.words_per_pe);
  }
  /// PE pe's lock words, lock i at [i] (after a run every one must be free).
  std::vector<std::uint32_t> lock_words(std::uint32_t pe) const {
    std::vector<std::uint32_t> all(static_cast<std::size_t>(shape_.lock_words_per_pe()));
    locks_.download(all.data(), all.size(), static_cast<std::size_t>(checked_pe(pe) * shape_.lock_words_per_pe()));
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
  std::uint64_t checked_pe(std::uint32_t pe) const {
    if (pe >= shape_.npes) throw usage_error("PE " + std::to_string(pe) + " of a space of " + std::to_string(shape_.npes));
    return pe;
  }
  layout shape_;
  buffer<std::uint32_t> data_, locks_;
};

}  // namespace stm::dist
