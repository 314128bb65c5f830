// SPDX-License-Identifier: Apache-2.0
// Test helpers shared by the list test programs: the three sorted-set
// variants (0 harris, 1 bucketed, 2 tx) behind one interface.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "cmp/prstm.hpp"
#include "containers/list/harris_set.hpp"
#include "containers/list/tx_set.hpp"

namespace list_test {

using stm::op_status;

// Three variants behind one interface for the tests (impl 0 harris, 1 bucketed, 2 tx).
struct any_set {
  int impl;
  stm::list::harris_set_ref h;
  stm::list::tx_set_ref<> t;
  STM_HD op_status apply(std::uint32_t tid, std::uint32_t kind, std::uint32_t key) const {
    if (impl == 2) {
      if (kind == 0) return t.insert(tid, key);
      if (kind == 1) return t.remove(tid, key);
      return t.contains(tid, key);
    }
    if (kind == 0) return h.insert(tid, key);
    if (kind == 1) return h.remove(tid, key);
    return h.contains(tid, key);
  }
};
static_assert(std::is_trivially_copyable_v<any_set>);

struct owned_set {
  std::unique_ptr<stm::list::harris_set> h;
  std::unique_ptr<stm::list::tx_set> t;
  owned_set(stm::backend where, int impl, std::uint64_t cap, stm::list::bucket_hint hint,
            stm::one_shot_mode mode = stm::one_shot_mode::direct) {
    if (impl == 2) {
      t = std::make_unique<stm::list::tx_set>(where, cap, hint);
      t->set_one_shot(mode);
    } else {
      h = std::make_unique<stm::list::harris_set>(where, cap, impl == 1 ? hint : stm::list::bucket_hint{});
    }
  }
  any_set ref(int impl) const { return {impl, h ? h->ref() : stm::list::harris_set_ref{}, t ? t->ref() : stm::list::tx_set_ref<>{}}; }
  std::string check(std::vector<std::uint32_t>* k = nullptr) const { return h ? h->check(k) : t->check(k); }
  std::uint64_t reclaim() { return h ? h->reclaim() : t->reclaim(); }
};

inline const char* impl_name(int i) { return i == 0 ? "harris" : i == 1 ? "bucketed" : "tx"; }

}  // namespace list_test
