// GPU instances of the composition tests, part 5 of 5 (tests/support/test_parts.hpp).
#define STM_TEST_PART 5
#include "compose_tests.inc"
