// SPDX-License-Identifier: Apache-2.0
// GPU instances of the admission control tests.
#include "admission_tests.inc"
