// SPDX-License-Identifier: Apache-2.0
// tools/stm_bench/memo.hpp - keep an expensive host-side input across the
// repeats, implementations and sweep points of one invocation.
#pragma once

#include <memory>

namespace bench {

/// The value make() built for `key`, built again only when a different key is
/// asked for. One cache per call site (make is a lambda, a type of its own);
/// the previous value is freed before the next is built, so at most one is
/// held at a time.
template <class Key, class Make>
const auto& memo(const Key& key, Make&& make) {
  using value_t = decltype(make());
  static Key last;
  static std::unique_ptr<value_t> value;
  if (!value || !(key == last)) {
    value.reset();
    value = std::make_unique<value_t>(make());
    last = key;
  }
  return *value;
}

}  // namespace bench
