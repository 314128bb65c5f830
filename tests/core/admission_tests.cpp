// SPDX-License-Identifier: Apache-2.0
// CPU instances of the admission control tests.
#include "admission_tests.inc"
