// CPU instances of the recorded-history tests.
#include "history_tests.inc"
