// CPU instances of the list linearizability tests.
#include "list_lin_tests.inc"
