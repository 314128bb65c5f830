// SPDX-License-Identifier: Apache-2.0
// GPU instances of the misuse death tests (checks_tests.inc): each misuse
// runs a kernel in a death test's child process.
#include "checks_tests.inc"
