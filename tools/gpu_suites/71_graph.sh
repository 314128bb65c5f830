# SPDX-License-Identifier: Apache-2.0
# Minimum-value propagation over a directed CSR graph (PR-STM paper, sections
# 4.8-4.9, Fig. 13): 1,000,000 vertices, values uniform in 1-10,000. The paper's
# graph (10,000,000 uniform edges: nearly every vertex ends at the global
# minimum), a sparse one (700,000 edges: many components survive, so a wrong
# minimum cannot hide) and an R-MAT one (hubs: contended). Every invocation runs
# the transaction (tx), its filtered forms (tx-filtered, tx-lower) and atomic
# fetch_min (native) over the same frontier, each verified against the
# sequential reference; medians of 3 runs after a warm-up. Threads at lock coverage 1 and lock coverage 1-64 at 1,536 threads
# (prstm and gpustm), the other managers and the other graphs at the headline point.
rep=3
threads=384,1536,6144,full
hashes=1,4,16,64
[ "$QUICK" = 1 ] && rep=1 && threads=1536,full && hashes=1,64
gr=(--workload graph --backend gpu --vertices 1000000
    --repeat $rep --warmup 1 --format json --out "$RESULTS/graph.jsonl" -q)
for cm in prstm gpustm; do
  "$BENCH" "${gr[@]}" --edges 10000000 --cm $cm --impl all --sweep threads=$threads \
    || echo "FAILED: graph cm=$cm threads=$threads" >&2
  "$BENCH" "${gr[@]}" --edges 10000000 --cm $cm --impl tx --threads 1536 --sweep hash=$hashes \
    || echo "FAILED: graph cm=$cm hash=$hashes" >&2
done
for cm in backoff delay; do
  "$BENCH" "${gr[@]}" --edges 10000000 --cm $cm --impl tx --threads 1536 \
    || echo "FAILED: graph cm=$cm threads=1536" >&2
done
"$BENCH" "${gr[@]}" --edges 700000 --cm prstm --impl all --sweep threads=1536,full \
  || echo "FAILED: graph sparse" >&2
"$BENCH" "${gr[@]}" --edges 10000000 --graph rmat --cm prstm --impl all --sweep threads=1536,full \
  || echo "FAILED: graph rmat" >&2
