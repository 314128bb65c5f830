# SPDX-License-Identifier: Apache-2.0
# Bank: the contention-management knobs (--cm-wait: polls of a final-locked
# word before aborting; --cm-backoff: cap in ns of the randomized exponential
# pause after an abort) at the anchor configurations, with the bank's account
# of where the threads' time went (time_in_attempts, time_paused,
# attempt_time_mean_us). At 4,096 accounts at most ~2,000 transfers can
# proceed at once, so most threads must wait: prstm's caps go from 64 us to
# 4 ms, and `backoff` (best there so far) runs beside it.
rep=3; secs=0.5
[ "$QUICK" = 1 ] && rep=1 && secs=0.2
tuning_run() {  # accounts threads cm wait backoff
  local tpt=64; [ "$2" = 6720 ] && tpt=1000
  "$BENCH" --workload bank --backend gpu --accounts "$1" --threads "$2" --tpt $tpt --seconds $secs \
    --semantic 0 --read-only 0 --hash 1 --cm "$3" --cm-wait "$4" --cm-backoff "$5" \
    --repeat $rep --warmup 1 --format json --out "$RESULTS/bank_tuning.jsonl" -q \
    || echo "FAILED: bank tuning accounts=$1 threads=$2 cm=$3 wait=$4 backoff=$5" >&2
}
for thr in 6720 full; do
  for backoff in 0 64000 256000 4000000; do tuning_run 4096 $thr prstm 0 $backoff; done
  for backoff in 0 256000; do tuning_run 4096 $thr prstm 4 $backoff; done
  for backoff in 0 64000 256000 1000000; do tuning_run 4096 $thr backoff 0 $backoff; done
  for wait in 0 8; do
    for backoff in 0 64000; do tuning_run 2621440 $thr prstm $wait $backoff; done
  done
done
