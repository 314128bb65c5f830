#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Crowded launches open the footprint gate to warps whose sets cannot fit it
# (docs/design-decisions.md#footprint-open; adopted in ddccdae as
# throttle_config::footprint_open_warps, STM_FOOTPRINT_OPEN_WARPS, 16 by default).
# Its A/B on a built stm_bench, one binary, the variants in turn per configuration,
# medians of 3 after a warm-up:
#   tools/experiments/footprint_open/run.sh STM_BENCH OUTDIR   (rows: OUTDIR/o<N>.jsonl)
# OPEN="16 0" by default (N: STM_FOOTPRINT_OPEN_WARPS; 0: such warps enter, alone, in every launch);
# add k0 to OPEN for the gate off (STM_FOOTPRINT_KIB=0).
# open_warps.patch beside this script is the record of the first rule measured (against 0c3dadb;
# it no longer applies): the lanes attempting in a pass, their last attempt's bytes over the
# budget. The second rule measured was the same patch with the lane's demand (its largest attempt
# of the current transaction, or its last finished one) in place of the last attempt's bytes; the
# decided rule takes the demand over every live lane of the warp.
# patience.patch (against ddccdae) makes the footprint gate's patience an experiment variable
# (STM_FOOTPRINT_PATIENCE_LOG2, 8 by default: 256 passes): results/experiments/footprint_patience_ddccdae.jsonl.
set -uo pipefail
S=${1:?usage: run.sh STM_BENCH OUTDIR}
O=${2:?usage: run.sh STM_BENCH OUTDIR}
read -ra variants <<< "${OPEN:-16 0}"
mkdir -p "$O"
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0
run() {
  for v in "${variants[@]}"; do
    local env_v="STM_FOOTPRINT_OPEN_WARPS=$v"
    [ "$v" = k0 ] && env_v="STM_FOOTPRINT_KIB=0"
    timeout 150 env "$env_v" "$S" --backend gpu --repeat 3 --warmup 1 --format json -q "$@" \
      >> "$O/o$v.jsonl" 2>> "$O/err.log" || echo "FAILED $v $*" >> "$O/err.log"
  done
}
run --workload array --words 2097152 --reads 256 --ops 270336 --validation all \
  --sweep threads=1536,6144,24576,67584,full --sweep cm=prstm,backoff
run --workload array --words 2097152 --reads 64 --ops 2162688 --validation all --threads full --cm prstm
run --workload array --words 32768 --reads 64 --ops 270336 --validation opaque --sweep threads=6144,full --cm prstm
run --workload array --words 2097152 --reads 16 --ops 2162688 --validation all --threads full --cm prstm
run --workload array --words 32768 --reads 16 --ops 2162688 --validation all --threads full --cm prstm
run --workload graph --impl tx --threads full --cm prstm
