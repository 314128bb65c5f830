# SPDX-License-Identifier: Apache-2.0
# Sorted lists (list issue): the published GPU Harris list library's (Liu and Pak) two experiments replayed from its file
# format (10,000 nodes + 100,000 operations; 40,000 nodes + 10,000 operations,
# 32x1024 threads as that library) on harris_seq and indexed_seq side by side
# (--impl all; target: <= 1 ms for the 100k-op file), and the 1M-operation 20/20/60 mix over 10,000
# keys for harris, bucketed and tx, with a thread sweep. Every run is verified.
rep=5
[ "$QUICK" = 1 ] && rep=3
seeddir=list-seed  # relative, so that the recorded commands can be rerun after the generator
python3 "$(dirname "$BENCH")/../tools/list_seed_files.py" 10000 100000 "$seeddir/e1" --seed 1 &&
python3 "$(dirname "$BENCH")/../tools/list_seed_files.py" 40000 10000 "$seeddir/e2" --seed 2 ||
  echo "FAILED: list seed file generation" >&2
for e in e1 e2; do
  "$BENCH" --workload list --backend gpu --impl all --nodes-file "$seeddir/$e/listnodes.txt" --ops-file "$seeddir/$e/operations.txt" \
    --threads 32768 --repeat $rep --warmup 1 --format json --out "$RESULTS/list.jsonl" -q \
    || echo "FAILED: list seed replay $e" >&2
done
# indexed_seq alone with one operation per thread (100,000 threads).
"$BENCH" --workload list --backend gpu --impl indexed --nodes-file "$seeddir/e1/listnodes.txt" \
  --ops-file "$seeddir/e1/operations.txt" --threads 100000 --repeat $rep --warmup 1 --format json \
  --out "$RESULTS/list.jsonl" -q || echo "FAILED: list seed replay e1 indexed, 100000 threads" >&2
# The plain Harris list walks ~2,500 nodes per operation: one run per thread count.
threads="1024 8192 65536 full"
[ "$QUICK" = 1 ] && threads="65536 full"
for thr in $threads; do
  "$BENCH" --workload list --backend gpu --impl bucketed --keys 10000 --ops 1000000 --mix 20/20/60 --threads $thr \
    --repeat $rep --warmup 1 --format json --out "$RESULTS/list.jsonl" -q || echo "FAILED: list bucketed threads=$thr" >&2
  "$BENCH" --workload list --backend gpu --impl tx --keys 10000 --ops 1000000 --mix 20/20/60 --threads $thr \
    --repeat $rep --warmup 1 --format json --out "$RESULTS/list.jsonl" -q || echo "FAILED: list tx threads=$thr" >&2
  "$BENCH" --workload list --backend gpu --impl harris --keys 10000 --ops 1000000 --mix 20/20/60 --threads $thr \
    --repeat 3 --warmup 1 --format json --out "$RESULTS/list.jsonl" -q || echo "FAILED: list harris threads=$thr" >&2
done
