// CPU instances of the contention-manager tests.
#include "cmp_tests.inc"
