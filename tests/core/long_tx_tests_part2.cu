// GPU instances of the long-transaction tests, part 2 of 2 (tests/support/test_parts.hpp).
#define STM_TEST_PART 2
#include "long_tx_tests.inc"
