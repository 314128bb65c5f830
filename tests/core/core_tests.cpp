// CPU instances of the core tests.
#include "core_tests.inc"
