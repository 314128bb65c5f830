#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Experiment: admission control on/off (STM_ADMISSION) at the scaling points.
# tools/experiments/ab_admission.sh OUTDIR   (STM_BENCH=path: use that build, else build one here)
set -uo pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s)
B=${STM_BENCH:-}
if [ -z "$B" ]; then
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPRSTM_BUILD_TESTS=OFF >/dev/null || exit 1
  ninja -C build-gpu stm_bench >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
  echo "build $(( $(date +%s) - t0 )) s"
  B=build-gpu/stm_bench
fi
run() { local adm=$1; shift; STM_ADMISSION=$adm timeout 60 "$B" --backend gpu --repeat 3 --warmup 1 --format json --out "$out/ab_$adm.jsonl" -q "$@" >/dev/null 2>>"$out/err.log" || echo "FAILED($?) adm=$adm: $*"; }
both() { run 1 "$@"; run 0 "$@"; }
both --workload array --reads 64 --threads full --ops 2162688
both --workload array --reads 64 --threads 6720 --ops 2162688
both --workload array --reads 256 --threads full --ops 270336
both --workload array --reads 16 --threads full --ops 2162688 --validation all
both --workload array --reads 16 --words 32768 --threads full --ops 2162688
echo "array $(( $(date +%s) - t0 )) s"
both --workload bank --accounts 4096 --threads full --tpt 64 --seconds 0.3 --semantic 0 --read-only 0 --hash 1
both --workload bank --accounts 2621440 --threads full --tpt 64 --seconds 0.3 --semantic 0 --read-only 0 --hash 1
echo "bank $(( $(date +%s) - t0 )) s"
both --workload vacation --preset paper --threads full --impl all
run 1 --workload vacation --preset paper --threads full --cm backoff
both --workload skiplist --keys 5000 --levels 5 --threads full --mix 50/50/0 --impl tx
echo "total $(( $(date +%s) - t0 )) s"
python3 tools/experiments/ab_table.py "$out"/ab_1.jsonl "$out"/ab_0.jsonl
