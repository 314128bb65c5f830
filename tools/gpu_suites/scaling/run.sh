#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tools/gpu_suites/scaling/run.sh STM_BENCH OUT_DIR [--quick]
#
# On an H100/H200: throughput against threads (1,536, 6,144, 24,576, 67,584 and
# full occupancy) for every workload of the scaling suite, every manager and the
# native baseline, medians of 3 after a warm-up, into OUT_DIR/scaling.jsonl
# (copy it to results/scaling.jsonl; tools/plot_results.py draws it):
#   array   R = 2, 16, 64, 256 reads over 32k and 2M words, opaque and
#           commit-time validation, and --impl native (per-word locks)
#   bank    4,096 accounts
#   vacation (paper, high), skiplist (50/50/0, 20/20/60), k-means tx, graph tx
# Each command is bounded (SCALING_LIMIT seconds, default 120): a collapsed
# point costs its row, not the run. STM_ADMISSION=1 in the environment runs the
# transactional points with admission control on. It takes about 40 minutes in
# all: split it with SCALING_ONLY=array|bank|vacation|skiplist|kmeans|graph.
# --quick: one run per point, no warm-up, the first two thread counts only (a
# smoke test of the commands; SCALING_BACKEND=cpu runs it without a GPU).
set -uo pipefail
[ "$#" -ge 2 ] || { echo "usage: tools/gpu_suites/scaling/run.sh STM_BENCH OUT_DIR [--quick]" >&2; exit 2; }
BENCH="$1"; OUT="$2"; QUICK=0
[ "${3:-}" = --quick ] && QUICK=1
[ -x "$BENCH" ] || { echo "scaling/run.sh: '$BENCH' is not an executable (build stm_bench first)" >&2; exit 2; }
mkdir -p "$OUT" || exit 2
out="$OUT/scaling.jsonl"
limit="${SCALING_LIMIT:-120}"
backend="${SCALING_BACKEND:-gpu}"
only="${SCALING_ONLY:-}"
rep=(--repeat 3 --warmup 1); threads=(1536 6144 24576 67584 full)
if [ "$QUICK" = 1 ]; then rep=(--repeat 1 --warmup 0); threads=(64 128); fi
cms=(prstm gpustm backoff delay)
pt() {  # stm_bench arguments
  timeout "$limit" "$BENCH" --backend "$backend" "${rep[@]}" --format json --out "$out" -q "$@" >/dev/null ||
    echo "FAILED or over $limit s: $*" >&2
}
want() { [ -z "$only" ] || [ "$only" = "$1" ]; }
if want array; then
  for words in 32768 2097152; do
    for r in 2 16 64 256; do
      for thr in "${threads[@]}"; do
        ops=2162688; [ "$r" -ge 256 ] && ops=270336; [ "$QUICK" = 1 ] && ops=4096
        for cm in "${cms[@]}"; do
          pt --workload array --words $words --reads $r --threads $thr --ops $ops --cm $cm --validation all
        done
        pt --workload array --words $words --reads $r --threads $thr --ops $ops --impl native
      done
    done
  done
fi
if want bank; then
  for thr in "${threads[@]}"; do
    for cm in "${cms[@]}"; do
      pt --workload bank --accounts 4096 --threads $thr --tpt 64 --seconds 0.3 --semantic 0 --read-only 0 --hash 1 --cm $cm
    done
  done
fi
if want vacation; then
  for preset in paper high; do
    for thr in "${threads[@]}"; do
      for cm in "${cms[@]}"; do pt --workload vacation --preset $preset --threads $thr --cm $cm --impl tx; done
      pt --workload vacation --preset $preset --threads $thr --impl native
    done
  done
fi
if want skiplist; then
  for mix in 50/50/0 20/20/60; do
    for thr in "${threads[@]}"; do
      for cm in "${cms[@]}"; do pt --workload skiplist --keys 5000 --levels 5 --mix $mix --threads $thr --cm $cm --impl tx; done
      pt --workload skiplist --keys 5000 --levels 5 --mix $mix --threads $thr --impl native
    done
  done
fi
if want kmeans; then
  for thr in "${threads[@]}"; do
    for cm in "${cms[@]}"; do pt --workload kmeans --threads $thr --cm $cm --impl tx-aggregated; done
    pt --workload kmeans --threads $thr --impl native
  done
fi
if want graph; then
  for thr in "${threads[@]}"; do
    for cm in "${cms[@]}"; do pt --workload graph --threads $thr --cm $cm --impl tx; done
    pt --workload graph --threads $thr --impl native
  done
fi
echo "scaling: $(wc -l <"$out") rows in $out"
