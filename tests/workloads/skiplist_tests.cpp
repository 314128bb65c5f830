// CPU instances of the skiplist workload tests.
#include "skiplist_tests.inc"
