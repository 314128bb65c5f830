// CPU instances of the composition tests.
#include "compose_tests.inc"
