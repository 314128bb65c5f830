# SPDX-License-Identifier: Apache-2.0
# The STM-backed stack (containers/stack/tx.hpp) in the published GPU CAS stack benchmark's table, above the
# stack suite's 50k operations, one operation per thread, beside treiber and
# sharded measured in the same run. Every tx operation is a transaction on the
# single top word, so they serialize (15-70 k ops/s at 50k threads): its own
# suite with a time limit per command, like 21_queue_tx. backoff from 100k to
# 1M operations, prstm (about 5x slower at 50k) at 100k and 200k, and full
# occupancy with one operation per thread under backoff (under prstm it would
# take minutes: the STM-backed queue's full-occupancy run did not finish).
out="$RESULTS/stack_tx.jsonl"
stx() {  # limit, then stm_bench arguments
  local limit="$1"; shift
  timeout "$limit" "$BENCH" --workload stack --backend gpu --push-ratio 50 --repeat 3 --warmup 1 --format json \
    --out "$out" -q "$@" >/dev/null || echo "FAILED or over ${limit} s: stack $*" >&2
}
for ops in 100000 200000 500000 1000000; do
  for impl in treiber sharded; do stx 30 --impl "$impl" --ops "$ops"; done
  stx 150 --impl tx --cm backoff --ops "$ops"
done
stx 60 --impl tx --cm prstm --ops 100000
stx 90 --impl tx --cm prstm --ops 200000
stx 30 --impl treiber --threads full --ops 270336
stx 60 --impl tx --cm backoff --threads full --ops 270336
