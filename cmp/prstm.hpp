// SPDX-License-Identifier: Apache-2.0
// cmp/prstm.hpp - stm::cm::prstm: PR-STM's priority rule under its name among
// the managers of cmp/. It is the core's default manager, so it lives in the
// core (stm/prstm.hpp, which documents its commit protocol and declares the
// name stm::cm::prstm, so that stm/stm.hpp offers it without including cmp/).
// This header is the manager's header of cmp/, as every manager has one.
#pragma once

#include "cmp/contention_manager.hpp"
#include "stm/prstm.hpp"  // stm::prstm and stm::cm::prstm
