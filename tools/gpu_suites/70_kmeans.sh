# SPDX-License-Identifier: Apache-2.0
# K-means (STAMP's kmeans; PR-STM paper, sections 4.6-4.7, Fig. 12): 1,000,000 2-D
# integer points, 16 clusters, 5 iterations. Every invocation runs the update
# stage as STAMP's one transaction per point (tx), one transaction per warp
# and touched cluster (tx-aggregated), per aggregation block of 1,024 threads
# and touched cluster (tx-block) and warp-aggregated atomics (native), each
# verified against the sequential recomputation; medians of 3 runs after a
# warm-up. Threads up to full occupancy at lock coverage 1, lock coverage 1-64
# at 6,720 threads (prstm and gpustm), tx-block's block size at full occupancy,
# the other managers at the headline point.
rep=3
threads=1920,6720,26880,full
hashes=1,2,4,8,16,32,64
blocks=256,1024,4096,16384
[ "$QUICK" = 1 ] && rep=1 && threads=6720,full && hashes=1,64 && blocks=1024
km=(--workload kmeans --backend gpu --points 1000000 --clusters 16 --iterations 5
    --repeat $rep --warmup 1 --format json --out "$RESULTS/kmeans.jsonl" -q)
for cm in prstm gpustm; do
  "$BENCH" "${km[@]}" --cm $cm --impl all --sweep threads=$threads \
    || echo "FAILED: kmeans cm=$cm threads=$threads" >&2
  "$BENCH" "${km[@]}" --cm $cm --impl tx --threads 6720 --sweep hash=$hashes \
    || echo "FAILED: kmeans cm=$cm hash=$hashes" >&2
  "$BENCH" "${km[@]}" --cm $cm --impl tx-block --threads full --sweep block=$blocks \
    || echo "FAILED: kmeans cm=$cm block=$blocks" >&2
done
for cm in backoff delay; do
  "$BENCH" "${km[@]}" --cm $cm --impl all --threads 6720 \
    || echo "FAILED: kmeans cm=$cm threads=6720" >&2
done
