# SPDX-License-Identifier: Apache-2.0
# tests/structure/check_layers.cmake - the library's folders form layers:
#   stm/ (the core)  <-  cmp/ (managers)  <-  containers/, workloads/  <-  tools/
# A file may include its own folder and the folders below it, never one above:
# the core builds and is understood without the managers, the managers without
# the containers. Run by ctest: cmake -DROOT=<source dir> -P check_layers.cmake
# Fails listing every include that goes up, and every use of stm::detail by a
# contention manager.
if(NOT ROOT)
  message(FATAL_ERROR "check_layers.cmake: pass -DROOT=<source dir>")
endif()

# folder -> the folders it must not include
set(_above_stm "cmp|containers|workloads|tools|tests")
set(_above_cmp "containers|workloads|tools|tests")
set(_above_containers "workloads|tools|tests")
set(_above_workloads "tools|tests")

set(_bad "")
foreach(layer stm cmp containers workloads)
  file(GLOB_RECURSE _files RELATIVE ${ROOT} ${ROOT}/${layer}/*.hpp ${ROOT}/${layer}/*.cuh ${ROOT}/${layer}/*.inl
       ${ROOT}/${layer}/*.h)
  foreach(f IN LISTS _files)
    file(STRINGS ${ROOT}/${f} _lines REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"](${_above_${layer}})/")
    foreach(l IN LISTS _lines)
      string(STRIP "${l}" l)
      string(APPEND _bad "  ${f}: ${l}\n")
    endforeach()
  endforeach()
endforeach()

if(_bad)
  message(FATAL_ERROR "includes that go up a layer (stm <- cmp <- containers, workloads <- tools):\n${_bad}")
endif()

# A contention manager is written against the public extension point
# (stm/manager.hpp) alone: the managers of cmp/ and the one the tests define
# name nothing of stm::detail and include no detail header.
file(GLOB_RECURSE _managers RELATIVE ${ROOT} ${ROOT}/cmp/*.hpp)
list(APPEND _managers tests/support/user_manager.hpp)
foreach(f IN LISTS _managers)
  file(STRINGS ${ROOT}/${f} _lines REGEX "(^[ \t]*#[ \t]*include[ \t]*[<\"][^>\"]*detail/)|([^/]*detail::)")
  foreach(l IN LISTS _lines)
    if(l MATCHES "^[ \t]*//")  # a comment may point at the mechanics
      continue()
    endif()
    string(STRIP "${l}" l)
    string(APPEND _bad "  ${f}: ${l}\n")
  endforeach()
endforeach()
if(_bad)
  message(FATAL_ERROR "contention managers that reach into stm::detail (use stm/manager.hpp):\n${_bad}")
endif()
message(STATUS "layers: no include goes up; managers use the public extension point")
