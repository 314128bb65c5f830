# SPDX-License-Identifier: Apache-2.0
# Stack workload (issue: stacks). Seed 000's scalability table (10k to 1M
# operations, one per thread) for the native stacks side by side, the STM-backed
# stack under prstm and backoff at the small sizes (every one of its operations
# is a transaction on the single top word: it serializes, ~10 k ops/s at 100k
# threads under prstm), then full occupancy with a 50/50 mix at 16 and 64
# operations per thread. Every figure: median of 5 runs after a warm-up (QUICK:
# 3 runs, fewer sizes).
rep=5
[ "$QUICK" = 1 ] && rep=3
sizes="10000 50000 100000 200000 500000 1000000"
[ "$QUICK" = 1 ] && sizes="10000 100000 1000000"
stack_run() {  # label, then stm_bench arguments
  local label="$1"; shift
  "$BENCH" --workload stack --backend gpu --push-ratio 50 --warmup 1 --format json \
    --out "$RESULTS/stack.jsonl" -q "$@" || echo "FAILED: stack $label" >&2
}
for ops in $sizes; do
  for impl in treiber scan sharded; do stack_run "$impl ops=$ops" --impl $impl --ops $ops --repeat $rep; done
done
for ops in 10000 50000; do
  for cm in prstm backoff; do stack_run "tx/$cm ops=$ops" --impl tx --cm $cm --ops $ops --repeat 3; done
done
# Does warp batching pay? The treiber stack without it (the published CAS stack + back-off).
for ops in 10000 100000; do
  stack_run "treiber-single ops=$ops" --impl treiber-single --ops $ops --repeat $rep
done
# Full occupancy: 132 SMs x 2048 threads = 270336 threads (H100/H200).
full16=4325376; full64=17301504
[ "$QUICK" = 1 ] && full16=270336 && full64=2162688
for impl in treiber scan sharded; do
  stack_run "$impl full occupancy x16" --impl $impl --threads full --ops $full16 --repeat $rep
done
for impl in sharded treiber; do
  stack_run "$impl full occupancy x64" --impl $impl --threads full --ops $full64 --repeat $rep
done
# Grid-wide batch elimination of the treiber stack: off, and elimination slots
# per SM x offer time around the default (8 x 1024 ns), at 1M operations.
for cfg in "0 1024" "4 1024" "8 512" "8 1024" "8 2048" "8 4096" "16 1024"; do
  read -r slots offer <<<"$cfg"
  stack_run "treiber elim $slots x $offer ns" --impl treiber --ops 1000000 --elim-slots "$slots" --offer-ns "$offer" \
    --repeat $rep
done
