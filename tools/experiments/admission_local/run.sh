#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Experiment (measured, not adopted: docs/design-decisions.md#footprint-admission):
# admission's footprint bound, footprint.patch beside this script (it adds
# stm::throttle_config's admission_local_kib, read from STM_ADMISSION_LOCAL_KIB,
# default 192, to stm/detail/admission.hpp). With the patch applied
# (git apply tools/experiments/admission_local/footprint.patch) and stm_bench
# built, one binary, the variants in turn, medians of 3 after a warm-up:
#   off  STM_ADMISSION_LOCAL_KIB=0: no footprint bound (admission as before it)
#   K    STM_ADMISSION_LOCAL_KIB=K for each K of LOCAL_KIBS (default "128 192")
#   Kp0  K with STM_ADMISSION_PATIENCE=0 (a refused lane waits as long as its gate is full), K of PATIENT_KIBS
# array over 2M words (R = 16 opaque and commit-time over the thread sweep,
# R = 64 and 256 at full occupancy), over 32k words (R = 16), vacation (both
# presets), the tx skiplist 50/50/0, the graph and k-means' per-point update
# at full occupancy under prstm (and backoff where it is the best manager),
# and the bank at 2.6M accounts (sets in registers: no footprint; the cost
# where nothing conflicts).
# Measured: LOCAL_KIBS="96 192" PATIENT_KIBS=128 tools/experiments/admission_local/run.sh STM_BENCH OUTDIR
# tools/experiments/admission_local/run.sh STM_BENCH OUTDIR
set -uo pipefail
B=${1:?usage: run.sh STM_BENCH OUTDIR}
out=${2:?usage: run.sh STM_BENCH OUTDIR}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0
t0=$(date +%s)
variants=(off)
for k in ${LOCAL_KIBS:-128 192}; do variants+=("$k"); done
for k in ${PATIENT_KIBS:-}; do variants+=("${k}p0"); done
run() { local v=$1; shift
  local env=(STM_ADMISSION_LOCAL_KIB=0)
  case "$v" in off) ;; *p0) env=(STM_ADMISSION_LOCAL_KIB=${v%p0} STM_ADMISSION_PATIENCE=0) ;; *) env=(STM_ADMISSION_LOCAL_KIB=$v) ;; esac
  env "${env[@]}" timeout 120 "$B" --backend gpu --repeat 3 --warmup 1 --format json --out "$out/$v.jsonl" -q \
    "$@" >/dev/null 2>>"$out/err.log" || echo "FAILED($?) $v: $*"; }
for v in "${variants[@]}"; do
  run "$v" --workload array --words 2097152 --reads 16 --ops 2162688 --validation all --sweep threads=24576,67584,full --cm prstm
  run "$v" --workload array --words 2097152 --reads 64 --ops 2162688 --validation all --threads full --cm prstm
  run "$v" --workload array --words 2097152 --reads 256 --ops 270336 --threads full --cm prstm
  run "$v" --workload array --words 32768 --reads 16 --ops 2162688 --threads full --cm prstm
  run "$v" --workload vacation --preset high --impl tx --threads full --sweep cm=prstm,backoff
  run "$v" --workload vacation --preset paper --impl tx --threads full --sweep cm=prstm,backoff
  run "$v" --workload skiplist --keys 5000 --levels 5 --mix 50/50/0 --impl tx --threads full --cm prstm
  run "$v" --workload graph --impl tx --threads full --sweep cm=prstm,backoff
  run "$v" --workload kmeans --impl tx --iterations 2 --threads full --cm prstm
  run "$v" --workload bank --accounts 2621440 --tpt 64 --seconds 0.3 --semantic 0 --read-only 0 --hash 1 --threads full --cm prstm
  echo "variant $v: $(( $(date +%s) - t0 )) s"
done
python3 - "$out" "${variants[@]}" <<'PY'
import json, os, sys
out, variants = sys.argv[1], sys.argv[2:]
rows = {}
for v in variants:
    p = os.path.join(out, v + ".jsonl")
    if not os.path.exists(p): continue
    for line in open(p):
        r = json.loads(line)
        key = (r["workload"], str(r.get("reads", r.get("preset", r.get("mix", r.get("accounts", ""))))),
               str(r.get("words", "")), r.get("validation", ""), r.get("cm", ""), r["threads"])
        rows.setdefault(key, {})[v] = r["throughput"] if r["verified"] else float("nan")
print("workload param words validation cm threads " + " ".join(variants) + "  (M/s)")
for k, d in rows.items():
    print(" ".join(map(str, k)), " ".join(f"{d[v]/1e6:.2f}" if v in d else "-" for v in variants))
PY
