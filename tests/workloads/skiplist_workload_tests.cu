// GPU instances of the skiplist workload tests.
#include "skiplist_workload_tests.inc"
