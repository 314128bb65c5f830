#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Experiment: the footprint gate charging hot lanes more (adopted:
# throttle_config::footprint_heat_weight, STM_FOOTPRINT_HEAT_WEIGHT, 16 by default; a lane's set bytes
# count 1 + w x (heat - admission_heat) / 1024 times while its heat, admission's average of whether
# its attempts aborted, is above admission_heat, STM_ADMISSION_HEAT; stm/detail/admission.hpp,
# footprint_charge). Measured first (results/experiments/footprint_heat_a4f8ac4.jsonl) with a patch
# that charged from a heat of 256, weights 0, 2, 4, 8, then from 256, 384 and 512: 32k words R = 16
# gained a quarter to a third at full occupancy; from 256 lanes at 15-25% aborts were charged too
# (2M words R = 64 lost a quarter at 6,144 threads), from 512 nothing over 2M words paid
# (docs/design-decisions.md#footprint-heat). Now on any build: the weights in turn per configuration
# in one binary, medians of 3 after a warm-up:
# tools/experiments/footprint_heat/run.sh STM_BENCH OUTDIR   (rows: OUTDIR/w<W>.jsonl; WEIGHTS="0 16 32")
set -uo pipefail
S=${1:?usage: run.sh STM_BENCH OUTDIR}
O=${2:?usage: run.sh STM_BENCH OUTDIR}
read -ra weights <<< "${WEIGHTS:-0 16 32}"
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
