// SPDX-License-Identifier: Apache-2.0
// tests/support/test_parts.hpp - one test file's tests compiled in several
// translation units on the GPU.
//
// A GPU test file that instantiates every container under every manager can
// take minutes of nvcc in one translation unit, the long pole of a parallel
// build. Its .inc then wraps groups of tests in `#if STM_TEST_IN_PART(k)`, and
// the GPU target compiles one small .cu per part, each defining STM_TEST_PART
// to its k before including the .inc. Without STM_TEST_PART (the CPU .cpp,
// where the file is cheap) every part is compiled in one unit.
//
// The fixture of a split suite must be declared outside the anonymous
// namespace: gtest requires every test of a suite to use one fixture type,
// and a type in an anonymous namespace differs per translation unit.
#pragma once

#ifndef STM_TEST_PART
#define STM_TEST_PART 0
#endif

/// Whether the tests of part k are compiled in this translation unit.
#define STM_TEST_IN_PART(k) (STM_TEST_PART == 0 || STM_TEST_PART == (k))
