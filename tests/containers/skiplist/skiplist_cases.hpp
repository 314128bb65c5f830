// SPDX-License-Identifier: Apache-2.0
// Test helpers shared by the skiplist test programs: both variants behind one
// owner, and a loop over the variants (native, and tx under every manager).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "cmp/registry.hpp"
#include "containers/skiplist/lockfree_skiplist.hpp"
#include "containers/skiplist/tx_skiplist.hpp"
#include "workloads/skiplist/skiplist.hpp"

namespace skiplist_test {

using stm::op_status;
template <class CM>
using any_skiplist = stm::workloads::skiplist::any_skiplist<CM>;  // apply(tid, kind 0/1/2, key, counters)

/// Which skiplist a test runs: the native one or the transactional one (with
/// how its one-shot updates run); converts to "is it the transactional one".
struct variant {
  bool tx = false;
  stm::one_shot_mode mode = stm::one_shot_mode::direct;
  operator bool() const { return tx; }
};

struct owned_skiplist {
  std::unique_ptr<stm::skiplist::tx_skiplist> t;
  std::unique_ptr<stm::skiplist::lockfree_skiplist> n;
  owned_skiplist(stm::backend where, variant v, std::uint64_t capacity, std::uint32_t levels = 5) {
    if (v.tx) {
      t = std::make_unique<stm::skiplist::tx_skiplist>(where, capacity, levels);
      t->set_one_shot(v.mode);
    } else {
      n = std::make_unique<stm::skiplist::lockfree_skiplist>(where, capacity, levels);
    }
  }
  template <class CM>
  any_skiplist<CM> ref(CM cm = CM{}) const {
    return {t != nullptr, t ? t->ref(cm) : stm::skiplist::tx_skiplist_ref<CM>{},
            n ? n->ref() : stm::skiplist::lockfree_skiplist_ref{}};
  }
  std::string check(std::vector<std::uint32_t>* k = nullptr) const { return t ? t->check(k) : n->check(k); }
  std::uint64_t reclaim() { return t ? t->reclaim() : n->reclaim(); }
  bool locks_free() const { return t ? t->locks_free() : true; }
  std::vector<std::uint32_t> free_nodes() const { return n ? n->free_nodes() : std::vector<std::uint32_t>{}; }
};

/// f(cm, variant, name) for the native variant and the tx variant under every
/// built-in manager.
template <class F>
void each_variant(F&& f) {
  constexpr variant tx{true};
  f(stm::cm::prstm{}, variant{}, "native");
  f(stm::cm::prstm{}, tx, "tx/prstm");
  f(stm::cm::gpustm{}, tx, "tx/gpustm");
  f(stm::cm::backoff{}, tx, "tx/backoff");
  f(stm::cm::delay{}, tx, "tx/delay");
}

}  // namespace skiplist_test
