// SPDX-License-Identifier: Apache-2.0
// CPU instances of the README's helper and snapshot examples (readme_tests.inc).
#include "readme_tests.inc"
