#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Experiment: a due escalation takes the token only when it is free (STM_ESCALATE_WHEN_FREE=1, the
# default) against waiting for it (0, the earlier rule); one binary, the two values in turn per
# configuration, medians of 3 after a warm-up. docs/design-decisions.md#escalation-when-free.
# tools/experiments/escalation_when_free/run.sh STM_BENCH OUTDIR   (rows: OUTDIR/w1.jsonl, OUTDIR/w0.jsonl)
set -uo pipefail
S=${1:?usage: run.sh STM_BENCH OUTDIR}
O=${2:?usage: run.sh STM_BENCH OUTDIR}
mkdir -p "$O"
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0
run() {
  for v in 1 0; do
    timeout 90 env STM_ESCALATE_WHEN_FREE=$v "$S" --backend gpu --repeat 3 --warmup 1 --format json -q "$@" \
      >> "$O/w$v.jsonl" 2>> "$O/err.log" || echo "FAILED w$v $*" >> "$O/err.log"
  done
}
run --workload array --words 32768 --reads 16 --ops 2162688 --validation all --sweep threads=24576,full --sweep cm=prstm,backoff,delay
run --workload array --words 32768 --reads 2 --ops 2162688 --validation all --threads full --sweep cm=prstm,backoff
for r in 16 64; do
  run --workload array --words 2097152 --reads $r --ops 2162688 --validation all --threads full --sweep cm=prstm,backoff
done
run --workload array --words 2097152 --reads 256 --ops 270336 --validation all --threads full --sweep cm=prstm,backoff
for p in paper high; do run --workload vacation --preset $p --impl tx --threads full --sweep cm=prstm,backoff,delay,gpustm; done
for m in 50/50/0 20/20/60; do run --workload skiplist --keys 5000 --levels 5 --mix $m --impl tx --threads full --sweep cm=prstm,backoff; done
run --workload bank --accounts 4096 --threads full --sweep cm=prstm,backoff
run --workload kmeans --impl tx --threads full --sweep cm=prstm,backoff
run --workload graph --impl tx --threads full --sweep cm=prstm,backoff
