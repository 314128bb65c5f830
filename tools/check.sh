#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tools/check.sh - the test command: install what is missing, build, and run
# every test: the CPU backend, a ThreadSanitizer build of the CPU tests, a
# schedule-perturbation build of the CPU linearizability, container, bank and STM
# tests, and the GPU backend when a device is present (GPU tests skip, with the
# reason, when there is none).
#
#   tools/check.sh               # everything
#   tools/check.sh --no-tsan     # skip the sanitized build (faster local loops)
#   tools/check.sh --no-perturb  # skip the perturbation build
#   tools/check.sh --perturb-only  # only the perturbation build (a few minutes on 2 cores)
#   tools/check.sh --examples-only # only the main build's install and the examples
# The perturbation build honours STM_PERTURB_RATE, STM_PERTURB_SEED and
# STM_PERTURB_MAX_NS (stm/detail/perturb.hpp; defaults 0.05, 1, 2000).
set -euo pipefail
cd "$(dirname "$0")/.."

tsan=1; perturb=1; main=1; tests=1
for a in "$@"; do
  case "$a" in
    --no-tsan) tsan=0 ;;
    --no-perturb) perturb=0 ;;
    --perturb-only) tsan=0; main=0 ;;
    --examples-only) tsan=0; perturb=0; tests=0 ;;
    *) echo "check.sh: unknown option '$a' (known: --no-tsan, --no-perturb, --perturb-only, --examples-only)" >&2; exit 2 ;;
  esac
done
t_start=$(date +%s)
phase() { echo "== $1 (at $(( $(date +%s) - t_start )) s) =="; }

bash tools/setup.sh
[ -d /usr/local/cuda/bin ] && export PATH="/usr/local/cuda/bin:$PATH"
jobs=$(nproc 2>/dev/null || echo 2)

if [ "$main" = 1 ]; then
  phase "build (GPU backend when nvcc is present)"
  # Without a GPU the GPU programs cannot run, so their device code is compiled
  # to PTX only (CMAKE_CUDA_ARCHITECTURES=90-virtual) and unoptimized, the GPU
  # test programs' host code too, each GPU test program one translation unit
  # (PRSTM_GPU_COMPILE_ONLY): nvcc's front end still checks every CUDA
  # translation unit and every program links, but ptxas and the optimizers,
  # most of nvcc's time on these files, do not run. With a GPU: sm_90 code.
  # tools/gpu_check.sh always builds sm_90 code (build-gpu).
  arch=90; compile_only=OFF
  command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 || { arch=90-virtual; compile_only=ON; }
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$arch" -DPRSTM_GPU_COMPILE_ONLY="$compile_only"
  cmake --build build -j "$jobs"
  if [ "$tests" = 1 ]; then
    phase "tests"
    ctest --test-dir build --output-on-failure -j "$jobs"
  fi

  # The package as a user gets it: installed into a temporary prefix, then every
  # example of examples/ configured as its own project with find_package(prstm),
  # built (-O1: they are small) and run; each exits non-zero when its check fails.
  phase "install into a temporary prefix; the examples built against it with find_package, and run"
  ex="$(mktemp -d)"
  trap 'rm -rf "$ex"' EXIT
  cmake --install build --prefix "$ex/prefix" >/dev/null
  for dir in examples/*/; do
    name="$(basename "$dir")"
    cmake -S "$dir" -B "$ex/$name" -G Ninja -DCMAKE_PREFIX_PATH="$ex/prefix" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CXX_FLAGS_RELEASE=-O1 >/dev/null
    cmake --build "$ex/$name" -j "$jobs"
    "$ex/$name/$name"
  done
  # A CUDA consumer: the first example compiled as CUDA for the architecture it
  # asks for (PTX only and unoptimized without a GPU: it then runs on the CPU
  # backend; tools/gpu_check.sh runs every example on the GPU).
  if command -v nvcc >/dev/null 2>&1; then
    cuda_flags=""; [ "$compile_only" = ON ] && cuda_flags="-Xcicc=-O0"
    cmake -S examples/first_kernel -B "$ex/first_kernel_cuda" -G Ninja -DCMAKE_PREFIX_PATH="$ex/prefix" -DWITH_CUDA=ON \
      -DCMAKE_CUDA_ARCHITECTURES="$arch" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_FLAGS="$cuda_flags" >/dev/null
    cmake --build "$ex/first_kernel_cuda" -j "$jobs" -- -v | grep -o -- '--generate-code=[^ ]*' | sort -u
    "$ex/first_kernel_cuda/first_kernel"
  fi
fi

if [ "$tsan" = 1 ]; then
  phase "ThreadSanitizer build of the CPU tests"
  # -O1 -g: what ThreadSanitizer asks for (its reports need no more), and a
  # third less compile time than RelWithDebInfo's -O2 on these tests.
  cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g -DNDEBUG" \
    -DPRSTM_SANITIZE=thread
  cmake --build build-tsan -j "$jobs"
  # setarch -R: TSan needs a non-randomized address layout on newer kernels.
  run=()
  if command -v setarch >/dev/null 2>&1 && setarch "$(uname -m)" -R true 2>/dev/null; then run=(setarch "$(uname -m)" -R); fi
  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" "${run[@]}" ctest --test-dir build-tsan --output-on-failure -j "$jobs"
fi
if [ "$perturb" = 1 ]; then
  # Every atomic of the library delays its thread at random (a yield, or now
  # and then a short sleep): interleavings that natural runs almost never
  # produce. The linearizability tests check 500 histories per container here.
  phase "schedule-perturbation build (PRSTM_PERTURB) of the CPU linearizability, container, bank, STM and admission tests"
  programs="list_lin_tests_cpu list_tests_cpu skiplist_lin_tests_cpu stack_lin_tests_cpu stack_tests_cpu queue_tests_cpu compose_tests_cpu bank_tests_cpu core_tests_cpu cmp_tests_cpu history_tests_cpu long_tx_tests_cpu admission_tests_cpu dist_tests_cpu"
  # -O1: the perturbed runs are bound by their random delays, not by the code
  # between them; half the compile time of -O3.
  cmake -S . -B build-perturb -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
    -DPRSTM_ENABLE_CUDA=OFF -DPRSTM_PERTURB=ON
  # shellcheck disable=SC2086
  cmake --build build-perturb -j "$jobs" --target $programs
  raw=build-perturb/reliability_raw.jsonl
  : > "$raw"
  for p in $programs; do
    exe=$(find build-perturb/tests -type f -name "$p" | head -1)
    echo "-- $p (perturbed)"
    STM_PERTURB_RATE="${STM_PERTURB_RATE:-0.05}" STM_PERTURB_SEED="${STM_PERTURB_SEED:-1}" \
      STM_LIN_HISTORIES="${STM_LIN_HISTORIES:-500}" STM_RELIABILITY_OUT="$raw" timeout 600 "$exe" --gtest_brief=1
  done
  command -v python3 >/dev/null && python3 tools/reliability_rows.py "$raw"
fi
echo "check.sh: all tests passed ($(( $(date +%s) - t_start )) s)"
