#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Where prstm's commit-time path spends the 5-7% more instructions per transaction than backoff's
# (docs/design-decisions.md#prstm-pause-cap; results/experiments/prstm_backoff_ncu_70308ee.txt; run at
# 7acd340's device code: results/experiments/prstm_commit_cost_7acd340.txt). Nsight Compute's per-source counters of the
# array's transaction kernel, 2M words, R = 16, commit-time and opaque validation, prstm and backoff,
# at 1,536 threads (2% aborts: the per-transaction cost) and full occupancy, one launch each.
# Build stm_bench with line information first:
#   cmake -S . -B build-lineinfo -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90-real \
#     -DCMAKE_CUDA_FLAGS=-lineinfo -DPRSTM_BUILD_TESTS=OFF -DPRSTM_BUILD_TOOLS=ON -DPRSTM_ENABLE_CUDA=ON \
#     -DPRSTM_WITH_NVSHMEM=OFF && ninja -C build-lineinfo stm_bench
# then, on an H100/H200:
#   tools/experiments/prstm_commit_cost/run.sh build-lineinfo/stm_bench OUTDIR
# writes OUTDIR/<validation>_<cm>_<threads>.ncu-rep (open with ncu-ui or `ncu --import F --page source
# --csv --print-source sass,cuda`) and OUTDIR/summary.txt (the instruction totals of each).
set -uo pipefail
S=${1:?usage: run.sh STM_BENCH OUTDIR}
O=${2:?usage: run.sh STM_BENCH OUTDIR}
mkdir -p "$O"
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0
for thr in 1536 full; do
  for v in commit opaque; do
    for cm in prstm backoff; do
      f="$O/${v}_${cm}_$thr"
      timeout 300 ncu --clock-control none --kernel-name-base demangled --kernel-name regex:tx_kernel --launch-count 1 \
        --section SourceCounters --section InstructionStats --import-source yes \
        --metrics smsp__inst_executed.sum,smsp__thread_inst_executed.sum -f -o "$f" \
        "$S" --backend gpu --repeat 1 --warmup 0 -q --workload array --words 2097152 --reads 16 --ops 2162688 \
        --validation "$v" --threads "$thr" --cm "$cm" > "$f.log" 2>&1 || echo "FAILED $v $cm $thr" >> "$O/summary.txt"
      { echo "== $v $cm $thr"; ncu --import "$f.ncu-rep" --metrics smsp__inst_executed.sum,smsp__thread_inst_executed.sum \
          --page raw --csv 2>/dev/null | tail -n +1; } >> "$O/summary.txt"
    done
  done
done
