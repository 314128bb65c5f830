// GPU instances of the skiplist linearizability tests.
#include "skiplist_lin_tests.inc"
