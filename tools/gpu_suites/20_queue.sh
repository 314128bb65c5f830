# SPDX-License-Identifier: Apache-2.0
# tools/gpu_suites/queue.sh - queue benchmarks on the GPU (sourced by tools/gpu_check.sh).
#
# The paper's two benchmarks (matched enqueue/dequeue per thread; one producer
# for three consumers) for every queue, over a thread sweep from one warp per
# SM to full occupancy. Each stm_bench run verifies conservation and
# per-producer FIFO order and exits non-zero otherwise.
# Results: $RESULTS/queue.jsonl (one JSON object per figure).

queue_out="$RESULTS/queue.jsonl"
# Full occupancy (SMs x 2048) as stm_bench reports it; one warp per SM is 1/64 of it.
queue_full=$("$BENCH" --workload queue --backend gpu --threads 32 --per-thread 1 --warmup 0 2>/dev/null |
  sed -n 's/.*full occupancy: \([0-9]*\).*/\1/p')
if [ -z "$queue_full" ]; then
  echo "FAILED: queue suite: could not read full occupancy from stm_bench" >&2
else
  queue_warp=$((queue_full / 64))
  if [ "${QUICK:-0}" = 1 ]; then
    queue_sweep="$queue_warp full"
    queue_hot_sweep="full"
    queue_rep="--repeat 3 --warmup 1"
  else
    queue_sweep="$queue_warp $((queue_full / 16)) $((queue_full / 4)) full"
    queue_hot_sweep="$queue_warp $((queue_full / 16)) full"
    queue_rep="--repeat 3 --warmup 1"
  fi
  for mode in matched prodcons; do
    # The blocking ticket queue: 64 pairs per thread (per consumer in prodcons).
    for t in $queue_sweep; do
      "$BENCH" --workload queue --backend gpu --impl ticket --mode $mode --threads $t $queue_rep \
        --format json --out "$queue_out" -q >/dev/null ||
        echo "FAILED: queue ticket $mode threads=$t" >&2
    done
    # Every call of these must win a CAS on one hot word (a million ops/s at
    # best at full occupancy): one pair per thread, fewer sweep points, and a
    # time limit so that a collapse is reported instead of stalling the suite.
    # (The STM-backed queue has its own suite, 21_queue_tx.)
    for t in $queue_hot_sweep; do
      for impl in ticket-nb ms; do
        tt=$t
        timeout 120 "$BENCH" --workload queue --backend gpu --impl $impl --mode $mode --threads $tt $queue_rep \
          --format json --out "$queue_out" -q >/dev/null ||
          echo "FAILED: queue $impl $mode threads=$tt" >&2
      done
    done
  done
fi
