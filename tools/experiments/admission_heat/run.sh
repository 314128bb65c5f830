#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Experiment: which attempts admission control gates, at full occupancy, one
# binary, the throttle read from the environment (stm::throttle_config):
#   A  the defaults (heat 512: a lane's first attempts are gated once about
#      half of its recent attempts aborted; patience 8 refusals)
#   B  STM_ADMISSION_HEAT=128: gated from about one abort in eight
#   C  B with STM_ADMISSION_PATIENCE=0: a driver's lane waits as long as its
#      SM's gate is full
#   E  C with STM_ADMISSION_CLIMB=1: one limit for every SM, moved by hill
#      climbing on the gated commits' rate instead of by aborts
#   G  STM_ADMISSION_PATIENCE=0 STM_ADMISSION_CLIMB=1 (the default heat)
# Workloads: those of the scaling suite that fall at full occupancy (array,
# k-means) and those admission must not slow (bank, vacation, graph, skiplist).
# tools/experiments/admission_heat/run.sh STM_BENCH OUTDIR [VARIANTS]
set -uo pipefail
B=${1:?STM_BENCH}; out=${2:?OUTDIR}; variants=${3:-"A C E G"}
mkdir -p "$out"
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0
t0=$(date +%s)
declare -A V=([A]="" [B]="STM_ADMISSION_HEAT=128" [C]="STM_ADMISSION_HEAT=128 STM_ADMISSION_PATIENCE=0"
              [E]="STM_ADMISSION_HEAT=128 STM_ADMISSION_PATIENCE=0 STM_ADMISSION_CLIMB=1"
              [G]="STM_ADMISSION_PATIENCE=0 STM_ADMISSION_CLIMB=1")
run() { local v=$1; shift
  env ${V[$v]} timeout 100 "$B" --backend gpu --repeat 3 --warmup 1 --format json --out "$out/$v.jsonl" -q \
    --threads full "$@" >/dev/null 2>>"$out/err.log" || echo "FAILED($?) $v: $*"; }
for v in $variants; do
  run $v --workload array --words 2097152 --reads 64 --ops 2162688 --validation all --cm prstm
  run $v --workload array --words 2097152 --reads 256 --ops 270336 --validation all --cm prstm
  run $v --workload array --words 32768 --reads 16 --ops 2162688 --validation all --cm prstm
  run $v --workload kmeans --impl tx-aggregated --cm prstm
  run $v --workload kmeans --impl tx --iterations 2 --cm prstm
  run $v --workload bank --accounts 4096 --tpt 64 --seconds 0.3 --semantic 0 --read-only 0 --hash 1 --cm prstm
  run $v --workload bank --accounts 2621440 --tpt 64 --seconds 0.3 --semantic 0 --read-only 0 --hash 1 --cm prstm
  run $v --workload vacation --preset paper --impl tx --sweep cm=prstm,backoff
  run $v --workload vacation --preset high --impl tx --cm prstm
  run $v --workload graph --impl tx --sweep cm=prstm,backoff
  run $v --workload skiplist --keys 5000 --levels 5 --mix 50/50/0 --ops 1000000 --impl tx --cm prstm
  echo "variant $v: $(( $(date +%s) - t0 )) s"
done
