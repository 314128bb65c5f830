// SPDX-License-Identifier: Apache-2.0
// tools/stm_bench/one_shot.hpp - the --one-shot option of the workloads that
// run a boosted set (list: tx_set; skiplist: tx_skiplist): how its one-shot
// insert and remove run (stm::one_shot_mode, containers/detail/boost.hpp),
// so that one binary compares the modes at one point.
#pragma once

#include <string>
#include <vector>

#include "bench.hpp"
#include "containers/detail/boost.hpp"

namespace bench {

/// The option's declaration (default: the build's default mode).
inline option_decl one_shot_option() {
  std::vector<std::string> names;
  for (stm::one_shot_mode m : stm::all_one_shot_modes) names.push_back(stm::to_string(m));
  return choice("one-shot", stm::to_string(stm::default_one_shot_mode), names,
                "tx: how its one-shot insert and remove run (containers/detail/boost.hpp, one_shot_mode): direct "
                "(no-op answers from a lookup, a change by a single-word commit applied from the search's "
                "position), direct-search (the apply searches again), precheck (no-op answers from a lookup, a "
                "change by a transaction), tx (every update a transaction); the skiplist map's erase runs as remove, its "
                "put is always a transaction");
}

/// --one-shot's mode; usage_error when the build fixes another
/// (STM_BOOST_ONE_SHOT).
inline stm::one_shot_mode one_shot_from(const options& o) {
  const stm::one_shot_mode m = stm::one_shot_mode_from(o.get("one-shot"));
  stm::check_one_shot_mode(m);
  return m;
}

}  // namespace bench
