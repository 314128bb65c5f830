// CPU instances of the long-transaction tests.
#include "long_tx_tests.inc"
