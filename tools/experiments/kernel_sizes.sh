#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Experiment tool (not a suite; no GPU needed): the size of every kernel's
# sm_90 code in stm_bench's GPU translation units, largest first. A kernel of
# hundreds of kB runs at the mercy of instruction fetch and of where the
# compiler lays its hot paths out (docs/design-decisions.md#outlined-accesses).
# Each unit is compiled to a cubin (nvcc -cubin, the build's flags) and the
# sizes are the ELF .text sections (readelf), one per kernel with the device
# functions it calls.
# Usage: tools/experiments/kernel_sizes.sh OUTDIR [WORKLOAD...]   (default: every *_gpu.cu)
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: tools/experiments/kernel_sizes.sh OUTDIR [WORKLOAD...]}; shift
mkdir -p "$out/include"
for d in cmp containers stm workloads; do ln -sfn "$PWD/$d" "$out/include/$d"; done
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
command -v readelf >/dev/null && command -v c++filt >/dev/null || { echo "kernel_sizes.sh: needs readelf and c++filt (binutils)" >&2; exit 2; }
names=("$@")
[ ${#names[@]} -gt 0 ] || for f in tools/stm_bench/workloads/*_gpu.cu; do b=$(basename "$f"); names+=("${b%_gpu.cu}"); done
for w in "${names[@]}"; do
  src=tools/stm_bench/workloads/${w}_gpu.cu
  [ -f "$src" ] || { echo "kernel_sizes.sh: no $src" >&2; exit 2; }
  "$nvcc" -DSTM_WITH_CUDA=1 -O3 -DNDEBUG -arch=sm_90 -cubin --extended-lambda --expt-relaxed-constexpr -std=c++17 \
    -Itools/stm_bench -I"$out/include" "$src" -o "$out/$w.cubin" || { echo "kernel_sizes.sh: $w did not compile" >&2; exit 1; }
  readelf -SW "$out/$w.cubin" 2>/dev/null | awk '$2 ~ /^\.text\./ {print $2, $6}' |
    while read -r name size; do printf '%d %s %s\n' "$((16#$size))" "$w" "$(echo "${name#.text.}" | c++filt)"; done
done | sort -rn > "$out/kernel_sizes.txt"
echo "kernel_sizes.sh: $(wc -l < "$out/kernel_sizes.txt") kernels in $out/kernel_sizes.txt; the largest:"
head -10 "$out/kernel_sizes.txt" | cut -c1-160
