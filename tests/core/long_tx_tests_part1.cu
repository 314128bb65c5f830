// GPU instances of the long-transaction tests, part 1 of 2 (tests/support/test_parts.hpp).
#define STM_TEST_PART 1
#include "long_tx_tests.inc"
