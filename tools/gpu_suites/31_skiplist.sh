# SPDX-License-Identifier: Apache-2.0
# Skiplist (skiplist issue): the PR-STM paper's figures 10-11 over 5,000 initial
# keys (range 10,000) and 5 levels, and the headline points of every manager
# beside the native lock-free skiplist. Every run is verified.
#   Fig. 10: threads up to full occupancy, lock coverage 1, 0% and 20% searches
#            (the paper's read-only share), prstm and gpustm.
#   Fig. 11: lock coverage 1-64 at 1,536 threads, 0% and 20% searches.
#   Headline: full occupancy, mixes 50/50/0, 40/40/20 and 20/20/60, every
#            manager and the native variant.
# Sizing: 63 points in about 5 minutes. A transactional point runs in timed
# mode (--seconds: launches until that much kernel time, the pool reclaimed
# and the launch verified between them), so that its length does not depend on
# its speed; --ops is one launch, sized to a fraction of that time at the
# expected speed, more with more threads (a launch whose ops exceed its
# thread count many times over keeps every thread busy to its end). The native
# points run one launch of a fixed size: at their speed, timed mode would
# spend its time in the per-launch verification.
rep=3
secs=0.5
[ "$QUICK" = 1 ] && rep=1 && secs=0.2
out="$RESULTS/skiplist.jsonl"
common=(--workload skiplist --backend gpu --keys 5000 --levels 5 --warmup 1 --format json --out "$out" -q)
threads="384 1536 6144 24576 full"
hashes="1 2 4 8 16 32 64"
[ "$QUICK" = 1 ] && threads="1536 full" && hashes="1 64"
# One launch's operations at a thread count (powers of two from 2^18).
launch_ops() {
  case "$1" in
    384) echo 262144 ;;
    1536) echo 524288 ;;
    6144|24576) echo 1048576 ;;
    *) echo 2097152 ;;
  esac
}
for ro in 0 20; do
  for cm in prstm gpustm; do
    for thr in $threads; do
      "$BENCH" "${common[@]}" --impl tx --cm $cm --mix 50/50/0 --read-only $ro --threads $thr \
        --ops "$(launch_ops $thr)" --seconds $secs --repeat $rep \
        || echo "FAILED: skiplist fig10 cm=$cm ro=$ro threads=$thr" >&2
    done
    for h in $hashes; do
      "$BENCH" "${common[@]}" --impl tx --cm $cm --mix 50/50/0 --read-only $ro --threads 1536 --hash $h \
        --ops "$(launch_ops 1536)" --seconds $secs --repeat $rep \
        || echo "FAILED: skiplist fig11 cm=$cm ro=$ro hash=$h" >&2
    done
  done
done
mixes="50/50/0 40/40/20 20/20/60"
[ "$QUICK" = 1 ] && mixes="50/50/0"
for mix in $mixes; do
  for cm in prstm gpustm backoff delay; do
    "$BENCH" "${common[@]}" --impl tx --cm $cm --mix $mix --threads full --ops "$(launch_ops full)" --seconds $secs \
      --repeat $rep || echo "FAILED: skiplist headline cm=$cm mix=$mix" >&2
  done
  "$BENCH" "${common[@]}" --impl native --mix $mix --threads full --ops 8388608 --repeat $rep \
    || echo "FAILED: skiplist headline native mix=$mix" >&2
done
