// GPU instances of the composition tests, part 1 of 5 (tests/support/test_parts.hpp).
#define STM_TEST_PART 1
#include "compose_tests.inc"
