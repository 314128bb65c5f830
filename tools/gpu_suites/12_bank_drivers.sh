# SPDX-License-Identifier: Apache-2.0
# Bank driven three ways (--driver): the transaction table's drain (table), a
# kernel written as the README's plain per-thread loop of TX_BEGIN/TX_END
# (loop), and the loop form TX_FOR (for), over 128, 1,024, 4,096 and
# 2,621,440 accounts at 6,720, 67,584 and full occupancy, under all four
# managers; transfers only (--semantic 0, no queries, lock coverage 1), the
# bank's descriptor (commit-time validation). Drain mode: one table of 64
# transactions per thread at 6,720 threads, 8 at the larger launches; each
# figure the median of 3 runs after a warm-up. Then the loop form with opaque
# descriptors (tx_config's default) beside the bank's, under prstm at full
# occupancy, on the bank's table and on one with the commit clock (--clock: a
# lock_table's default, so what a user's kernel gets). Results: $RESULTS/bank_drivers.jsonl ("driver", "opaque").
# The plain loop is slow under heavy contention (seconds per table over 128
# accounts at full occupancy), so this suite runs well past the usual 90 s;
# each point is bounded by a timeout so that one stuck point cannot hide the
# others.
rep=3; warm=1
accounts="128 1024 4096 2621440"
threads="6720 67584 full"
if [ "$QUICK" = 1 ]; then
  warm=0; accounts="128 4096"; threads="6720 full"
fi
out="$RESULTS/bank_drivers.jsonl"
for acc in $accounts; do
  for thr in $threads; do
    tpt=8; [ "$thr" = 6720 ] && tpt=64
    for cm in prstm gpustm backoff delay; do
      for drv in table loop for; do
        timeout 300 "$BENCH" --workload bank --backend gpu --cm $cm --driver $drv --accounts $acc --threads $thr \
          --tpt $tpt --semantic 0 --read-only 0 --hash 1 --repeat $rep --warmup $warm \
          --format json --out "$out" -q >/dev/null \
          || echo "FAILED: bank_drivers cm=$cm driver=$drv accounts=$acc threads=$thr" >&2
      done
    done
  done
done
for acc in $accounts; do
  for oc in false,false true,false true,true; do
    timeout 300 "$BENCH" --workload bank --backend gpu --cm prstm --driver for --opaque=${oc%,*} --clock=${oc#*,} \
      --accounts $acc --threads full --tpt 8 --semantic 0 --read-only 0 --hash 1 --repeat $rep --warmup $warm \
      --format json --out "$out" -q >/dev/null \
      || echo "FAILED: bank_drivers opaque,clock=$oc accounts=$acc" >&2
  done
done
