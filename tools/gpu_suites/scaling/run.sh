#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tools/gpu_suites/scaling/run.sh STM_BENCH OUT_DIR [--quick]
#
# On an H100/H200: throughput against threads (1,536, 6,144, 24,576, 67,584 and
# full occupancy) for every workload of the scaling suite, every manager and the
# native baseline, medians of 3 after a warm-up, into OUT_DIR/scaling.jsonl
# (copy it to results/scaling.jsonl; tools/plot_results.py draws it):
#   array   R = 2, 16, 64, 256 reads over 32k and 2M words, opaque and
#           commit-time validation, and --impl native (per-word locks); R = 256
#           without gpustm (its lock log holds 128 locks: stm_bench refuses it);
#           full occupancy at as many transactions a thread as 67,584 threads
#   bank    4,096 accounts
#   vacation (paper, high), skiplist (50/50/0, 20/20/60), k-means tx, graph tx
# Each command (one configuration, every thread count and manager) is bounded
# (SCALING_LIMIT seconds, default 600): a collapsed configuration costs the
# points not yet measured, not the run. STM_ADMISSION=0 in the environment runs the
# transactional points with admission control off. It takes tens of minutes in
# all: split it with SCALING_ONLY=array|bank|vacation|skiplist|kmeans|graph,
# SCALING_IMPL=tx|native (only the transactional points, or only the native
# baselines) and, for the array, SCALING_ARRAY="WORDS:R,R,... ..." (default
# "32768:2,16,64,256 2097152:2,16,64,256").
# --quick: one run per point, no warm-up, the first two thread counts only (a
# smoke test of the commands; SCALING_BACKEND=cpu runs it without a GPU).
set -uo pipefail
[ "$#" -ge 2 ] || { echo "usage: tools/gpu_suites/scaling/run.sh STM_BENCH OUT_DIR [--quick]" >&2; exit 2; }
BENCH="$1"; OUT="$2"; QUICK=0
[ "${3:-}" = --quick ] && QUICK=1
[ -x "$BENCH" ] || { echo "scaling/run.sh: '$BENCH' is not an executable (build stm_bench first)" >&2; exit 2; }
mkdir -p "$OUT" || exit 2
out="$OUT/scaling.jsonl"
limit="${SCALING_LIMIT:-600}"
backend="${SCALING_BACKEND:-gpu}"
only="${SCALING_ONLY:-}"
rep=(--repeat 3 --warmup 1); threads=(1536 6144 24576 67584 full)
if [ "$QUICK" = 1 ]; then rep=(--repeat 1 --warmup 0); threads=(64 128); fi
cms=prstm,gpustm,backoff,delay
# One stm_bench process per configuration: --sweep runs every thread count (and
# every manager) in it, so the suite pays one start and one data set per
# configuration, not per point.
sweep_t="threads=$(IFS=,; echo "${threads[*]}")"
# The array's sweep without full occupancy, which it runs apart (below).
sweep_a="threads=1536,6144,24576,67584"; [ "$QUICK" = 1 ] && sweep_a="$sweep_t"
pt() {  # stm_bench arguments
  timeout "$limit" "$BENCH" --backend "$backend" "${rep[@]}" --format json --out "$out" -q "$@" >/dev/null ||
    echo "FAILED or over $limit s: $*" >&2
}
impl_only="${SCALING_IMPL:-}"
case "$impl_only" in ""|tx|native) ;; *) echo "scaling/run.sh: SCALING_IMPL is tx or native, got '$impl_only'" >&2; exit 2 ;; esac
read -r -a arrays <<<"${SCALING_ARRAY:-32768:2,16,64,256 2097152:2,16,64,256}"
for a in "${arrays[@]}"; do
  [[ "$a" =~ ^[0-9]+:[0-9]+(,[0-9]+)*$ ]] || { echo "scaling/run.sh: SCALING_ARRAY takes WORDS:R,R,... items, got '$a'" >&2; exit 2; }
