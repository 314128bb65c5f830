// CPU instances of the vacation tests.
#include "vacation_tests.inc"
