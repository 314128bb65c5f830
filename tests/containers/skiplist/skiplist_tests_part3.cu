// GPU instances of the skiplist container tests, part 3 of 5 (tests/support/test_parts.hpp).
#define STM_TEST_PART 3
#include "skiplist_tests.inc"
