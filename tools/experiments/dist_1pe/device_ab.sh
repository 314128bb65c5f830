#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tools/experiments/dist_1pe/device_ab.sh build|run [OUT.jsonl]
# Run from the repository root on an H100/H200 (README.md beside it says what
# the patches are).
#   build: stm_bench of the tree as it is (base), then with the patches of
#          this folder applied cumulatively, binaries kept in build-ab/bin/
#          (build-ab is ignored, so it survives between calls while the
#          machine stays warm); the tree is restored at the end. Only the
#          bank's translation units rebuild after the first build.
#   run:   ab_dist.sh over the binaries (plain bank and --pes 1, drain mode);
#          AB_STEPS picks them (default "p3 p5 p8"), ACCOUNTS the sizes.
set -euo pipefail
D=tools/experiments/dist_1pe
B=build-ab
# label:last patch included. The default builds three points (each rebuild of
# the bank's GPU unit takes minutes): p3 = 0001-0003 (fence, pause cap, reads),
# p5 = + batched commit steps and the one-attempt-at-a-time driver, p8 = all
# (0008 is the experiment-only STM_DIST_WORKERS; unset, p8 runs as p7).
steps="${BUILD_STEPS:-p3:0003 p5:0005 p8:0008}"
case "${1:-}" in
  build)
    mkdir -p "$B/bin"
    cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DPRSTM_BUILD_TESTS=OFF -DPRSTM_WITH_NVSHMEM=OFF >/dev/null
    ninja -C "$B" stm_bench >/dev/null || exit 1
    cp "$B/stm_bench" "$B/bin/base"
    applied=()
    trap 'for ((i=${#applied[@]}-1; i>=0; i--)); do patch -p1 -R -s < "${applied[$i]}"; done' EXIT
    for s in $steps; do
      label=${s%%:*} last=${s#*:}
      for p in "$D"/0*.patch; do
        n=$(basename "$p" | cut -c1-4)
        [[ "$n" > "$last" ]] && continue
        [[ " ${applied[*]:-} " == *" $p "* ]] && continue
        patch -p1 -s < "$p"; applied+=("$p")
      done
      ninja -C "$B" stm_bench >/dev/null || exit 1
      cp "$B/stm_bench" "$B/bin/$label"
      echo "built $label"
    done ;;
  run)
    out="${2:-$D/ab_$(date +%s).jsonl}"
    args=(base="$B/bin/base")
    for s in ${AB_STEPS:-p3 p5 p8}; do args+=("$s=$B/bin/$s"); done
    "$D/ab_dist.sh" "$out" "${args[@]}" ;;
  *) echo "usage: $0 build|run [OUT.jsonl]" >&2; exit 2 ;;
esac
