// CPU instances of the skiplist container tests.
#include "skiplist_tests.inc"
