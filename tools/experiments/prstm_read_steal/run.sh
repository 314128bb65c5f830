#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Experiment: does prstm lose the graph and vacation to backoff because its
# read validation steals lower-priority pre-locks (docs/design-decisions.md#prstm-pause-cap)?
# STM_BENCH: stm_bench built from a tree with knob.patch applied; one binary,
# prstm with STM_PRSTM_READ_STEAL_OFF=0 (steal: the default), 1 (give way) and
# 2 (wait for the writer's outcome, then steal), backoff beside, two
# alternating rounds, full occupancy.
# tools/experiments/prstm_read_steal/run.sh STM_BENCH OUTDIR
set -uo pipefail
B=${1:?STM_BENCH}; out=${2:?OUTDIR}
mkdir -p "$out"
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0
run() { local v=$1; shift
  local k=0; [ "$v" = giveway ] && k=1; [ "$v" = wait ] && k=2
  STM_PRSTM_READ_STEAL_OFF=$k timeout 120 "$B" --backend gpu --repeat 3 --warmup 1 \
    --format json --out "$out/$v.jsonl" -q --threads full "$@" >/dev/null 2>>"$out/err.log" || echo "FAILED($?) $v: $*"; }
for round in 1 2; do
  for v in steal giveway wait; do
    run $v --workload graph --impl tx --cm prstm
    run $v --workload graph --impl tx-filtered --cm prstm
    run $v --workload vacation --preset paper --impl tx --cm prstm
    run $v --workload vacation --preset high --impl tx --cm prstm
    run $v --workload bank --accounts 2621440 --tpt 64 --seconds 0.3 --semantic 0 --read-only 0 --hash 1 --cm prstm
    run $v --workload bank --accounts 4096 --tpt 64 --seconds 0.3 --semantic 0 --read-only 0 --hash 1 --cm prstm
    run $v --workload array --words 2097152 --reads 64 --ops 2162688 --validation all --cm prstm
    run $v --workload skiplist --keys 5000 --levels 5 --mix 50/50/0 --ops 1000000 --impl tx --cm prstm
  done
  run backoff --workload graph --impl tx --cm backoff
  run backoff --workload vacation --preset paper --impl tx --cm backoff
done
