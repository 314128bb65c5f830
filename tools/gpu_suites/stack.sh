# Stack workload (issue: stacks). Seed 000's scalability table, one operation per
# thread, every implementation side by side (--impl all), then the full-occupancy
# 50/50 mix. Every figure: median of 5 runs after a warm-up (QUICK: 1 run).
rep=5
[ "$QUICK" = 1 ] && rep=1
sizes="10000 100000 1000000"
[ "$QUICK" = 1 ] && sizes="10000 1000000"
for ops in $sizes; do
  "$BENCH" --workload stack --backend gpu --impl all --ops $ops --push-ratio 50 \
    --repeat $rep --warmup 1 --format json --out "$RESULTS/stack.jsonl" -q \
    || echo "FAILED: stack table ops=$ops" >&2
done
# Full occupancy, 50/50 mix, 64 operations per thread (132 SMs x 2048 threads x 64).
full_ops=17301504
[ "$QUICK" = 1 ] && full_ops=2162688
"$BENCH" --workload stack --backend gpu --impl all --threads full --ops $full_ops --push-ratio 50 \
  --repeat $rep --warmup 1 --format json --out "$RESULTS/stack.jsonl" -q \
  || echo "FAILED: stack full occupancy" >&2
