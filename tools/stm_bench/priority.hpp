// SPDX-License-Identifier: Apache-2.0
// tools/stm_bench/priority.hpp - the --priority option of the workloads that
// run PR-STM: tid, the paper's rule (a transaction's priority is its logical
// thread id), or aging (cmp/prstm_aging.hpp: consecutive aborts first, then
// the thread id), so that one binary compares the two at one point.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "bench.hpp"
#include "cmp/prstm_aging.hpp"
#include "cmp/registry.hpp"

namespace bench {

/// The option's declaration (default tid).
inline option_decl priority_option() {
  return choice("priority", "tid", {"tid", "aging"},
                "prstm's priority: tid, the thread id (the paper's); aging, consecutive aborts first, then the "
                "thread id (cmp/prstm_aging.hpp)");
}

/// Refuses --priority other than tid with a manager other than prstm.
inline void check_priority(const options& o) {
  if (o.get("priority") != "tid" && o.cm != stm::cm::prstm::name)
    throw stm::usage_error("--priority " + o.get("priority") + " applies to --cm prstm only, got --cm " + o.cm);
}

/// A result's "priority" field: --priority on a transactional row under
/// prstm, empty on the others (no priority rule to name).
inline std::string priority_field(const options& o, bool transactional) {
  return transactional && o.cm == stm::cm::prstm::name ? o.get("priority") : "";
}

/// f(manager): the manager --cm names, or, under --priority aging, prstm_aging
/// over a rank table of `threads` logical threads on `where` (alive for the call).
template <class F>
auto with_manager(const std::string& cm, const std::string& priority, const stm::manager_tuning& tune, stm::backend where,
                  std::uint32_t threads, F&& f) {
  if (priority == "aging") {
    const stm::cm::rank_table ranks(where, threads);
    return f(ranks.bind(stm::cm::with_tuning<stm::cm::prstm_aging>(tune)));
  }
  return stm::cm::dispatch(cm, tune, std::forward<F>(f));
}

}  // namespace bench
