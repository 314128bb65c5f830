# SPDX-License-Identifier: Apache-2.0
# cmake/prstmBackend.cmake - which backend the prstm headers are compiled for in
# the project that uses them, shared by the build tree (add_subdirectory,
# FetchContent) and the installed package (find_package).
#
# The headers need STM_WITH_CUDA=1 (GPU backend: the CUDA runtime, kernels) or
# STM_WITH_CUDA=0 (CPU backend only). The value must be the same in every
# translation unit of a program, .cpp and .cu alike: stm::buffer and
# stm::gpu_available are inline functions whose bodies depend on it. So it is
# decided once per consuming project, not per source language:
#   PRSTM_ENABLE_CUDA=ON    GPU backend (STM_WITH_CUDA=1, linked to CUDA::cudart)
#   PRSTM_ENABLE_CUDA=OFF   CPU backend only (STM_WITH_CUDA=0)
#   unset or AUTO           the GPU backend when the consuming project enables
#                           the CUDA language, in any order: project(x CXX CUDA),
#                           project(x CUDA CXX), or enable_language(CUDA) later.
#                           The choice is made at the end of configuring the
#                           directory that found or added prstm, when every
#                           enable_language of it has run.
# The CUDA architectures are the consumer's (CMAKE_CUDA_ARCHITECTURES): the
# package adds none, and says at configure time which ones the GPU code gets.
include_guard(GLOBAL)

# Report the CUDA architectures the consumer's GPU code is built for. CMake
# fills CMAKE_CUDA_ARCHITECTURES with nvcc's default (sm_52, sm_75, ...: an
# H100/H200 then runs JIT-compiled PTX of an old architecture) when the
# project did not set it; that cache entry carries the help string "CUDA
# architectures" (the same as with the CUDAARCHS environment variable).
function(_prstm_report_cuda_architectures)
  get_property(_help CACHE CMAKE_CUDA_ARCHITECTURES PROPERTY HELPSTRING)
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES OR "${CMAKE_CUDA_ARCHITECTURES}" STREQUAL "")
    message(WARNING "prstm: CMAKE_CUDA_ARCHITECTURES is not set, so GPU code is built for nvcc's default "
                    "architecture: set it (90 for an H100/H200, or 'native' for this machine's GPUs)")
  elseif("${_help}" STREQUAL "CUDA architectures" AND "$ENV{CUDAARCHS}" STREQUAL ""
         AND "${CMAKE_CUDA_ARCHITECTURES}" STREQUAL "$CACHE{CMAKE_CUDA_ARCHITECTURES}")
    message(WARNING "prstm: GPU code is built for CUDA architecture ${CMAKE_CUDA_ARCHITECTURES}, the default "
                    "CMake took from nvcc because the project did not set CMAKE_CUDA_ARCHITECTURES. Configure "
                    "with -DCMAKE_CUDA_ARCHITECTURES=90 for an H100/H200 (or 'native' for this machine's GPUs)")
  else()
    message(STATUS "prstm: GPU code for CUDA architectures ${CMAKE_CUDA_ARCHITECTURES} (CMAKE_CUDA_ARCHITECTURES)")
  endif()
endfunction()

# _prstm_use_backend(<target> <ON|OFF>): give <target>'s consumers the backend's
# definition, libraries and CUDA standard. BUILD_INTERFACE: a target installed
# from this build exports none of it; the installed package decides again for
# its own consumer.
function(_prstm_use_backend target gpu)
  if(gpu)
    find_package(CUDAToolkit REQUIRED)
    target_compile_definitions(${target} INTERFACE $<BUILD_INTERFACE:STM_WITH_CUDA=1>)
    target_link_libraries(${target} INTERFACE $<BUILD_INTERFACE:CUDA::cudart>)
    get_property(_langs GLOBAL PROPERTY ENABLED_LANGUAGES)
    if(CUDA IN_LIST _langs)
      target_compile_features(${target} INTERFACE $<BUILD_INTERFACE:cuda_std_17>)
      _prstm_report_cuda_architectures()
    else()
      message(STATUS "prstm: GPU backend for host code (PRSTM_ENABLE_CUDA=ON), but this project does not "
                     "enable CUDA: kernels (.cu files, stm/launch.cuh) need project(... CUDA) or enable_language(CUDA)")
    endif()
    message(STATUS "prstm: GPU backend (STM_WITH_CUDA=1)")
  else()
    target_compile_definitions(${target} INTERFACE $<BUILD_INTERFACE:STM_WITH_CUDA=0>)
    message(STATUS "prstm: CPU backend only (STM_WITH_CUDA=0)")
  endif()
endfunction()

# Called at the end of configuring a directory: GPU backend when CUDA is enabled.
function(_prstm_use_backend_of_languages target)
  get_property(_langs GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(CUDA IN_LIST _langs)
    _prstm_use_backend(${target} ON)
  else()
    _prstm_use_backend(${target} OFF)
  endif()
endfunction()

# prstm_select_backend(<target> <directory>): apply PRSTM_ENABLE_CUDA now when it
# says ON or OFF; else (AUTO) once <directory>, where <target> is visible, has
# been configured.
function(prstm_select_backend target directory)
  if(DEFINED PRSTM_ENABLE_CUDA AND NOT "${PRSTM_ENABLE_CUDA}" STREQUAL "" AND NOT "${PRSTM_ENABLE_CUDA}" STREQUAL "AUTO")
    if(PRSTM_ENABLE_CUDA)
      _prstm_use_backend(${target} ON)
    else()
      _prstm_use_backend(${target} OFF)
    endif()
  else()
    # The arguments of a deferred call are evaluated when it runs: EVAL fixes them now.
    cmake_language(EVAL CODE
      "cmake_language(DEFER DIRECTORY [[${directory}]] CALL _prstm_use_backend_of_languages [[${target}]])")
  endif()
endfunction()
