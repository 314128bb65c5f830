# SPDX-License-Identifier: Apache-2.0
# Headline suite: every row of BENCHMARKS.md's headline tables, measured at one
# commit, medians of 3 after a warm-up (QUICK=1: one run, no warm-up, a smoke
# test of the commands). Sourced by tools/gpu_suites/headline/run.sh with BENCH
# (stm_bench) and RESULTS (a folder) set; appends to $RESULTS/headline.jsonl.
# It sits in a folder of its own so that tools/gpu_check.sh, which sources every
# tools/gpu_suites/*.sh, does not run it with the full suites (their files hold
# the same points and many more).
#
# Expected time on an H100/H200, from the run lengths recorded in results/*.jsonl
# ((warm-up + repeats) x one run's seconds, plus the set-up each command repeats,
# judged from the wall times noted in results/experiments/LOG.md): bank 16 points
# of 4 x 0.3 s, ~40 s once stm_bench's host work between launches is cheap (at
# e809717 a 2,621,440-account point spent ~7 s of host time per run: up to ~4
# minutes more); vacation ~110 s; skiplist ~30 s; k-means ~35 s; graph ~25 s;
# stack ~25 s; queue ~110 s (the Michael-Scott queue alone 4 x 12 s); list ~10 s:
# about 6.5 minutes in all. Every command is bounded by a timeout
# (HEADLINE_LIMIT seconds, default 150), so that a tenfold regression costs a
# missing row (which tools/compare_results.py lists) instead of the run.
out="$RESULTS/headline.jsonl"
rep=(--repeat 3 --warmup 1); secs=0.3
[ "${QUICK:-0}" = 1 ] && rep=(--repeat 1 --warmup 0) && secs=0.1
limit="${HEADLINE_LIMIT:-150}"
backend="${HEADLINE_BACKEND:-gpu}"  # cpu: a smoke test of the commands on a machine without a GPU
hl() {  # what, then stm_bench arguments
  local what="$1" t0=$SECONDS; shift
  if timeout "$limit" "$BENCH" --backend "$backend" "${rep[@]}" --format json --out "$out" -q "$@" >/dev/null; then
    echo "headline: $what ($((SECONDS - t0)) s)"
  else
    echo "FAILED or over $limit s: headline $what ($((SECONDS - t0)) s)" >&2
  fi
}
cms=prstm,gpustm,backoff,delay

