// CPU instances of the admission control tests.
#include "admission_tests.inc"
