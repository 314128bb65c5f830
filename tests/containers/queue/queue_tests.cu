// GPU instances of the queue tests.
#include "queue_tests.inc"