# Bank: the anchors of the shared PR-STM figures (10_bank.sh's configurations:
# transfers only, lock coverage 1; 1,000 transactions per thread per launch at
# 6,720 threads, 64 at full occupancy), every manager, timed runs; one command
# per manager, so that a slow one (or one cut by the limit) costs only its row;
# and the native baseline (per-account try-locks) on the same tables.
for acc in 2621440 4096; do
  for thr in 6720 full; do
    tpt=64; [ "$thr" = 6720 ] && tpt=1000
    for cm in ${cms//,/ }; do
      hl "bank accounts=$acc threads=$thr cm=$cm" --workload bank --accounts $acc --threads $thr --tpt $tpt \
        --seconds $secs --semantic 0 --read-only 0 --hash 1 --cm $cm
    done
    hl "bank accounts=$acc threads=$thr native" --workload bank --accounts $acc --threads $thr --tpt $tpt \
      --seconds $secs --semantic 0 --read-only 0 --impl native
  done
done

# Vacation: presets paper (every update a sold-out pair) and high, full
# occupancy (60_vacation.sh's headline points): prstm and the native baseline
# from one run, the paper's aging priority, the other managers.
for preset in paper high; do
  v=(--workload vacation --preset $preset --threads full --tpt 64 --hash 1)
  hl "vacation $preset prstm+native" "${v[@]}" --cm prstm --impl all
  hl "vacation $preset prstm aging" "${v[@]}" --cm prstm --priority aging --impl tx
  hl "vacation $preset managers" "${v[@]}" --impl tx --sweep cm=gpustm,backoff,delay
done

# Skiplist: 5,000 keys in 10,000, 5 levels, one launch of 1,000,000 operations
# at full occupancy (the rows of 850cbaf), 50/50/0 and 20/20/60, every manager
# and the native skiplist (--impl all: tx and native per manager).
for mix in 50/50/0 20/20/60; do
  s=(--workload skiplist --keys 5000 --levels 5 --threads full --ops 1000000 --mix $mix)
  hl "skiplist $mix" "${s[@]}" --impl all --sweep cm=$cms
  hl "skiplist $mix prstm aging" "${s[@]}" --impl tx --cm prstm --priority aging
done
# The map at scale: 1,000,000 keys in 2,000,000, 16 levels, prstm and the
# native skiplist (the containers issue's third skiplist point).
for mix in 50/50/0 20/20/60; do
  hl "skiplist 1M keys $mix" --workload skiplist --keys 1000000 --levels 16 --threads full --ops 1000000 --mix $mix \
    --impl all --cm prstm
done

# K-means: 1,000,000 points, 16 clusters, 5 iterations, full occupancy. prstm
# runs every form (STAMP's transaction per point, per warp, per block, and the
# native atomics); the other managers the aggregated forms (STAMP's form takes
# 17-19 s a launch under gpustm at full occupancy).
k=(--workload kmeans --points 1000000 --clusters 16 --iterations 5 --threads full)
hl "kmeans prstm all" "${k[@]}" --cm prstm --impl all
for cm in gpustm backoff delay; do
  hl "kmeans $cm tx-aggregated" "${k[@]}" --cm $cm --impl tx-aggregated
  hl "kmeans $cm tx-block" "${k[@]}" --cm $cm --impl tx-block
done

# Graph: 1,000,000 vertices, 10,000,000 uniform edges (the paper's graph), full
# occupancy: every transactional form and native fetch_min, every manager.
hl "graph" --workload graph --vertices 1000000 --edges 10000000 --threads full --impl all --sweep cm=$cms

# Stack, full occupancy: one operation per thread (50/50) for every stack, the
# STM-backed one under backoff (under prstm 270,336 transactions on one top word
# take minutes: 21_stack_tx.sh), then 16 operations per thread for the native ones.
hl "stack all" --workload stack --push-ratio 50 --threads full --ops 270336 --impl all --cm backoff
for impl in treiber scan sharded; do
  hl "stack $impl x16" --workload stack --push-ratio 50 --threads full --ops 4325376 --impl $impl
done

# Queue, full occupancy, one pair per thread: matched, every queue, one
# command each (the non-waiting ones take ~11 s a run: together they cut the
# STM-backed queue's row at a short HEADLINE_LIMIT), the STM-backed one under
# backoff, as 21_queue_tx.sh; producer/consumer, the native queues (the
# STM-backed one needs every consumer resident).
for impl in ticket ticket-nb ms; do
  hl "queue matched $impl" --workload queue --mode matched --threads full --impl $impl
done
hl "queue matched tx" --workload queue --mode matched --threads full --impl tx --cm backoff
for impl in ticket ticket-nb ms; do
  hl "queue prodcons $impl" --workload queue --mode prodcons --threads full --impl $impl
done

# List: the seed format's 100,000-operation replay (harris_seq and indexed_seq),
# then the 1M-operation 20/20/60 mix over 10,000 keys at full occupancy: the
# plain and bucketed Harris lists and the STM-backed set (prstm).
seeddir=list-seed  # relative: run.sh runs the suite in its output folder, and the commands stay rerunnable
if python3 "$(dirname "${BASH_SOURCE[0]}")/../../list_seed_files.py" 10000 100000 "$seeddir/e1" --seed 1 >/dev/null; then
  hl "list seed replay" --workload list --impl all --nodes-file "$seeddir/e1/listnodes.txt" \
    --ops-file "$seeddir/e1/operations.txt" --threads 32768
else
  echo "FAILED: headline list seed file generation" >&2
fi
hl "list mix" --workload list --keys 10000 --ops 1000000 --mix 20/20/60 --threads full --impl all --cm prstm
