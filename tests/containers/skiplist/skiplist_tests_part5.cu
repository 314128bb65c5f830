// GPU instances of the skiplist container tests, part 5 of 5 (tests/support/test_parts.hpp).
#define STM_TEST_PART 5
#include "skiplist_tests.inc"
