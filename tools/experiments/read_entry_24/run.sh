#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Experiment (measured, not adopted: results/experiments/read_entry_24_f4b5c76.jsonl): read entries of 24 bytes
# instead of 32. read_entry.patch beside this script drops the entry's lock
# index (stm/tx_sets.hpp) and recomputes it from the address where it is used
# (lock_table_ref::index_of: a subtraction and a shift inside the covered
# range), so that more of a warp's sets fit under the footprint gate's budget
# and in L1 (docs/design-decisions.md#footprint-gate). ptxas for sm_90 on the
# array's kernels: results/experiments/read_entry_24_ptxas_b065938.txt. The
# entry's lock index is part of the managers' interface (stm/manager.hpp; the
# tests' user manager reads it, patched here too): landing this changes it.
# With the patch the CPU builds of core, admission, long_tx, history and cmp
# tests pass.
# A/B, two stm_bench binaries built from the same tree without and with the
# patch (git apply tools/experiments/read_entry_24/read_entry.patch), run in
# turn, medians of 3 after a warm-up, prstm and backoff:
#   array 2M words R = 16 and 64 (24,576 threads and full occupancy) and R =
#   256, 32k words R = 2 and 16, both validations; vacation high and paper and
#   the tx skiplist 50/50/0 at full occupancy; the bank at 2.6M accounts.
# tools/experiments/read_entry_24/run.sh STM_BENCH_A STM_BENCH_B OUTDIR
set -uo pipefail
A=${1:?usage: run.sh STM_BENCH_A STM_BENCH_B OUTDIR}
Bb=${2:?usage: run.sh STM_BENCH_A STM_BENCH_B OUTDIR}
out=${3:?usage: run.sh STM_BENCH_A STM_BENCH_B OUTDIR}
mkdir -p "$out"
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0
run() { local v=$1 bin=$2; shift 2
  timeout 120 "$bin" --backend gpu --repeat 3 --warmup 1 --format json --out "$out/entry_$v.jsonl" -q "$@" \
    >/dev/null 2>>"$out/err.log" || echo "FAILED($?) $v: $*"; }
for v in A B; do
  bin=$A; [ "$v" = B ] && bin=$Bb
  run $v "$bin" --workload array --words 2097152 --reads 16 --ops 2162688 --validation all --sweep threads=24576,full --sweep cm=prstm,backoff
  run $v "$bin" --workload array --words 2097152 --reads 64 --ops 2162688 --validation all --sweep threads=24576,full --sweep cm=prstm,backoff
  run $v "$bin" --workload array --words 2097152 --reads 256 --ops 270336 --validation all --threads full --sweep cm=prstm,backoff
  run $v "$bin" --workload array --words 32768 --reads 2 --ops 2162688 --validation all --threads full --sweep cm=prstm,backoff
  run $v "$bin" --workload array --words 32768 --reads 16 --ops 2162688 --validation all --threads full --sweep cm=prstm,backoff
  for preset in high paper; do
    run $v "$bin" --workload vacation --preset $preset --impl tx --threads full --sweep cm=prstm,backoff
  done
  run $v "$bin" --workload skiplist --keys 5000 --levels 5 --mix 50/50/0 --impl tx --threads full --sweep cm=prstm,backoff
  run $v "$bin" --workload bank --accounts 2621440 --tpt 64 --seconds 0.3 --semantic 0 --read-only 0 --hash 1 --threads full --sweep cm=prstm,backoff
done
python3 "$(dirname "$0")/../variant_table.py" "$out" "entry_" A B
