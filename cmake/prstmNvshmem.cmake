# SPDX-License-Identifier: Apache-2.0
# cmake/prstmNvshmem.cmake - NVSHMEM for the multi-GPU programs (stm::dist over
# one process per GPU; docs/multi-gpu.md).
#
#   PRSTM_WITH_NVSHMEM  OFF, ON or AUTO (default): AUTO uses NVSHMEM when the GPU
#                       backend is on and its headers and libraries are found;
#                       ON fails the configuration when they are not.
#   NVSHMEM_HOME        (variable or environment) where NVSHMEM is installed; else
#                       the Python wheel nvidia-nvshmem-cu13 of the python3 on the
#                       PATH (tools/setup.sh --multi-gpu installs it)
#
# Defines PRSTM_NVSHMEM (TRUE when found), PRSTM_NVSHMEM_LIB_DIR, and the
# function prstm_use_nvshmem(target): relocatable device code, the device
# symbols resolved in that target (a static library or an executable), the
# NVSHMEM headers and libraries, and PRSTM_WITH_NVSHMEM=1. Only the targets that
# call it pay for -rdc; nothing else of the project changes.
set(PRSTM_WITH_NVSHMEM AUTO CACHE STRING "NVSHMEM for the multi-GPU programs: ON, OFF or AUTO (on when found)")
set_property(CACHE PRSTM_WITH_NVSHMEM PROPERTY STRINGS ON OFF AUTO)
set(PRSTM_NVSHMEM FALSE)

if(NOT PRSTM_WITH_NVSHMEM STREQUAL "OFF")
  if(NOT PRSTM_GPU)
    if(PRSTM_WITH_NVSHMEM STREQUAL "ON")
      message(FATAL_ERROR "PRSTM_WITH_NVSHMEM=ON needs the GPU backend (PRSTM_ENABLE_CUDA=ON)")
    endif()
  else()
    set(_prstm_nvshmem_hints)
    if(NVSHMEM_HOME)
      list(APPEND _prstm_nvshmem_hints ${NVSHMEM_HOME})
    endif()
    if(DEFINED ENV{NVSHMEM_HOME})
      list(APPEND _prstm_nvshmem_hints $ENV{NVSHMEM_HOME})
    endif()
    find_program(PRSTM_PYTHON3 python3)
    if(PRSTM_PYTHON3)
      # The wheel's package is a namespace package (no __file__): its __path__.
      execute_process(COMMAND ${PRSTM_PYTHON3} -c "import nvidia.nvshmem as m; print(list(m.__path__)[0])"
                      OUTPUT_VARIABLE _prstm_wheel OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _prstm_rc)
      if(_prstm_rc EQUAL 0 AND _prstm_wheel)
        list(APPEND _prstm_nvshmem_hints ${_prstm_wheel})
      endif()
    endif()
    find_path(PRSTM_NVSHMEM_INCLUDE_DIR nvshmem.h HINTS ${_prstm_nvshmem_hints} PATH_SUFFIXES include)
    # The wheel ships libnvshmem_host.so.3 without the unversioned link.
    find_library(PRSTM_NVSHMEM_HOST_LIB NAMES nvshmem_host libnvshmem_host.so.3 HINTS ${_prstm_nvshmem_hints}
                 PATH_SUFFIXES lib lib64)
    find_library(PRSTM_NVSHMEM_DEVICE_LIB NAMES nvshmem_device HINTS ${_prstm_nvshmem_hints} PATH_SUFFIXES lib lib64)
    if(PRSTM_NVSHMEM_INCLUDE_DIR AND PRSTM_NVSHMEM_HOST_LIB AND PRSTM_NVSHMEM_DEVICE_LIB AND TARGET CUDA::cuda_driver)
      set(PRSTM_NVSHMEM TRUE)
      get_filename_component(PRSTM_NVSHMEM_LIB_DIR ${PRSTM_NVSHMEM_HOST_LIB} DIRECTORY)
      message(STATUS "prstm: NVSHMEM from ${PRSTM_NVSHMEM_INCLUDE_DIR}, ${PRSTM_NVSHMEM_LIB_DIR} (multi-GPU programs)")
    elseif(PRSTM_WITH_NVSHMEM STREQUAL "ON")
      message(FATAL_ERROR "PRSTM_WITH_NVSHMEM=ON: NVSHMEM not found (set NVSHMEM_HOME, or run tools/setup.sh --multi-gpu)")
    else()
      message(STATUS "prstm: NVSHMEM not found: the multi-GPU programs are not built (tools/setup.sh --multi-gpu)")
    endif()
  endif()
endif()

function(prstm_use_nvshmem target)
  set_target_properties(${target} PROPERTIES CUDA_SEPARABLE_COMPILATION ON CUDA_RESOLVE_DEVICE_SYMBOLS ON)
  target_include_directories(${target} SYSTEM PRIVATE ${PRSTM_NVSHMEM_INCLUDE_DIR})
  target_compile_definitions(${target} PUBLIC PRSTM_WITH_NVSHMEM=1)
  target_link_libraries(${target} PUBLIC ${PRSTM_NVSHMEM_DEVICE_LIB} ${PRSTM_NVSHMEM_HOST_LIB} CUDA::cuda_driver)
  set_property(TARGET ${target} APPEND PROPERTY BUILD_RPATH ${PRSTM_NVSHMEM_LIB_DIR})
endfunction()
