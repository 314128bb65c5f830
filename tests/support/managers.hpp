// SPDX-License-Identifier: Apache-2.0
// tests/support/managers.hpp - every contention manager stm_bench knows, by name.
#pragma once

#include <string>
#include <vector>

#include "cmp/registry.hpp"

namespace stm_test {

/// The names in stm::cm::known_names, in order.
inline std::vector<std::string> manager_names() {
  std::vector<std::string> out;
  std::string cur;
  for (const char* p = stm::cm::known_names;; ++p) {
    if (*p == ',' || *p == '\0') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
      if (*p == '\0') break;
    } else if (*p != ' ') {
      cur += *p;
    }
  }
  return out;
}

}  // namespace stm_test
