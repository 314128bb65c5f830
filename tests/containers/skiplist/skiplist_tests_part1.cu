// GPU instances of the skiplist container tests, part 1 of 5 (tests/support/test_parts.hpp).
#define STM_TEST_PART 1
#include "skiplist_tests.inc"
