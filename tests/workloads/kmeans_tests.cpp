// CPU instances of the k-means tests.
#include "kmeans_tests.inc"
