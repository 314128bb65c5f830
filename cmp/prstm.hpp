// cmp/prstm.hpp - stm::cm::prstm: PR-STM's priority rule under its name among
// the managers of cmp/. It is the core's default manager, so it lives in the
// core (stm/prstm.hpp, which documents its commit protocol).
#pragma once

#include "cmp/contention_manager.hpp"
#include "stm/prstm.hpp"

namespace stm::cm {

using prstm = stm::prstm;

}  // namespace stm::cm
