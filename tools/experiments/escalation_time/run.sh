#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Measured (results/experiments/escalation_time_85ab170.jsonl; docs/design-decisions.md#escalation-prehold).
# How long escalated attempts hold the table's token, and wait for it (time.patch: globaltimer at the
# token's acquisition, at the escalation's end and after the release of its locks, summed over a launch;
# the array workload prints an `esc_time:` and an `esc_parts:` line per launch to stderr).
# Why: over 32k words, R = 256, escalations run at about 2,300 a
# second from 24,576 threads on, and taking the escalated attempt's locks in a batch ahead did not change
# that rate (docs/design-decisions.md#escalation-prehold): whether the token is busy the whole launch
# (serial holds of ~425 us) or idle between fewer, shorter holds decides the next design.
# Build: the tree with time.patch, `-DCMAKE_CUDA_FLAGS=-DSTM_EXP_ESC_TIME=1` added to the build line of
# tools/experiments/cold_release/run.sh's header. The rows with `tools/experiments/escalation_prehold/prehold.patch`
# too: that patch first, then time.patch's lines placed by hand (both touch begin_escalation's last lines;
# the hold then includes the batch). The file's first 24 rows were measured before the `esc_parts` lines
# (the lanes starting with the escalating one, its reads, its release) were added to time.patch.
# cycles.patch (apply it instead of time.patch: it holds time.patch and adds the SM's clock around each
# part of an exclusive escalated attempt, printed as an `esc_cycles:` line per launch) measured
# results/experiments/escalation_cycles_6b4e644.txt, at four points of this script's (1,536 threads and full
# occupancy R = 256 opaque, full occupancy R = 64 opaque and R = 256 commit-time; --repeat 1-2).
#   tools/experiments/escalation_time/run.sh STM_BENCH OUTDIR
set -uo pipefail
B=${1:?usage: run.sh STM_BENCH OUTDIR}
O=${2:?usage: run.sh STM_BENCH OUTDIR}
mkdir -p "$O"
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0
pt() {  # tag, stm_bench arguments
  local tag=$1; shift
  timeout 150 "$B" --backend gpu --repeat 3 --warmup 1 --format json -q "$@" >> "$O/rows.jsonl" 2> "$O/esc_$tag.txt" ||
    echo "FAILED $tag: $*" >&2
}
for v in opaque commit; do
  a=(--workload array --words 32768 --reads 256 --validation $v)
  for th in 1536 6144 24576; do pt "r256_${v}_prstm_$th" "${a[@]}" --ops 67584 --threads $th --cm prstm; done
  pt "r256_${v}_prstm_full" "${a[@]}" --tpt 1 --threads full --cm prstm
  pt "r256_${v}_backoff_1536" "${a[@]}" --ops 67584 --threads 1536 --cm backoff
  pt "r64_${v}_prstm_full" --workload array --words 32768 --reads 64 --validation $v --tpt 8 --threads full --cm prstm
done
