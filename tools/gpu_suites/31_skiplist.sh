# Skiplist (skiplist issue): the PR-STM paper's figures 10-11 over 5,000 initial
# keys (range 10,000) and 5 levels, and the headline points of every manager
# beside the native lock-free skiplist. Every run is verified.
#   Fig. 10: threads up to full occupancy, lock coverage 1, 0% and 20% searches
#            (the paper's read-only share), prstm and gpustm.
#   Fig. 11: lock coverage 1-64 at 1,536 threads, 0% and 20% searches.
#   Headline: full occupancy, mixes 50/50/0, 40/40/20 and 20/20/60, every
#            manager and the native variant.
rep=3
out="$RESULTS/skiplist.jsonl"
common=(--workload skiplist --backend gpu --keys 5000 --levels 5 --warmup 1 --format json --out "$out" -q)
threads="384 1536 6144 24576 full"
hashes="1 2 4 8 16 32 64"
[ "$QUICK" = 1 ] && threads="1536 full" && hashes="1 64"
for ro in 0 20; do
  for cm in prstm gpustm; do
    for thr in $threads; do
      ops=1000000
      [ "$thr" = full ] && ops=4000000
      "$BENCH" "${common[@]}" --impl tx --cm $cm --mix 50/50/0 --read-only $ro --threads $thr --ops $ops \
        --repeat $rep || echo "FAILED: skiplist fig10 cm=$cm ro=$ro threads=$thr" >&2
    done
    for h in $hashes; do
      "$BENCH" "${common[@]}" --impl tx --cm $cm --mix 50/50/0 --read-only $ro --threads 1536 --hash $h --ops 1000000 \
        --repeat $rep || echo "FAILED: skiplist fig11 cm=$cm ro=$ro hash=$h" >&2
    done
  done
done
mixes="50/50/0 40/40/20 20/20/60"
[ "$QUICK" = 1 ] && mixes="50/50/0"
for mix in $mixes; do
  for cm in prstm gpustm backoff delay; do
    "$BENCH" "${common[@]}" --impl tx --cm $cm --mix $mix --threads full --ops 4000000 --repeat $rep \
      || echo "FAILED: skiplist headline cm=$cm mix=$mix" >&2
  done
  "$BENCH" "${common[@]}" --impl native --mix $mix --threads full --ops 4000000 --repeat $rep \
    || echo "FAILED: skiplist headline native mix=$mix" >&2
done
