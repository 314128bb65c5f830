# Bank: the contention-management knobs of the built-in managers (--cm-wait:
# polls of a final-locked word before aborting; --cm-backoff: cap of the
# randomized back-off after an abort), at the anchor configurations.
rep=3; secs=0.5
[ "$QUICK" = 1 ] && rep=1 && secs=0.2
for acc in 2621440 4096; do
  for thr in 6720 full; do
    tpt=64; [ "$thr" = 6720 ] && tpt=1000
    for wait in 0 8; do
      for backoff in 0 1000 8000; do
        "$BENCH" --workload bank --backend gpu --accounts $acc --threads $thr --tpt $tpt --seconds $secs \
          --cm-wait $wait --cm-backoff $backoff --repeat $rep --warmup 1 --format json \
          --out "$RESULTS/bank_tuning.jsonl" -q || echo "FAILED: bank tuning $acc $thr $wait $backoff" >&2
      done
    done
  done
done
