# SPDX-License-Identifier: Apache-2.0
# tests/misuse/compile_fail.cmake - compile SOURCE with COMPILER and FLAGS
# (a |-separated list); with EXPECT (a regular expression) the compile must
# fail and its output match EXPECT; without, it must succeed (the control).
# WARNING=1: the compile must succeed and its output match EXPECT (a warning).
#   cmake -DCOMPILER=... -DFLAGS="a|b" -DSOURCE=... [-DEXPECT=regex] [-DWARNING=1] -P compile_fail.cmake
foreach(v COMPILER SOURCE)
  if(NOT ${v})
    message(FATAL_ERROR "compile_fail.cmake: pass -D${v}=...")
  endif()
endforeach()
string(REPLACE "|" ";" _flags "${FLAGS}")
execute_process(COMMAND ${COMPILER} ${_flags} ${SOURCE}
                RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
if(NOT DEFINED EXPECT OR EXPECT STREQUAL "")
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "the control did not compile:\n${_out}")
  endif()
  message(STATUS "compiled, as it should")
  return()
endif()
if(WARNING)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "did not compile (a warning was expected: ${EXPECT}):\n${_out}")
  endif()
  if(NOT _out MATCHES "${EXPECT}")
    message(FATAL_ERROR "compiled without the warning (expected: ${EXPECT}):\n${_out}")
  endif()
  message(STATUS "warned: ${CMAKE_MATCH_0}")
  return()
endif()
if(_rc EQUAL 0)
  message(FATAL_ERROR "compiled, but the misuse must be refused (expected: ${EXPECT})")
endif()
if(NOT _out MATCHES "${EXPECT}")
  message(FATAL_ERROR "refused, but without the rule's text (expected: ${EXPECT}):\n${_out}")
endif()
message(STATUS "refused with the rule's text: ${CMAKE_MATCH_0}")
