#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Experiment: admission control after the bounded gate, the boosted containers, on one GPU.
set -uo pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s)
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null || exit 1
ninja -C build-gpu stm_bench list_lin_tests_gpu skiplist_lin_tests_gpu >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
B=build-gpu/stm_bench
run() { local adm=$1; shift; STM_ADMISSION=$adm timeout 60 "$B" --backend gpu --repeat 3 --warmup 1 --format json --out "$out/ab_$adm.jsonl" -q "$@" >/dev/null 2>>"$out/err.log" || echo "FAILED($?) adm=$adm: $*"; }
both() { run 1 "$@"; run 0 "$@"; }
both --workload bank --accounts 4096 --threads full --tpt 64 --seconds 0.3 --semantic 0 --read-only 0 --hash 1
both --workload vacation --preset paper --threads full
run 1 --workload vacation --preset paper --threads full --impl native
run 1 --workload bank --accounts 2621440 --threads full --tpt 64 --seconds 0.3 --semantic 0 --read-only 0 --hash 1
run 1 --workload array --reads 64 --threads full --ops 2162688
run 1 --workload array --reads 64 --threads 6720 --ops 2162688
run 1 --workload array --reads 64 --threads full --ops 2162688 --impl native
echo "bench-a $(( $(date +%s) - t0 )) s"
run 1 --workload list --impl all --keys 10000 --ops 1000000 --mix 20/20/60 --threads full
run 1 --workload skiplist --keys 5000 --levels 5 --threads full --mix 50/50/0 --impl all
run 1 --workload skiplist --keys 5000 --levels 5 --threads full --mix 20/20/60 --impl all
echo "bench-b $(( $(date +%s) - t0 )) s"
for t in list/list_lin_tests_gpu skiplist/skiplist_lin_tests_gpu; do
  timeout 90 ./build-gpu/tests/containers/$t --gtest_brief=1 >"$out/$(basename $t).log" 2>&1; echo "$t rc=$?"; tail -3 "$out/$(basename $t).log"
done
echo "total $(( $(date +%s) - t0 )) s"
python3 tools/experiments/ab_table.py "$out"/ab_1.jsonl "$out"/ab_0.jsonl
