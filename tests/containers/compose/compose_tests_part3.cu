// GPU instances of the composition tests, part 3 of 5 (tests/support/test_parts.hpp).
#define STM_TEST_PART 3
#include "compose_tests.inc"
