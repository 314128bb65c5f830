// GPU instances of the composition tests, part 2 of 5 (tests/support/test_parts.hpp).
#define STM_TEST_PART 2
#include "compose_tests.inc"
