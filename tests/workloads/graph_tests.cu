// GPU instances of the graph tests.
#include "graph_tests.inc"
