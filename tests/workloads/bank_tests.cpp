// CPU instances of the bank tests.
#include "bank_tests.inc"
