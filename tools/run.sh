#!/usr/bin/env bash
# tools/run.sh - build stm_bench and run the main job: the bank workload on the
# GPU when one is present, else on the CPU. Extra arguments go to stm_bench:
#   tools/run.sh --accounts 4096 --threads full
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh >/dev/null
[ -d /usr/local/cuda/bin ] && export PATH="/usr/local/cuda/bin:$PATH"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build --target stm_bench -j "$(nproc 2>/dev/null || echo 2)"
exec ./build/stm_bench --workload bank "$@"
