# SPDX-License-Identifier: Apache-2.0
# The STM-backed queue (containers/queue/tx.hpp) in the queue suite's two
# benchmarks, one pair per thread (per consumer in prodcons). A warp's one-shot
# operations are one transaction on the queue's head or tail word, so warps
# serialize on those words. Its own suite so that the native queues' figures
# do not wait on it.
# matched: one warp per SM, 1/16 and full occupancy under prstm, and full
# occupancy under backoff; prodcons: one warp per SM and 1/16 (its consumers
# wait for producers, so every thread must be resident: its kernel keeps about a
# third of full occupancy resident, and at 1/16 one run already takes ~9 s).
queue_out="$RESULTS/queue.jsonl"
queue_full=$("$BENCH" --workload queue --backend gpu --threads 32 --per-thread 1 --warmup 0 2>/dev/null |
  sed -n 's/.*full occupancy: \([0-9]*\).*/\1/p')
if [ -z "$queue_full" ]; then
  echo "FAILED: queue tx suite: could not read full occupancy from stm_bench" >&2
else
  qtx() {  # limit mode threads cm
    timeout "$1" "$BENCH" --workload queue --backend gpu --impl tx --mode "$2" --threads "$3" --cm "$4" \
      --repeat 3 --warmup 1 --format json --out "$queue_out" -q >/dev/null ||
      echo "FAILED or over ${1} s: queue tx $2 threads=$3 cm=$4" >&2
  }
  qtx 30 matched $((queue_full / 64)) prstm
  qtx 30 matched $((queue_full / 16)) prstm
  qtx 30 prodcons $((queue_full / 64)) prstm
  qtx 60 prodcons $((queue_full / 16)) prstm
  qtx 60 matched "$queue_full" backoff
  qtx 120 matched "$queue_full" prstm
fi
