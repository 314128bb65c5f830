#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tools/run.sh - build stm_bench and run the main job: the bank workload on the
# GPU when one is present, else on the CPU. Extra arguments go to stm_bench:
#   tools/run.sh --accounts 4096 --threads full
# Without a GPU, or with --backend cpu, only the CPU backend is built
# (build-run-cpu: no nvcc, no device code, no tests), which takes about a minute
# on 2 cores; with a GPU, build/ as tools/check.sh configures it, with sm_90 code
# (an H100/H200).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh >/dev/null
[ -d /usr/local/cuda/bin ] && export PATH="/usr/local/cuda/bin:$PATH"
jobs="$(nproc 2>/dev/null || echo 2)"
backend=""
prev=""
for a in "$@"; do
  case "$a" in --backend=*) backend="${a#--backend=}" ;; esac
  [ "$prev" = "--backend" ] && backend="$a"
  prev="$a"
done
if [ "$backend" != cpu ] && command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  build=build
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
else
  if [ "$backend" = cpu ]; then
    echo "run.sh: --backend cpu: building the CPU backend only (build-run-cpu)" >&2
  else
    echo "run.sh: no GPU on this machine: building the CPU backend only (build-run-cpu)" >&2
  fi
  build=build-run-cpu
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPRSTM_ENABLE_CUDA=OFF -DPRSTM_BUILD_TESTS=OFF >/dev/null
fi
cmake --build "$build" --target stm_bench -j "$jobs"
exec "./$build/stm_bench" --workload bank "$@"
