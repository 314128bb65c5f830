#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Experiment: the loop forms' footprint gate (stm/detail/admission.hpp,
# footprint_gate; docs/design-decisions.md#footprint-gate), one stm_bench
# binary, its budget from the environment, the variants in turn, medians of 3
# after a warm-up:
#   off  STM_FOOTPRINT_KIB=0: no footprint gate
#   K    STM_FOOTPRINT_KIB=K for each K of KIBS (default "64 128 192")
# array over 2M words (R = 16 at 24,576 threads and full occupancy, R = 64 at
# 6,144, 24,576 and full, R = 256 at full; opaque and commit-time), over 32k
# words (R = 16 at full), the graph's transactions (sets of 9 reads: local
# memory) under prstm and backoff, and the bank's TX_FOR driver at 2.6M
# accounts (sets in registers: what the gate's per-pass check costs where it
# never enters). prstm unless said.
# tools/experiments/footprint_gate/run.sh STM_BENCH OUTDIR
set -uo pipefail
B=${1:?usage: run.sh STM_BENCH OUTDIR}
out=${2:?usage: run.sh STM_BENCH OUTDIR}
mkdir -p "$out"
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0
t0=$(date +%s)
variants=(off)
for k in ${KIBS:-64 128 192}; do variants+=("$k"); done
run() { local v=$1; shift
  local kib=$v; [ "$v" = off ] && kib=0
  STM_FOOTPRINT_KIB=$kib timeout 120 "$B" --backend gpu --repeat 3 --warmup 1 --format json --out "$out/$v.jsonl" -q \
    "$@" >/dev/null 2>>"$out/err.log" || echo "FAILED($?) $v: $*"; }
for v in "${variants[@]}"; do
  run "$v" --workload array --words 2097152 --reads 16 --ops 2162688 --validation all --sweep threads=24576,full --cm prstm
  run "$v" --workload array --words 2097152 --reads 64 --ops 2162688 --validation all --sweep threads=6144,24576,full --cm prstm
  run "$v" --workload array --words 2097152 --reads 256 --ops 270336 --validation all --threads full --cm prstm
  run "$v" --workload array --words 32768 --reads 16 --ops 2162688 --validation all --threads full --cm prstm
  run "$v" --workload graph --impl tx --threads full --sweep cm=prstm,backoff
  run "$v" --workload bank --accounts 2621440 --tpt 64 --seconds 0.3 --semantic 0 --read-only 0 --hash 1 --driver for \
    --threads full --cm prstm
  echo "variant $v: $(( $(date +%s) - t0 )) s"
done
python3 "$(dirname "$0")/../variant_table.py" "$out" "" "${variants[@]}"
