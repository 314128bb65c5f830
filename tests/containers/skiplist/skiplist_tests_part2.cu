// GPU instances of the skiplist container tests, part 2 of 5 (tests/support/test_parts.hpp).
#define STM_TEST_PART 2
#include "skiplist_tests.inc"
