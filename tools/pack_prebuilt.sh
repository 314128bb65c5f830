#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tools/pack_prebuilt.sh BUILD_DIR DEST - copy stm_bench and every test program
# of a build into DEST (DEST/stm_bench, DEST/tests/*), for
# `tools/gpu_check.sh OUT --prebuilt=DEST` on a GPU machine of the same
# architecture that should not spend its time compiling.
set -euo pipefail
build="${1:?usage: tools/pack_prebuilt.sh BUILD_DIR DEST}"
dest="${2:?usage: tools/pack_prebuilt.sh BUILD_DIR DEST}"
[ -x "$build/stm_bench" ] || { echo "pack_prebuilt: no $build/stm_bench: build first" >&2; exit 1; }
# A build of tools/check.sh on a machine without a GPU holds PTX only, which the
# driver would compile at every program's start: ask for sm_90 code.
if grep -q '^CMAKE_CUDA_ARCHITECTURES:.*=.*virtual' "$build/CMakeCache.txt" 2>/dev/null; then
  echo "pack_prebuilt: $build has PTX only (CMAKE_CUDA_ARCHITECTURES=*-virtual): configure it with -DCMAKE_CUDA_ARCHITECTURES=90 and build again" >&2
  exit 1
fi
rm -rf "$dest"
mkdir -p "$dest/tests"
cp "$build/stm_bench" "$dest/"
find "$build/tests" -type f -perm -u+x ! -name '*.sh' ! -path '*CMakeFiles*' -exec cp {} "$dest/tests/" \;
du -sh "$dest"
