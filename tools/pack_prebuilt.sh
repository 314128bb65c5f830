#!/usr/bin/env bash
# tools/pack_prebuilt.sh BUILD_DIR DEST - copy stm_bench and every test program
# of a build into DEST (DEST/stm_bench, DEST/tests/*), for
# `tools/gpu_check.sh OUT --prebuilt=DEST` on a GPU machine of the same
# architecture that should not spend its time compiling.
set -euo pipefail
build="${1:?usage: tools/pack_prebuilt.sh BUILD_DIR DEST}"
dest="${2:?usage: tools/pack_prebuilt.sh BUILD_DIR DEST}"
[ -x "$build/stm_bench" ] || { echo "pack_prebuilt: no $build/stm_bench: build first" >&2; exit 1; }
rm -rf "$dest"
mkdir -p "$dest/tests"
cp "$build/stm_bench" "$dest/"
find "$build/tests" -type f -perm -u+x ! -name '*.sh' ! -path '*CMakeFiles*' -exec cp {} "$dest/tests/" \;
du -sh "$dest"
