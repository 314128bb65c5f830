#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Experiment: the boosted sets' one-shot updates (containers/detail/boost.hpp,
# one_shot_mode; docs/container-boosting.md#one-shot-updates) on the headline
# points: tx_skiplist against the native skiplist (5,000 keys of 10,000, 5
# levels, 1M operations, 50/50/0 and 20/20/60) and tx_set against the
# bucketed Harris list (10,000 keys, 1M operations, 20/20/60), prstm, full
# occupancy, --warmup 1 --repeat 3.
#
# Three stm_bench builds of this tree:
#   tx      -DSTM_BOOST_ONE_SHOT=3: every one-shot update a transaction; its
#           kernels are main's (the same registers and stack, ptxas -v): the baseline
#   direct  -DSTM_BOOST_ONE_SHOT=0: the direct path alone in the kernels
#   rt      no macro: every mode in one binary, chosen by --one-shot
#           (attribution: precheck = the no-op answers alone, direct-search =
#           direct without the carried search position and with the clean
#           value stored after the whole native operation; its kernels hold every
#           path, so compare its modes with each other, not with the builds above)
# Each point runs twice, the binaries alternating (drift shows as a gap between
# the two rounds of one binary). Output: OUTDIR/{tx,direct,rt}.jsonl and the
# summary (tools/experiments/one_shot/summary.py).
# On an H100/H200, from the repository root:
#   tools/experiments/one_shot/run.sh OUTDIR            # all three builds
#   ONLY="tx direct" tools/experiments/one_shot/run.sh OUTDIR   # fewer builds
set -uo pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
jobs=$(nproc 2>/dev/null || echo 8)
builds=${ONLY:-"tx direct rt"}
declare -A macro=([tx]="-DSTM_BOOST_ONE_SHOT=3" [direct]="-DSTM_BOOST_ONE_SHOT=0" [rt]="")
for b in $builds; do
  dir="build-oneshot-$b"
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPRSTM_BUILD_TESTS=OFF \
    "-DCMAKE_CUDA_FLAGS=${macro[$b]}" "-DCMAKE_CXX_FLAGS=${macro[$b]}" >"$out/cmake-$b.log" 2>&1 &&
    cmake --build "$dir" --target stm_bench -j "$jobs" >"$out/build-$b.log" 2>&1 ||
    { echo "build $b failed (see $out/build-$b.log)" >&2; exit 1; }
done
nvidia-smi -L | tee "$out/device.txt"
git rev-parse --short HEAD | tee -a "$out/device.txt"
common=(--backend gpu --threads full --cm prstm --warmup 1 --repeat 3 -q --format json)
sk=(--workload skiplist --keys 5000 --levels 5 --ops 1000000)
li=(--workload list --keys 10000 --ops 1000000 --mix 20/20/60)
point() {  # build, then the stm_bench arguments
  local b=$1; shift
  echo "== $b: $*" | tee -a "$out/log.txt"
  timeout 300 "build-oneshot-$b/stm_bench" "$@" "${common[@]}" --out "$out/$b.jsonl" >>"$out/log.txt" 2>&1 ||
    echo "FAILED ($?): $b $*" | tee -a "$out/log.txt"
}
for round in 1 2; do
  for b in $builds; do
    modes=(--impl all)
    [ "$b" = rt ] && modes=(--impl tx --sweep one-shot=tx,precheck,direct-search,direct)
    for mix in 50/50/0 20/20/60; do point "$b" "${sk[@]}" --mix "$mix" "${modes[@]}"; done
    point "$b" "${li[@]}" "${modes[@]}"
  done
done
python3 tools/experiments/one_shot/summary.py "$out" | tee "$out/summary.txt"
