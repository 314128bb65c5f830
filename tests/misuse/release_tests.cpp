// SPDX-License-Identifier: Apache-2.0
// CPU instances of the release-behaviour tests (release_tests.inc).
#include "release_tests.inc"