done
want() { [ -z "$only" ] || [ "$only" = "$1" ]; }
# pt for a configuration's transactional points or its native baseline, as
# SCALING_IMPL selects.
pt_tx() { [ "$impl_only" = native ] || pt "$@"; }
pt_native() { [ "$impl_only" = tx ] || pt "$@"; }
if want array; then
  for a in "${arrays[@]}"; do
    words=${a%%:*}
    IFS=, read -r -a reads <<<"${a#*:}"
    for r in "${reads[@]}"; do
      ops=2162688; [ "$r" -ge 256 ] && ops=270336
      # Over 32k words a read set of 64 or more conflicts with nearly every
      # commit (0.05-2 M transactions/s): a quarter as many, 8 (R = 64) and 1
      # (R = 256) a thread at 67,584 threads, so that every manager's sweep ends.
      [ "$words" -le 32768 ] && [ "$r" -ge 64 ] && ops=$((ops / 4))
      [ "$QUICK" = 1 ] && ops=4096
      # gpustm's lock log holds 128 locks: stm_bench refuses it above 128 reads.
      c=$cms; [ "$r" -gt 128 ] && c=${cms/gpustm,/}
      # The points up to 67,584 threads run $ops transactions; full occupancy
      # runs as many a thread as the 67,584 point (--tpt), not a quarter as
      # many: the R >= 16 kernels keep 512 threads an SM resident, so a launch
      # of full occupancy runs in four waves, and with 8 transactions a thread
      # the launch's tail cost it up to a fifth (docs/design-decisions.md#array-full-point).
      w=(--workload array --words $words --reads $r)
      pt_tx "${w[@]}" --ops $ops --sweep "$sweep_a" --validation all --sweep cm=$c
      pt_native "${w[@]}" --ops $ops --sweep "$sweep_a" --impl native
      if [ "$QUICK" = 0 ]; then
        pt_tx "${w[@]}" --tpt $((ops / 67584)) --threads full --validation all --sweep cm=$c
        pt_native "${w[@]}" --tpt $((ops / 67584)) --threads full --impl native
      fi
    done
  done
fi
if want bank; then
  pt_tx --workload bank --accounts 4096 --tpt 64 --seconds 0.3 --semantic 0 --read-only 0 --hash 1 --sweep "$sweep_t" \
    --sweep cm=$cms
  pt_native --workload bank --accounts 4096 --tpt 64 --seconds 0.3 --semantic 0 --read-only 0 --impl native --sweep "$sweep_t"
fi
if want vacation; then
  for preset in paper high; do
    pt_tx --workload vacation --preset $preset --impl tx --sweep "$sweep_t" --sweep cm=$cms
    pt_native --workload vacation --preset $preset --impl native --sweep "$sweep_t"
  done
fi
if want skiplist; then
  for mix in 50/50/0 20/20/60; do
    pt_tx --workload skiplist --keys 5000 --levels 5 --mix $mix --impl tx --sweep "$sweep_t" --sweep cm=$cms
    pt_native --workload skiplist --keys 5000 --levels 5 --mix $mix --impl native --sweep "$sweep_t"
  done
fi
if want kmeans; then
  # tx: STAMP's update, a transaction per point (the same count whatever the
  # launch): the suite's k-means point. tx-aggregated commits once per warp
  # and touched cluster, so its transactions grow with the launch and its
  # points/s fall with threads by construction, as the native warp-aggregated
  # atomics' do: measured beside it, not held to the sweep
  # (docs/design-decisions.md#kmeans-per-point).
  pt_tx --workload kmeans --impl tx --iterations 2 --sweep "$sweep_t" --sweep cm=$cms
  pt_tx --workload kmeans --impl tx-aggregated --sweep "$sweep_t" --sweep cm=$cms
  pt_native --workload kmeans --impl native --sweep "$sweep_t"
fi
if want graph; then
  pt_tx --workload graph --impl tx --sweep "$sweep_t" --sweep cm=$cms
  pt_native --workload graph --impl native --sweep "$sweep_t"
fi
echo "scaling: $(wc -l <"$out") rows in $out"
