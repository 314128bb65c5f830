# Bank: concurrent conflicts retried in place (--attempts 0, the default)
# against postponed to the next pass of the transaction table after two
# attempts (--attempts 2: Algorithm 3 of the seed paper retries once), for
# prstm, gpustm and backoff side by side, over 4,096 accounts (the contended
# anchor). Transfers only, lock coverage 1.
rep=3; secs=0.3
[ "$QUICK" = 1 ] && rep=1 && secs=0.1
for thr in 6720 full; do
  tpt=64; [ "$thr" = 6720 ] && tpt=1000
  for cm in prstm gpustm backoff; do
    for attempts in 0 2; do
      "$BENCH" --workload bank --backend gpu --accounts 4096 --threads $thr --tpt $tpt --seconds $secs \
        --semantic 0 --read-only 0 --hash 1 --cm $cm --attempts $attempts \
        --repeat $rep --warmup 1 --format json --out "$RESULTS/bank_attempts.jsonl" -q \
        || echo "FAILED: bank attempts $thr $cm $attempts" >&2
    done
  done
done
