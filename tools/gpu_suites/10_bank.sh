# SPDX-License-Identifier: Apache-2.0
# Bank workload: the anchor configurations of shared PR-STM figures, 2,621,440
# and 4,096 accounts, at the paper's 6,720 threads and at full occupancy:
# transfers only (--semantic 0, no queries, lock coverage 1), as before the
# transaction table. Timed mode: each figure is the median of 5 one-second runs.
rep=5; secs=1
[ "$QUICK" = 1 ] && rep=3 && secs=0.3
for acc in 2621440 4096; do
  for thr in 6720 full; do
    tpt=64; [ "$thr" = 6720 ] && tpt=1000
    "$BENCH" --workload bank --backend gpu --accounts $acc --threads $thr --tpt $tpt --seconds $secs \
      --semantic 0 --read-only 0 --hash 1 \
      --repeat $rep --warmup 1 --format json --out "$RESULTS/bank.jsonl" -q \
      || echo "FAILED: bank accounts=$acc threads=$thr" >&2
  done
done
# The other managers beside prstm at 4,096 accounts, in the same run (the
# contention-manager suite, 40_cmp.sh, sweeps them all).
for thr in 6720 full; do
  tpt=64; [ "$thr" = 6720 ] && tpt=1000
  for cm in backoff gpustm; do
    "$BENCH" --workload bank --backend gpu --cm $cm --accounts 4096 --threads $thr --tpt $tpt --seconds $secs \
      --semantic 0 --read-only 0 --hash 1 \
      --repeat $rep --warmup 1 --format json --out "$RESULTS/bank.jsonl" -q \
      || echo "FAILED: bank accounts=4096 threads=$thr cm=$cm" >&2
  done
done
