#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Experiment: the attempt from which a long transaction escalates
# (stm::throttle_config::escalate_after, STM_ESCALATE_AFTER; the descriptors'
# EscalateAfter is 8), at full occupancy, one binary, four variants:
#   A  the defaults (escalation from attempt 8)
#   F  STM_ESCALATE_AFTER=16
#   G  STM_ESCALATE_AFTER=32
#   H  STM_ESCALATE_AFTER=64
# over the scaling suite's workloads that escalate (array over 2M and 32k
# words, opaque and commit-time validation; vacation; k-means; graph) and two
# that do not (bank at 4,096 and 2,621,440 accounts), prstm and backoff side
# by side where the default manager trails.
# Why: admission tuning (ab_admission_tuning.sh, variant E) showed array R = 256
# at full occupancy at 6x with escalation from attempt 32 and unbounded
# admission patience, the patience alone costing vacation 20%; this separates
# the escalation threshold from the patience.
# tools/experiments/ab_escalation.sh OUTDIR   (STM_BENCH=path to stm_bench, required)
set -uo pipefail
out=${1:?OUTDIR}
B=${STM_BENCH:?STM_BENCH=path to a built stm_bench}
mkdir -p "$out"
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0
t0=$(date +%s)
declare -A V=([A]="" [F]="STM_ESCALATE_AFTER=16" [G]="STM_ESCALATE_AFTER=32" [H]="STM_ESCALATE_AFTER=64")
run() { local v=$1; shift
  env ${V[$v]} timeout 100 "$B" --backend gpu --repeat 3 --warmup 1 --format json --out "$out/$v.jsonl" -q \
    "$@" >/dev/null 2>>"$out/err.log" || echo "FAILED($?) $v: $*"; }
for v in ${VARIANTS:-A F G H}; do
  run $v --workload array --words 2097152 --reads 64 --ops 2162688 --threads full --validation all --sweep cm=prstm,backoff
  run $v --workload array --words 2097152 --reads 256 --ops 270336 --threads full --sweep cm=prstm,backoff
  run $v --workload array --words 2097152 --reads 16 --ops 2162688 --threads full --validation all --cm prstm
  run $v --workload array --words 32768 --reads 16 --ops 270336 --threads full --cm prstm
  run $v --workload bank --accounts 4096 --tpt 64 --seconds 0.3 --semantic 0 --read-only 0 --hash 1 --threads full
  run $v --workload bank --accounts 2621440 --tpt 64 --seconds 0.3 --semantic 0 --read-only 0 --hash 1 --threads full
  for preset in paper high; do
    run $v --workload vacation --preset $preset --impl tx --threads full --tpt 64 --hash 1 --sweep cm=prstm,backoff
  done
  run $v --workload kmeans --points 1000000 --clusters 16 --iterations 5 --threads full --cm prstm --impl tx-aggregated
  run $v --workload graph --vertices 1000000 --edges 10000000 --threads full --impl tx --sweep cm=prstm,backoff
  echo "variant $v: $(( $(date +%s) - t0 )) s"
done
python3 - "$out" <<'PY'
import glob, json, os, sys
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.jsonl"))):
    for line in open(f):
        r = json.loads(line)
        what = r.get("reads", r.get("accounts", r.get("preset", r.get("impl", ""))))
        print(os.path.basename(f)[:-6], r["workload"], what, r.get("words", ""), r.get("validation", ""), r.get("cm"),
              f"{r['throughput']:.4g}", "ok" if r["verified"] else "FAILED",
              "escalations", r.get("escalations"), "abort_rate", r.get("abort_rate"))
PY
