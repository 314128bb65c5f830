// GPU instances of the release-behaviour tests (release_tests.inc).
#include "release_tests.inc"
