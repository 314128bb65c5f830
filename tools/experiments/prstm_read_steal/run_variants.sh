#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Experiment, second round: prstm moved toward backoff's commit protocol one
# step at a time, to find which step costs prstm the graph and vacation.
# STM_BENCH: stm_bench built from a tree with variants.patch applied (it
# includes knob.patch); STM_PRSTM_READ_STEAL_OFF selects the variant:
#   0 prstm as it is; 1 validation gives way instead of stealing a read's
#   lower-priority pre-lock; 3 no steal at all (step 1 refuses every other
#   pre-lock, step 2 gives way); 4 backoff's protocol (entry by entry, first
#   failure aborts, no steal) with prstm's pause and its early note of a
#   higher-priority pre-lock seen by a read; 5 as 4 without that note;
#   6 (sets too large to unroll) prstm's steps 1 and 2 with the covered
#   values checked in the validation's one pass, step 3 only the final
#   locks; 7 as 6 without steals; 8 (sets too large to unroll) entry by
#   entry, the first refusal aborts, a lower-priority pre-lock (written or
#   read) waited for up to 64 polls, then stolen.
# VARIANTS (default "0 1 3 4 5") and OTHERS, the managers beside (default
# backoff), ROUNDS rounds (default 2), full occupancy.
# tools/experiments/prstm_read_steal/run_variants.sh STM_BENCH OUTDIR
set -uo pipefail
B=${1:?STM_BENCH}; out=${2:?OUTDIR}; rounds=${ROUNDS:-2}
mkdir -p "$out"
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0
run() { local v=$1; shift
  STM_PRSTM_READ_STEAL_OFF=$v timeout 120 "$B" --backend gpu --repeat 3 --warmup 1 \
    --format json --out "$out/v$v.jsonl" -q --threads full "$@" >/dev/null 2>>"$out/err.log" || echo "FAILED($?) $v: $*"; }
for round in $(seq "$rounds"); do
  for cm in $(for v in ${VARIANTS:-0 1 3 4 5}; do echo prstm:$v; done) $(for m in ${OTHERS:-backoff}; do echo $m:$m; done); do
    m=${cm%:*}; v=${cm#*:}
    run $v --workload graph --impl tx --cm $m
    run $v --workload vacation --preset paper --impl tx --cm $m
    run $v --workload vacation --preset high --impl tx --cm $m
    run $v --workload bank --accounts 4096 --tpt 64 --seconds 0.3 --semantic 0 --read-only 0 --hash 1 --cm $m
    [ "$m" != prstm ] && continue
    run $v --workload bank --accounts 2621440 --tpt 64 --seconds 0.3 --semantic 0 --read-only 0 --hash 1 --cm $m
    run $v --workload array --words 2097152 --reads 64 --ops 2162688 --validation all --cm $m
    run $v --workload array --words 2097152 --reads 256 --ops 540672 --cm $m
    run $v --workload skiplist --keys 5000 --levels 5 --mix 50/50/0 --ops 1000000 --impl tx --cm $m
  done
done
