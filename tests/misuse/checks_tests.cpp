// CPU instances of the misuse death tests (checks_tests.inc).
#include "checks_tests.inc"
