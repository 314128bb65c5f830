#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Experiment probe (not a suite): build stm_bench for sm_90 and run the array
# workload at a few points. Usage: tools/gpu_suites/scaling_probe.sh OUTDIR [POINTS...]
set -uo pipefail
out=${1:?OUTDIR}; shift
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s)
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPRSTM_BUILD_TESTS=OFF >/dev/null || exit 1
ninja -C build-gpu stm_bench >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
B=build-gpu/stm_bench
run() { timeout 120 "$B" --workload array --backend gpu --repeat 3 --warmup 1 --format json --out "$out/probe.jsonl" -q "$@" >/dev/null 2>>"$out/err.log" || echo "FAILED($?): $*"; }
for thr in 6720 full; do
  for r in 16 64 256; do
    ops=$(( r >= 256 ? 270336 : 1081344 ))
    run --reads $r --threads $thr --ops $ops --impl all --validation all
    run --reads $r --threads $thr --ops $ops --cm backoff
  done
done
echo "total $(( $(date +%s) - t0 )) s"
python3 - "$out/probe.jsonl" <<'PY'
import json,sys
for l in open(sys.argv[1]):
    d=json.loads(l); a=d.get("aborts",{})
    print(f'{d["cm"]:8} {d.get("validation",""):7} R={d["reads"]:<4} thr={d["threads"]:<7} {d["throughput"]/1e6:9.3f} M/s  aborts/commit={sum(a.values())/max(1,d["commits"]):7.2f} val={a.get("validation",0)} rl={a.get("read_locked",0)} pre={a.get("prelock",0)} lock={a.get("lock",0)} esc={d.get("escalations",0)} ok={d["verified"]}')
PY
