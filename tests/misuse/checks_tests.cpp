// SPDX-License-Identifier: Apache-2.0
// CPU instances of the misuse death tests (checks_tests.inc).
#include "checks_tests.inc"
