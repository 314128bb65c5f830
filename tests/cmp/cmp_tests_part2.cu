// GPU instances of the contention-manager tests, part 2 of 2 (tests/support/test_parts.hpp).
#define STM_TEST_PART 2
#include "cmp_tests.inc"
