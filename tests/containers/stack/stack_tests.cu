// GPU instances of the stack tests.
#include "stack_tests.inc"
