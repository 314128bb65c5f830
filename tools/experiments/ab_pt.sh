# SPDX-License-Identifier: Apache-2.0
# Sourced by the A/B experiment scripts (cold_release, escalation_prehold, escalation_release): with $O the
# output file, `pt BUILD ROUND BIN ARGS...` runs one stm_bench call on the GPU (medians of 3 after a
# warm-up, JSON; killed after $AB_TIMEOUT seconds, 150 unless set), tags its rows with `build` and `round`
# (tag_rows.py) and appends them to $O; a failure is reported on stderr and the script goes on.
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0
ab_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
pt() {
  local build=$1 round=$2 bin=$3; shift 3
  timeout "${AB_TIMEOUT:-150}" "$bin" --backend gpu --repeat 3 --warmup 1 --format json -q "$@" |
    python3 "$ab_dir/tag_rows.py" build="$build" round="$round" >> "$O" ||
    echo "FAILED $build: $*" >&2
}
