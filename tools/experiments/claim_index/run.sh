#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Experiment: the node pools' index claims, one atomic per lane (the default,
# platform::claim_index) against one shared by the calling lanes of a warp
# (STM_CLAIM_AGGREGATED=1, the form before), on the native skiplist at full
# occupancy (drv.cu): 12 seeds each, one process per seed, cut at 30 s (a
# hang), the two binaries alternating. The hypothesis (docs/design-decisions.md#claimed-indices):
# the shared claim fails in about a quarter of the seeds ("node 3 was retired twice", or a
# hang), the per-lane claim none, at a throughput within a few percent.
# On an H100/H200, from the repository root:
#   tools/experiments/claim_index/run.sh OUTDIR
set -uo pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
here=tools/experiments/claim_index
flags=(-O3 -DNDEBUG -std=c++17 --extended-lambda --expt-relaxed-constexpr -DSTM_WITH_CUDA=1
       --generate-code=arch=compute_90,code=sm_90 -I .)
nvcc "${flags[@]}" -DSTM_CLAIM_AGGREGATED=0 "$here/drv.cu" -o "$out/sk_lane" &
nvcc "${flags[@]}" -DSTM_CLAIM_AGGREGATED=1 "$here/drv.cu" -o "$out/sk_warp" &
wait
[ -x "$out/sk_lane" ] && [ -x "$out/sk_warp" ] || { echo "build failed" >&2; exit 1; }
nvidia-smi -L
declare -A failed=([lane]=0 [warp]=0) hung=([lane]=0 [warp]=0)
for s in 1 2 3 4 5 6 7 8 9 10 11 12; do
  for v in lane warp; do
    timeout 30 "$out/sk_$v" "$s" | tee -a "$out/log.txt"
    rc=${PIPESTATUS[0]}
    if [ "$rc" = 124 ]; then echo "sk_$v seed $s: HANG (cut at 30 s)" | tee -a "$out/log.txt"; hung[$v]=$((hung[$v] + 1));
    elif [ "$rc" != 0 ]; then failed[$v]=$((failed[$v] + 1)); fi
  done
done
for v in lane warp; do echo "claims per $v: ${failed[$v]} failed, ${hung[$v]} hung of 12" | tee -a "$out/log.txt"; done
