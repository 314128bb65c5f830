// cmp/registry.hpp - turn a contention manager's name into its type, once.
//
//   stm::cm::dispatch(name, [&](auto cm) { run_kernel<decltype(cm)>(...); });
//
// Throws stm::usage_error listing the known names for an unknown one. The
// host calls this once per run; device code only ever sees the type.
#pragma once

#include <string>
#include <utility>

#include "cmp/prstm.hpp"
#include "stm/error.hpp"

namespace stm::cm {

/// Names users type, in the order --help lists them.
inline const char* const known_names = "prstm";

template <class F>
decltype(auto) dispatch(const std::string& name, F&& f) {
  if (name == prstm::name) return std::forward<F>(f)(prstm{});
  throw usage_error("unknown contention manager '" + name + "' (known: " + known_names + ")");
}

}  // namespace stm::cm
