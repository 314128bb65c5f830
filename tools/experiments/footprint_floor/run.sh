#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Experiment: the footprint gate's budget (STM_FOOTPRINT_KIB) and floor of warps
# (STM_FOOTPRINT_MIN_WARPS); one binary, the variants in turn per configuration, medians of 3
# after a warm-up. docs/design-decisions.md#footprint-floor. VARIANTS: KIB_FLOOR words (round 1:
# the default below; round 2: "144_1 96_2 80_2 64_2 48_2 32_2").
# tools/experiments/footprint_floor/run.sh STM_BENCH OUTDIR   (rows: OUTDIR/f<KIB>_<FLOOR>.jsonl)
set -uo pipefail
S=${1:?usage: run.sh STM_BENCH OUTDIR}
O=${2:?usage: run.sh STM_BENCH OUTDIR}
read -ra variants <<< "${VARIANTS:-144_1 144_2 128_2 112_2 96_2}"
mkdir -p "$O"
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0
run() {
  for v in "${variants[@]}"; do
    timeout 100 env STM_FOOTPRINT_KIB="${v%_*}" STM_FOOTPRINT_MIN_WARPS="${v#*_}" "$S" --backend gpu --repeat 3 \
      --warmup 1 --format json -q "$@" >> "$O/f$v.jsonl" 2>> "$O/err.log" || echo "FAILED $v $*" >> "$O/err.log"
  done
}
run --workload array --words 2097152 --reads 16 --ops 2162688 --validation all --sweep threads=24576,full --sweep cm=prstm,backoff
run --workload array --words 2097152 --reads 64 --ops 2162688 --validation all --sweep threads=6144,24576,full --sweep cm=prstm,backoff
run --workload array --words 2097152 --reads 256 --ops 270336 --validation all --sweep threads=6144,24576,full --cm prstm
run --workload array --words 32768 --reads 16 --ops 2162688 --validation all --sweep threads=6144,24576,full --cm prstm
run --workload graph --impl tx --threads full --sweep cm=prstm,backoff
run --workload queue --impl tx --threads full --sweep cm=prstm,backoff
