#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Measured, not adopted (results/experiments/cold_release_85ab170.jsonl: the third block an SM
# that the freed registers allow costs the array 3-27%): the R >= 16 kernels with their cold release paths out of line
# (release_outlined.patch) against the tree it applies to. Why: at full occupancy prstm's R = 16 kernel
# waits on instruction fetch three times as often as backoff's (results/experiments/prstm_commit_cost_7acd340.txt),
# and every kernel of sets too large to unroll is 190-260 KB of SASS, three times the R = 8 ones. Two
# releases were inlined at each of their call sites: of an attempt's locks (tx_writeback.hpp:
# release_unpublished with release_stolen_reads, at each failure exit of the commit protocols) and of an
# escalated attempt's held reads (tx_escalation.hpp: end_escalation). The patch calls one copy of each,
# which takes the sets by pointer (in local memory already at these sizes) and the rest by value, so that,
# unlike outlined_accesses (docs/design-decisions.md#outlined-accesses), the descriptor's other fields stay
# in registers. Static effect (results/experiments/cold_release_static_b1c5cc7.txt; nvcc -cubin of
# tools/stm_bench/workloads/array_gpu.cu, sm_90): prstm's R = 16 commit-time kernel 238,592 -> 123,264
# bytes, backoff's 217,216 -> 110,080; ptxas gives the R >= 16 kernels of prstm, backoff and delay 65-72
# registers instead of 94-102 (3 blocks of 256 an SM instead of 2), the graph's prstm kernel 84 instead of
# 128 (first part alone), with the same stack frames and no spills; the R <= 8 kernels unchanged. More
# resident blocks also means more transactions at once (docs/design-decisions.md#residency-cap): the A/B
# decides. The CPU core, history and long_tx tests pass with the patch. The patch writes each release
# twice (the unrolled sets keep their constant-index loops, the larger ones get the pointer loop): if
# adopted, one body templated on the scan instead. The sizes again, with and without
# it: tools/experiments/kernel_sizes.sh OUT array graph (the registers: the same nvcc line with
# --resource-usage).
# Build both (A: the tree; B: a worktree with `git apply tools/experiments/cold_release/release_outlined.patch`):
#   cmake -S . -B build-x -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90-real \
#     -DPRSTM_BUILD_TESTS=OFF -DPRSTM_BUILD_TOOLS=ON -DPRSTM_ENABLE_CUDA=ON -DPRSTM_WITH_NVSHMEM=OFF
#   ninja -C build-x stm_bench
# then on an H100/H200: tools/experiments/cold_release/run.sh A/stm_bench B/stm_bench OUT.jsonl
# Rows carry `build` (A or B) and `round`; full occupancy, medians of 3 after a warm-up, two alternating
# rounds, prstm and backoff. About 4 minutes of device time.
set -uo pipefail
A=${1:?usage: run.sh STM_BENCH_A STM_BENCH_B OUT.jsonl}
B=${2:?usage: run.sh STM_BENCH_A STM_BENCH_B OUT.jsonl}
O=${3:?usage: run.sh STM_BENCH_A STM_BENCH_B OUT.jsonl}
AB_TIMEOUT=120
source "$(dirname "$0")/../ab_pt.sh"
f=(--threads full --sweep cm=prstm,backoff)
for round in 1 2; do
  for v in A B; do
    bin=$A; [ $v = B ] && bin=$B
    pt $v $round "$bin" "${f[@]}" --workload array --words 2097152 --reads 16 --tpt 32 --validation all
    pt $v $round "$bin" "${f[@]}" --workload array --words 2097152 --reads 64 --tpt 32 --validation all
    pt $v $round "$bin" "${f[@]}" --workload array --words 32768 --reads 16 --tpt 32 --validation all
    pt $v $round "$bin" "${f[@]}" --workload graph --impl tx
    pt $v $round "$bin" "${f[@]}" --workload vacation --preset paper --impl tx
    pt $v $round "$bin" "${f[@]}" --workload vacation --preset high --impl tx
    pt $v $round "$bin" "${f[@]}" --workload skiplist --keys 5000 --levels 5 --mix 50/50/0 --impl tx
    pt $v $round "$bin" "${f[@]}" --workload bank --accounts 2621440 --tpt 64 --seconds 0.3 --semantic 0 --read-only 0
  done
done
