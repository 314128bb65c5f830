#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Experiment: admission control's and escalation's tuning (stm::throttle_config,
# read from the environment) at full occupancy, one binary, five variants:
#   A  the defaults (patience 8, heat 512, pause cap 128 ns << 7)
#   B  STM_ADMISSION_PATIENCE=0: a driver's lane waits as long as its gate is full
#   C  B with the pause cap at 128 ns << 9 (64 us): fewer polls of a full gate
#   D  C with STM_ADMISSION_HEAT=0: every attempt passes the gate, first ones too
#   E  B with STM_ESCALATE_AFTER=32: fewer escalations (they run one at a time per table)
# and, for B and C, array R = 64 over the thread sweep.
# tools/experiments/ab_admission_tuning.sh OUTDIR  (STM_BENCH=path: use that build, else build one here)
set -uo pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0
t0=$(date +%s)
B=${STM_BENCH:-}
if [ -z "$B" ]; then
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90-real \
    -DPRSTM_BUILD_TESTS=OFF >/dev/null || exit 1
  ninja -C build-gpu stm_bench >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
  echo "build $(( $(date +%s) - t0 )) s"
  B=build-gpu/stm_bench
fi
declare -A V=([A]="" [B]="STM_ADMISSION_PATIENCE=0"
              [C]="STM_ADMISSION_PATIENCE=0 STM_ADMISSION_PAUSE_LOG2=9"
              [D]="STM_ADMISSION_PATIENCE=0 STM_ADMISSION_PAUSE_LOG2=9 STM_ADMISSION_HEAT=0"
              [E]="STM_ADMISSION_PATIENCE=0 STM_ESCALATE_AFTER=32")
run() { local v=$1; shift
  env ${V[${v%sweep}]} timeout 100 "$B" --backend gpu --repeat 3 --warmup 1 --format json --out "$out/$v.jsonl" -q \
    "$@" >/dev/null 2>>"$out/err.log" || echo "FAILED($?) $v: $*"; }
for v in A B C D E; do
  run $v --workload array --words 2097152 --reads 64 --ops 2162688 --threads full --sweep cm=prstm,backoff
  run $v --workload array --words 2097152 --reads 256 --ops 270336 --threads full --cm prstm
  run $v --workload array --words 2097152 --reads 16 --ops 2162688 --threads full --cm prstm
  run $v --workload bank --accounts 4096 --tpt 64 --seconds 0.3 --semantic 0 --read-only 0 --hash 1 --threads full
  run $v --workload bank --accounts 2621440 --tpt 64 --seconds 0.3 --semantic 0 --read-only 0 --hash 1 --threads full
  run $v --workload vacation --preset paper --impl tx --threads full --tpt 64 --hash 1
  run $v --workload skiplist --keys 5000 --levels 5 --mix 50/50/0 --ops 1000000 --impl tx --threads full
  echo "variant $v: $(( $(date +%s) - t0 )) s"
done
for v in B C; do
  run ${v}sweep --workload array --words 2097152 --reads 64 --ops 2162688 --sweep threads=6144,24576,67584
done
python3 - "$out" <<'PY'
import glob, json, os, sys
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.jsonl"))):
    for line in open(f):
        r = json.loads(line)
        print(os.path.basename(f)[:-6], r["workload"], r.get("reads", r.get("accounts", r.get("preset", ""))), r.get("cm"),
              r["threads"], f"{r['throughput']:.4g}", "ok" if r["verified"] else "FAILED",
              "escalations", r.get("escalations"), "abort_rate", r.get("abort_rate"))
PY
