// GPU instances of the list tests.
#include "list_tests.inc"
