// GPU instances of the composition tests, part 4 of 5 (tests/support/test_parts.hpp).
#define STM_TEST_PART 4
#include "compose_tests.inc"
