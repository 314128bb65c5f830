#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tools/profile_bank.sh OUT_DIR LABEL STM_BENCH [stm_bench bank args...]
#
# Nsight Compute profile of one launch of the bank's drain kernel (the third
# of a short timed run, which relaunches it): speed of light, memory workload, warp states and
# per-instruction stall samples. Writes
#   OUT_DIR/LABEL.ncu-rep      the report (open with ncu-ui or ncu --import)
#   OUT_DIR/LABEL.details.txt  the sections, as text
#   OUT_DIR/LABEL.sass.csv     the SASS of the kernel with stall samples per instruction
# The stall samples come from a plain replay; the executed-instruction counts
# of SourceCounters from an instrumented one, slower, where contention is
# higher (an H100 run showed ~28 attempts per commit there against ~7 in the
# uninstrumented run): read those counts as ratios within an attempt, not as
# rates. Needs ncu (Nsight Compute) and a GPU. Example, the 4,096-account target point:
#   tools/profile_bank.sh prof prstm build/stm_bench --cm prstm --accounts 4096 --threads full --tpt 64
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: tools/profile_bank.sh OUT_DIR LABEL STM_BENCH [args...]" >&2; exit 2; }
out="$1" label="$2" bench="$3"
shift 3
command -v ncu >/dev/null || { echo "profile_bank.sh: ncu (Nsight Compute) is not on PATH" >&2; exit 2; }
mkdir -p "$out"
rep="$out/$label"
# Timed mode keeps relaunching the drain, so a short run has the launches to skip.
ncu --kernel-name-base demangled --kernel-name regex:drain_kernel --launch-skip 2 --launch-count 1 \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SourceCounters \
  --section LaunchStats --section Occupancy --import-source no -f -o "$rep" \
  "$bench" --workload bank --backend gpu --semantic 0 --read-only 0 --hash 1 --seconds 0.2 --repeat 1 --warmup 0 -q "$@" \
  > "$rep.log" 2>&1 || { tail -20 "$rep.log" >&2; exit 1; }
ncu --import "$rep.ncu-rep" --page details > "$rep.details.txt"
ncu --import "$rep.ncu-rep" --page source --print-source sass --csv > "$rep.sass.csv"
echo "profile_bank.sh: $label: $(wc -l < "$rep.sass.csv") SASS lines in $rep.sass.csv"
