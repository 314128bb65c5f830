# SPDX-License-Identifier: Apache-2.0
# Contention managers side by side on the bank workload (issue: pluggable
# contention managers and the GPU-STM comparator). Every manager, at 2,621,440
# and 4,096 accounts:
#   - a thread sweep (960 .. full occupancy) at one account per lock;
#   - a lock-coverage sweep (--hash 1 .. 64 accounts per lock) at 6,720 threads
#     (the paper's default launch; hash 1 is in the thread sweep).
# Each figure: median of 3 timed 0.3 s runs after a warm-up run. Transactions
# per thread per launch shrink with the thread count, so that one launch stays
# well under the timed window even for the slowest manager.
cms="prstm gpustm backoff delay"
threads="960 3840 6720 15360 61440 full"
hashes="2 4 8 16 32 64"
rep=3; secs=0.3
if [ "$QUICK" = 1 ]; then secs=0.2; threads="960 6720 full"; hashes="8 64"; fi
cmp_tpt() { case "$1" in full) echo 16 ;; 61440) echo 64 ;; 15360) echo 128 ;; *) echo 256 ;; esac; }
cmp_bank() {  # accounts threads hash cm
  "$BENCH" --workload bank --backend gpu --accounts "$1" --threads "$2" --tpt "$(cmp_tpt "$2")" --hash "$3" \
    --cm "$4" --seconds $secs --repeat $rep --warmup 1 --format json --out "$RESULTS/cmp.jsonl" -q \
    || echo "FAILED: cmp bank accounts=$1 threads=$2 hash=$3 cm=$4" >&2
}
for acc in 2621440 4096; do
  for cm in $cms; do
    for thr in $threads; do cmp_bank $acc $thr 1 $cm; done
    for h in $hashes; do cmp_bank $acc 6720 $h $cm; done
  done
done
