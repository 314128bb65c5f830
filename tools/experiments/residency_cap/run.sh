#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Measured (results/experiments/residency_cap_85ab170.jsonl; docs/design-decisions.md#residency-cap).
# Blocks resident per SM, capped at the launch (resident.patch: STM_EXP_RESIDENT=k, dynamic shared
# memory; 0 = uncapped, the library's launch), at full occupancy (270,336 logical threads: a capped launch
# runs them in more waves, each thread id once). Why: code changes that free registers let a third block
# of the R >= 16 kernels reside, and that cost the array 3-27% (results/experiments/cold_release_85ab170.jsonl);
# docs/design-decisions.md#residency-cap has been open since the skiplist gained 3.4x at one block an SM
# (before admission control). A = the tree with resident.patch; B (optional) = a variant with it too
# (here: the escalated attempt's batch, tools/experiments/escalation_prehold), run at caps 0 and 2 on the
# configurations where it moved. Medians of 3 after a warm-up; rows carry `build` and `resident_cap`.
#   tools/experiments/residency_cap/run.sh A/stm_bench OUT.jsonl [B/stm_bench]
set -uo pipefail
A=${1:?usage: run.sh STM_BENCH_A OUT.jsonl [STM_BENCH_B]}
O=${2:?usage: run.sh STM_BENCH_A OUT.jsonl [STM_BENCH_B]}
B=${3:-}
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0
pt() {
  local build=$1 cap=$2 bin=$3; shift 3
  STM_EXP_RESIDENT=$cap timeout 150 "$bin" --backend gpu --repeat 3 --warmup 1 --format json -q --threads full "$@" |
    python3 "$(dirname "$0")/../tag_rows.py" build=$build resident_cap=$cap >> "$O" ||
    echo "FAILED $build cap $cap: $*" >&2
}
# Caps 0, 1, 2 everywhere (the R >= 16 kernels hold 2 blocks of 256 uncapped), 4 where sets small
# enough to unroll leave more resident.
for cap in 0 1 2 4; do
  if [ $cap -lt 4 ]; then
    pt A $cap "$A" --workload array --words 2097152 --reads 16 --tpt 32 --validation all --sweep cm=prstm,backoff
    pt A $cap "$A" --workload array --words 2097152 --reads 64 --tpt 32 --validation all --sweep cm=prstm,backoff
    pt A $cap "$A" --workload array --words 32768 --reads 16 --tpt 32 --validation all --sweep cm=prstm,backoff
    pt A $cap "$A" --workload vacation --preset paper --impl tx --sweep cm=prstm,backoff
    pt A $cap "$A" --workload vacation --preset high --impl tx --sweep cm=prstm,backoff
  fi
  pt A $cap "$A" --workload array --words 32768 --reads 2 --tpt 32 --validation all --sweep cm=prstm,gpustm
  pt A $cap "$A" --workload graph --impl tx --sweep cm=prstm,backoff
  pt A $cap "$A" --workload skiplist --keys 5000 --levels 5 --mix 50/50/0 --impl tx --sweep cm=prstm,backoff
  pt A $cap "$A" --workload kmeans --impl tx --iterations 2 --sweep cm=prstm,backoff
done
if [ -n "$B" ]; then
  for cap in 0 2; do
    for v in A B; do
      bin=$A; [ $v = B ] && bin=$B
      pt $v $cap "$bin" --workload array --words 32768 --reads 256 --tpt 1 --validation opaque --cm prstm
      [ $v = B ] && pt B $cap "$B" --workload array --words 2097152 --reads 64 --tpt 32 --validation all --sweep cm=prstm,backoff
      [ $v = B ] && pt B $cap "$B" --workload vacation --preset paper --impl tx --sweep cm=prstm,backoff
    done
  done
fi
