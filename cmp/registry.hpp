// SPDX-License-Identifier: Apache-2.0
// cmp/registry.hpp - turn a contention manager's name into its type, once.
//
//   stm::cm::dispatch(name, [&](auto cm) { run_kernel<decltype(cm)>(...); });
//
// Throws stm::usage_error listing the known names for an unknown one. The
// host calls this once per run; device code only ever sees the type.
//
//   prstm    PR-STM's priority rule: pre-locks, stealing, lower id wins
//   gpustm   GPU-STM-style comparator: sorted lock log, ordered commit locks,
//            hierarchical (version, then value) validation
//   backoff  TinySTM CM_BACKOFF: abort on conflict, randomized exponential
//            back-off before the retry
//   delay    TinySTM CM_DELAY: abort on conflict, wait until the contended
//            lock changes hands before the retry
#pragma once

#include <string>
#include <utility>

#include "cmp/backoff.hpp"
#include "cmp/contention_manager.hpp"
#include "cmp/delay.hpp"
#include "cmp/gpustm.hpp"
#include "cmp/prstm.hpp"
#include "stm/error.hpp"

namespace stm::cm {

/// Names users type, in the order --help lists them.
inline const char* const known_names = "prstm, gpustm, backoff, delay";

/// Call f(cm) with the manager named `name`, built with the given tuning.
template <class F>
decltype(auto) dispatch(const std::string& name, const manager_tuning& t, F&& f) {
  if (name == prstm::name) return std::forward<F>(f)(with_tuning<prstm>(t));
  if (name == gpustm::name) return std::forward<F>(f)(with_tuning<gpustm>(t));
  if (name == backoff::name) return std::forward<F>(f)(with_tuning<backoff>(t));
  if (name == delay::name) return std::forward<F>(f)(with_tuning<delay>(t));
  throw usage_error("unknown contention manager '" + name + "' (known: " + known_names + ")");
}

/// Same, with every tuning knob off.
template <class F>
decltype(auto) dispatch(const std::string& name, F&& f) {
  return dispatch(name, manager_tuning{}, std::forward<F>(f));
}

}  // namespace stm::cm
