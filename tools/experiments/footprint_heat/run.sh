#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Experiment (prepared, not measured on a GPU yet): the footprint gate charging hot lanes more.
# footprint_heat.patch beside this script adds throttle_config::footprint_heat_weight
# (STM_FOOTPRINT_HEAT_WEIGHT, 0 to 16, 0 by default: no change): a lane's set bytes count
# 1 + w x (heat - 1/4) times in the footprint gate while its heat (admission's average of whether
# its attempts aborted, stm/detail/admission.hpp) is above a quarter. Why: the array over 32k words
# (R = 16, ~60-80% of attempts abort) ran best at a third of the 96-KiB budget, which costs the graph
# and 2M words R = 16 (12-20% aborts) a third (docs/design-decisions.md#footprint-floor): charging
# by contention would give each its budget. Build stm_bench with the patch applied
# (git apply tools/experiments/footprint_heat/footprint_heat.patch), then, one binary, the weights
# in turn per configuration, medians of 3 after a warm-up. With the patch (at c18fcd9) the CPU
# admission tests pass, also with STM_FOOTPRINT_HEAT_WEIGHT=4, and admission_tests_gpu compiles for sm_90:
# tools/experiments/footprint_heat/run.sh STM_BENCH OUTDIR   (rows: OUTDIR/w<W>.jsonl)
set -uo pipefail
S=${1:?usage: run.sh STM_BENCH OUTDIR}
O=${2:?usage: run.sh STM_BENCH OUTDIR}
read -ra weights <<< "${WEIGHTS:-0 2 4 8}"
mkdir -p "$O"
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0
run() {
  for w in "${weights[@]}"; do
    timeout 100 env STM_FOOTPRINT_HEAT_WEIGHT="$w" "$S" --backend gpu --repeat 3 --warmup 1 --format json -q "$@" \
      >> "$O/w$w.jsonl" 2>> "$O/err.log" || echo "FAILED $w $*" >> "$O/err.log"
  done
}
run --workload array --words 32768 --reads 16 --ops 2162688 --validation all --sweep threads=24576,full --sweep cm=prstm,backoff
run --workload array --words 2097152 --reads 16 --ops 2162688 --validation all --sweep threads=24576,full --sweep cm=prstm,backoff
run --workload array --words 2097152 --reads 64 --ops 2162688 --validation all --sweep threads=6144,24576,full --cm prstm
run --workload array --words 2097152 --reads 256 --ops 270336 --validation all --threads full --cm prstm
run --workload graph --impl tx --threads full --sweep cm=prstm,backoff
run --workload kmeans --impl tx-block --threads full --cm prstm
run --workload queue --impl tx --threads full --cm backoff
