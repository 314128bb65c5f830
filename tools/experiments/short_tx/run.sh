#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Experiment: why prstm trails backoff on the shortest transactions of the
# array (R = 2, sets in registers) while it leads on the bank's transfers.
# Two differences separated, prstm and backoff side by side in each run, full
# occupancy, medians of 3 after a warm-up:
#   the commit clock: the bank's anchors run on a table without one (--clock
#   off), the array's table keeps it, and on a table with a clock prstm fences
#   once more than backoff (docs/design-decisions.md#lock-stamps, "Cost");
#   the driver: the transaction table (--driver table) against TX_FOR (--driver for).
# The bank at 2.6M accounts (nothing conflicts) and at 4,096 (contended), each
# driver with and without the clock; the array over 32k and 2M words, R = 2.
# tools/experiments/short_tx/run.sh STM_BENCH OUTDIR
set -uo pipefail
B=${1:?usage: run.sh STM_BENCH OUTDIR}
out=${2:?usage: run.sh STM_BENCH OUTDIR}
mkdir -p "$out"
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0
run() { timeout 120 "$B" --backend gpu --repeat 3 --warmup 1 --format json --out "$out/short_tx.jsonl" -q "$@" \
  >/dev/null 2>>"$out/err.log" || echo "FAILED($?): $*"; }
for accounts in 2621440 4096; do
  for driver in table for; do
    for clock in false true; do
      run --workload bank --accounts $accounts --tpt 64 --seconds 0.3 --semantic 0 --read-only 0 --hash 1 \
        --driver $driver --clock=$clock --threads full --sweep cm=prstm,backoff
    done
  done
done
for words in 32768 2097152; do
  run --workload array --words $words --reads 2 --ops 2162688 --validation all --threads full --sweep cm=prstm,backoff
done
python3 - "$out/short_tx.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print("workload size driver clock validation cm M/s abort_rate")
for r in rows:
    print(r["workload"], r.get("accounts", r.get("words")), r.get("driver", "for"), r.get("clock", True),
          r.get("validation", "opaque" if r.get("opaque") else "commit"), r["cm"],
          f"{r['throughput']/1e6:.1f}" if r["verified"] else "UNVERIFIED", r.get("abort_rate"))
PY
