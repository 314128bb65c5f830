#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The admission gate's floor (stm/detail/admission.hpp: an SM's limit falls by a sixteenth per aborted
# gated attempt, down to 16) as an experiment variable: floor.patch makes it the throttle's
# admission_floor, from STM_ADMISSION_FLOOR (1 to 2048; 16 is the code's rule). Why: where nearly every
# attempt aborts (array over 32k words, R = 256: 93% at full occupancy, 0.63 of its best point, which is
# 1,536 threads) the gate sits at its floor, 16 slots an SM, 2,112 attempts at once on an H100/H200,
# more than the best point runs.
# Build (a worktree of the tree the patch applies to):
#   git apply tools/experiments/admission_floor/floor.patch
#   cmake -S . -B build-x -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90-real \
#     -DPRSTM_BUILD_TESTS=OFF -DPRSTM_BUILD_TOOLS=ON -DPRSTM_ENABLE_CUDA=ON -DPRSTM_WITH_NVSHMEM=OFF
#   ninja -C build-x stm_bench
# then on an H100/H200: tools/experiments/admission_floor/run.sh build-x/stm_bench OUT.jsonl
# Rows carry `variant` (the floor); prstm at full occupancy, medians of 3 after a warm-up.
set -uo pipefail
B=${1:?usage: run.sh STM_BENCH OUT.jsonl}
O=${2:?usage: run.sh STM_BENCH OUT.jsonl}
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0
pt() {
  local f=$1; shift
  STM_ADMISSION_FLOOR=$f timeout 120 "$B" --backend gpu --repeat 3 --warmup 1 --format json -q --threads full "$@" |
    python3 "$(dirname "$0")/../tag_rows.py" variant=floor$f >> "$O" || echo "FAILED floor $f: $*" >&2
}
for f in 16 4 1; do
  pt $f --workload array --words 32768 --reads 256 --tpt 1 --validation opaque
  pt $f --workload array --words 32768 --reads 16 --tpt 32 --validation all
  pt $f --workload array --words 2097152 --reads 64 --tpt 32 --validation all
  pt $f --workload vacation --preset paper --impl tx
  pt $f --workload skiplist --keys 5000 --levels 5 --mix 50/50/0 --impl tx
done
