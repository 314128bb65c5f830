#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Experiment, the footprint gate under the transaction table's driver
# (stm/detail/txtable_drain.hpp): vacation (sets of up to 64 reads and 48
# writes: local memory) and the bank (sets in registers: what the per-pass
# check costs where nothing enters), prstm and backoff, at 24,576 threads and
# full occupancy (measured, not adopted: the gate is not applied under the
# table; docs/design-decisions.md#footprint-gate). With table.patch beside
# this script applied (against 5394201: git apply tools/experiments/footprint_gate/table.patch)
# and stm_bench built, one binary, medians of 3 after a warm-up:
#   off  STM_FOOTPRINT_KIB=0;  K  STM_FOOTPRINT_KIB=K for each K of KIBS (default "136")
# tools/experiments/footprint_gate/table.sh STM_BENCH OUTDIR
set -uo pipefail
B=${1:?usage: table.sh STM_BENCH OUTDIR}
out=${2:?usage: table.sh STM_BENCH OUTDIR}
mkdir -p "$out"
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0
t0=$(date +%s)
variants=(off)
for k in ${KIBS:-136}; do variants+=("$k"); done
run() { local v=$1; shift
  local kib=$v; [ "$v" = off ] && kib=0
  STM_FOOTPRINT_KIB=$kib timeout 120 "$B" --backend gpu --repeat 3 --warmup 1 --format json --out "$out/table_$v.jsonl" -q \
    "$@" >/dev/null 2>>"$out/err.log" || echo "FAILED($?) $v: $*"; }
for v in "${variants[@]}"; do
  for preset in paper high; do
    run "$v" --workload vacation --preset $preset --impl tx --sweep threads=24576,full --sweep cm=prstm,backoff
  done
  run "$v" --workload bank --accounts 2621440 --tpt 64 --seconds 0.3 --semantic 0 --read-only 0 --hash 1 --threads full \
    --sweep cm=prstm,backoff
  run "$v" --workload bank --accounts 4096 --tpt 64 --seconds 0.3 --semantic 0 --read-only 0 --hash 1 --threads full \
    --sweep cm=prstm,backoff
  echo "variant $v: $(( $(date +%s) - t0 )) s"
done
python3 "$(dirname "$0")/../variant_table.py" "$out" "table_" "${variants[@]}"
