# SPDX-License-Identifier: Apache-2.0
# tests/structure/check_spdx.cmake - every source file of the repository names
# its licence in an SPDX line among its first lines (after a #! line). Run by
# ctest: cmake -DROOT=<source dir> -P check_spdx.cmake
if(NOT ROOT)
  message(FATAL_ERROR "check_spdx.cmake: pass -DROOT=<source dir>")
endif()
set(_missing "")
foreach(dir stm cmp containers workloads tools tests examples cmake)
  file(GLOB_RECURSE _files RELATIVE ${ROOT} ${ROOT}/${dir}/*.hpp ${ROOT}/${dir}/*.cuh ${ROOT}/${dir}/*.inl
       ${ROOT}/${dir}/*.h ${ROOT}/${dir}/*.cpp ${ROOT}/${dir}/*.cu ${ROOT}/${dir}/*.inc ${ROOT}/${dir}/*.sh
       ${ROOT}/${dir}/*.py ${ROOT}/${dir}/*.cmake ${ROOT}/${dir}/CMakeLists.txt)
  foreach(f IN LISTS _files)
    file(STRINGS ${ROOT}/${f} _head LIMIT_COUNT 3)
    if(NOT _head MATCHES "SPDX-License-Identifier: Apache-2.0")
      string(APPEND _missing "  ${f}\n")
    endif()
  endforeach()
endforeach()
file(STRINGS ${ROOT}/CMakeLists.txt _head LIMIT_COUNT 3)
if(NOT _head MATCHES "SPDX-License-Identifier: Apache-2.0")
  string(APPEND _missing "  CMakeLists.txt\n")
endif()
if(_missing)
  message(FATAL_ERROR "files without the SPDX line `SPDX-License-Identifier: Apache-2.0` in their first lines:\n${_missing}")
endif()
message(STATUS "every source file names its licence (SPDX)")
