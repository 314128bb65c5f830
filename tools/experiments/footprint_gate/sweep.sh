#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Experiment, second round of the footprint gate (run.sh beside it is the
# first): its budget over the whole thread sweep of the scaling suite, so
# that a budget that helps at full occupancy and hurts fewer threads shows.
# One stm_bench binary, the variants in turn, medians of 3 after a warm-up:
#   off  STM_FOOTPRINT_KIB=0;  K  STM_FOOTPRINT_KIB=K for each K of KIBS (default "128 144 160")
# array over 2M words R = 16 and 64 and over 32k words R = 16 (opaque and
# commit-time, threads 1,536 to full occupancy), R = 256 at full; prstm.
# tools/experiments/footprint_gate/sweep.sh STM_BENCH OUTDIR
set -uo pipefail
B=${1:?usage: sweep.sh STM_BENCH OUTDIR}
out=${2:?usage: sweep.sh STM_BENCH OUTDIR}
mkdir -p "$out"
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0
t0=$(date +%s)
variants=(off)
for k in ${KIBS:-128 144 160}; do variants+=("$k"); done
sweep=threads=1536,6144,24576,67584,full
run() { local v=$1; shift
  local kib=$v; [ "$v" = off ] && kib=0
  STM_FOOTPRINT_KIB=$kib timeout 120 "$B" --backend gpu --repeat 3 --warmup 1 --format json --out "$out/sweep_$v.jsonl" -q \
    "$@" >/dev/null 2>>"$out/err.log" || echo "FAILED($?) $v: $*"; }
for v in "${variants[@]}"; do
  run "$v" --workload array --words 2097152 --reads 16 --ops 2162688 --validation all --sweep $sweep --cm prstm
  run "$v" --workload array --words 2097152 --reads 64 --ops 2162688 --validation all --sweep $sweep --cm prstm
  run "$v" --workload array --words 32768 --reads 16 --ops 2162688 --validation all --sweep $sweep --cm prstm
  run "$v" --workload array --words 2097152 --reads 256 --ops 270336 --validation all --threads full --cm prstm
  echo "variant $v: $(( $(date +%s) - t0 )) s"
done
python3 "$(dirname "$0")/../variant_table.py" "$out" "sweep_" "${variants[@]}"
