// GPU instances of the contention-manager tests, part 1 of 2 (tests/support/test_parts.hpp).
#define STM_TEST_PART 1
#include "cmp_tests.inc"
