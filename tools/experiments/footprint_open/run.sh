#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Experiment (prepared, not measured on a GPU yet): a warp whose sets alone exceed the footprint
# budget (R = 256: ~130 KiB a warp against 96) skips the gate when the launch has many warps per SM.
# open_warps.patch beside this script (against 0c3dadb) adds throttle_config::footprint_open_warps
# (STM_FOOTPRINT_OPEN_WARPS, 0 to 64, 0 by default: no change): such a warp does not enter when the
# launch has at least that many warps per SM (gridDim x blockDim / 32 / %nsmid); the test uses the
# warp's unweighted bytes, so hot warps that weigh over the budget (32k words R = 64) still enter.
# Why (docs/design-decisions.md#footprint-oversize): at full occupancy R = 256 over 2M words runs
# 2.02 M opaque / 2.41 M commit-time with the gate off against 1.44 / 1.80 M under it, but the gate
# off costs 6,144 threads (1.5 warps per SM) 14-26%; 67,584 threads (16 per SM) gained 27% / 7%.
# Build stm_bench with the patch applied (git apply tools/experiments/footprint_open/open_warps.patch),
# then, one binary, the variants in turn per configuration, medians of 3 after a warm-up:
# tools/experiments/footprint_open/run.sh STM_BENCH OUTDIR   (rows: OUTDIR/o<N>.jsonl; OPEN="0 8 16 32")
set -uo pipefail
S=${1:?usage: run.sh STM_BENCH OUTDIR}
O=${2:?usage: run.sh STM_BENCH OUTDIR}
read -ra variants <<< "${OPEN:-0 8 16 32}"
mkdir -p "$O"
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0
run() {
  for v in "${variants[@]}"; do
    timeout 100 env STM_FOOTPRINT_OPEN_WARPS="$v" "$S" --backend gpu --repeat 3 --warmup 1 --format json -q "$@" \
      >> "$O/o$v.jsonl" 2>> "$O/err.log" || echo "FAILED $v $*" >> "$O/err.log"
  done
}
run --workload array --words 2097152 --reads 256 --ops 270336 --validation all \
  --sweep threads=1536,6144,24576,67584,full --sweep cm=prstm,backoff
run --workload array --words 2097152 --reads 64 --ops 2162688 --validation all --threads full --cm prstm
run --workload array --words 32768 --reads 64 --ops 270336 --validation opaque --sweep threads=6144,full --cm prstm
run --workload array --words 2097152 --reads 16 --ops 2162688 --validation all --threads full --cm prstm
run --workload graph --impl tx --threads full --cm prstm
