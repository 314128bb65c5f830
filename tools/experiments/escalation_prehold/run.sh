#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Measured, not adopted (results/experiments/escalation_prehold_85ab170.jsonl; docs/design-decisions.md#escalation-prehold).
# A/B of the escalated attempt's batch (prehold.patch, with a forced test of it in tests/core/long_tx_tests.inc):
# A = stm_bench of the tree before it, B = with it (both built as tools/experiments/cold_release/run.sh's
# header says). The configurations whose runs escalation bounds (docs/design-decisions.md#admission-floor):
# the array over 32k words, R = 256 at its best point (1,536 threads) and at full occupancy, R = 64 and 2M words, R = 64 and
# 256, at full occupancy; vacation, the skiplist and the graph at full occupancy (sets too large to unroll:
# the batch's other users). Medians of 3 after a warm-up; rows carry `build` and `round`.
#   tools/experiments/escalation_prehold/run.sh A/stm_bench B/stm_bench OUT.jsonl [ROUNDS]
set -uo pipefail
A=${1:?usage: run.sh STM_BENCH_A STM_BENCH_B OUT.jsonl [ROUNDS]}
B=${2:?usage: run.sh STM_BENCH_A STM_BENCH_B OUT.jsonl [ROUNDS]}
O=${3:?usage: run.sh STM_BENCH_A STM_BENCH_B OUT.jsonl [ROUNDS]}
rounds=${4:-1}
source "$(dirname "$0")/../ab_pt.sh"
for round in $(seq "$rounds"); do
  for v in A B; do
    bin=$A; [ $v = B ] && bin=$B
    a=(--workload array --words 32768 --reads 256 --validation all --cm prstm)
    pt $v "$round" "$bin" "${a[@]}" --ops 67584 --threads 1536
    pt $v "$round" "$bin" "${a[@]}" --tpt 1 --threads full
    pt $v "$round" "$bin" --workload array --words 32768 --reads 64 --validation all --tpt 8 --threads full --sweep cm=prstm,backoff
    pt $v "$round" "$bin" --workload array --words 2097152 --reads 64 --validation all --tpt 32 --threads full --cm prstm
    pt $v "$round" "$bin" --workload array --words 2097152 --reads 256 --validation all --tpt 4 --threads full --cm prstm
    pt $v "$round" "$bin" --workload vacation --preset paper --impl tx --threads full --sweep cm=prstm,backoff
    pt $v "$round" "$bin" --workload vacation --preset high --impl tx --threads full --cm prstm
    pt $v "$round" "$bin" --workload skiplist --keys 5000 --levels 5 --mix 50/50/0 --impl tx --threads full --cm prstm
    pt $v "$round" "$bin" --workload graph --impl tx --threads full --cm prstm
  done
done
