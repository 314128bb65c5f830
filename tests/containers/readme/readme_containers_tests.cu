// GPU instances of the README example tests.
#include "readme_containers_tests.inc"
