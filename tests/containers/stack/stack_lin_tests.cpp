// CPU instances of the stack linearizability tests.
#include "stack_lin_tests.inc"
