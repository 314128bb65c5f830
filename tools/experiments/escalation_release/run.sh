#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Measured, not adopted (results/experiments/escalation_release_6b4e644.jsonl; docs/design-decisions.md
# #escalation-release): the escalated attempt's read set walked in batches (release.patch: the release of its
# held locks in batches of 8, write()'s scan for a held read gone, no stolen-read scan after an escalated
# commit) against the tree it applies to; serial.patch the same with the release loop kept serial (B3).
# A = the tree, B = the tree with `git apply release.patch` (or serial.patch); prstm (and backoff at one
# point), at the scaling suite's array points (tools/gpu_suites/scaling/run.sh: the same --ops and --tpt), full occupancy but for
# 32k R = 256 at 1,536 threads, its best point; medians of 3 after a warm-up, two alternating rounds
# (32k R = 256 at full occupancy, 9-15 s a launch, in the first round only). Rows carry `build` and
# `round`. About 5 minutes of device time.
# Build each tree (the array alone is enough: every other workload's tools/stm_bench/workloads/<name>*
# removed from a scratch copy, which stm_bench's glob then leaves out):
#   cmake -S . -B build-x -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90-real \
#     -DPRSTM_BUILD_TESTS=OFF -DPRSTM_BUILD_TOOLS=ON -DPRSTM_ENABLE_CUDA=ON -DPRSTM_WITH_NVSHMEM=OFF
#   ninja -C build-x stm_bench
# then on an H100/H200: tools/experiments/escalation_release/run.sh A/stm_bench B/stm_bench OUT.jsonl
set -uo pipefail
A=${1:?usage: run.sh STM_BENCH_A STM_BENCH_B OUT.jsonl}
B=${2:?usage: run.sh STM_BENCH_A STM_BENCH_B OUT.jsonl}
O=${3:?usage: run.sh STM_BENCH_A STM_BENCH_B OUT.jsonl}
source "$(dirname "$0")/../ab_pt.sh"
a=(--workload array --threads full --validation all --cm prstm)
for round in 1 2; do
  for v in A B; do
    bin=$A; [ $v = B ] && bin=$B
    pt $v $round "$bin" "${a[@]}" --words 2097152 --reads 16 --tpt 32
    pt $v $round "$bin" "${a[@]}" --words 2097152 --reads 64 --tpt 32
    pt $v $round "$bin" "${a[@]}" --words 2097152 --reads 256 --tpt 4
    pt $v $round "$bin" "${a[@]}" --words 32768 --reads 16 --tpt 32
    pt $v $round "$bin" "${a[@]}" --words 32768 --reads 64 --tpt 8
    pt $v $round "$bin" --workload array --threads full --validation all --cm backoff --words 2097152 --reads 64 --tpt 32
    pt $v $round "$bin" --workload array --threads 1536 --validation all --cm prstm --words 32768 --reads 256 --ops 67584
    [ $round = 1 ] && pt $v $round "$bin" "${a[@]}" --words 32768 --reads 256 --tpt 1
  done
done
