# Stack workload (issue: stacks). Seed 000's scalability table (10k to 1M
# operations, one per thread) with every implementation side by side
# (--impl all), then full occupancy with a 50/50 mix: all four side by side at
# 16 operations per thread, and the fast stacks again at 64 per thread.
# Every figure: median of 5 runs after a warm-up (QUICK: 3 runs, fewer sizes).
rep=5
[ "$QUICK" = 1 ] && rep=3
sizes="10000 50000 100000 200000 500000 1000000"
[ "$QUICK" = 1 ] && sizes="10000 100000"
for ops in $sizes; do
  "$BENCH" --workload stack --backend gpu --impl all --ops $ops --push-ratio 50 \
    --repeat $rep --warmup 1 --format json --out "$RESULTS/stack.jsonl" -q \
    || echo "FAILED: stack table ops=$ops" >&2
done
if [ "$QUICK" = 1 ]; then  # the 1M point without the serial tx stack
  for impl in treiber scan sharded; do
    "$BENCH" --workload stack --backend gpu --impl $impl --ops 1000000 --push-ratio 50 \
      --repeat $rep --warmup 1 --format json --out "$RESULTS/stack.jsonl" -q \
      || echo "FAILED: stack table ops=1000000 impl=$impl" >&2
  done
fi
# Does warp batching pay? The treiber stack without it (seed 000 + back-off).
for ops in 10000 100000; do
  "$BENCH" --workload stack --backend gpu --impl treiber-single --ops $ops --push-ratio 50 \
    --repeat $rep --warmup 1 --format json --out "$RESULTS/stack.jsonl" -q \
    || echo "FAILED: stack treiber-single ops=$ops" >&2
done
# Full occupancy: 132 SMs x 2048 threads = 270336 threads (H100/H200).
full16=4325376; full64=17301504
[ "$QUICK" = 1 ] && full16=270336 && full64=2162688
# (3 repeats here: the tx stack serializes 4.3M transactions on one top word)
rep3=3
"$BENCH" --workload stack --backend gpu --impl all --threads full --ops $full16 --push-ratio 50 \
  --repeat $rep3 --warmup 1 --format json --out "$RESULTS/stack.jsonl" -q \
  || echo "FAILED: stack full occupancy, all impls" >&2
for impl in sharded treiber; do
  "$BENCH" --workload stack --backend gpu --impl $impl --threads full --ops $full64 --push-ratio 50 \
    --repeat $rep --warmup 1 --format json --out "$RESULTS/stack.jsonl" -q \
    || echo "FAILED: stack full occupancy $impl" >&2
done
