// SPDX-License-Identifier: Apache-2.0
// GPU instances of the README's helper and snapshot examples (readme_tests.inc).
#include "readme_tests.inc"
