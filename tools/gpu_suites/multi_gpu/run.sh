#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tools/gpu_suites/multi_gpu/run.sh STM_BENCH OUT.jsonl [ACCOUNTS]
#
# The partitioned bank (stm_bench --workload bank --pes N, PR-STM over NVSHMEM)
# on a machine of several GPUs, every row appended to OUT.jsonl (median of 3
# after a warm-up, transfers only, 64 per thread, ACCOUNTS in all, default
# 10,485,760):
#   - one GPU: the plain bank and the partitioned one on 1 PE, both simulated
#     (one process) and over NVSHMEM (tools/multi_gpu.sh 1), at full occupancy
#     and at 131,072 threads;
#   - N = 2, 4, ... up to the GPUs of the machine (doubling): 0, 1, 10, 50 and
#     100% of the transfers between GPUs, at 2^19 / N threads per GPU: the
#     priorities are unique across GPUs (docs/multi-gpu.md).
# STM_BENCH must be built with NVSHMEM (-DPRSTM_WITH_NVSHMEM=ON). NVLink
# multicast stays off (tools/multi_gpu.sh sets NVSHMEM_DISABLE_NVLS=1).
# The interconnect table: build/tools/interconnect_bench --api peer, and
# tools/multi_gpu.sh 2 build/tools/interconnect_bench --api nvshmem.
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: tools/gpu_suites/multi_gpu/run.sh STM_BENCH OUT.jsonl [ACCOUNTS]" >&2; exit 2; }
B="$1"; OUT="$2"; A="${3:-10485760}"
[ -x "$B" ] || { echo "multi_gpu/run.sh: '$B' is not an executable" >&2; exit 2; }
[[ "$A" =~ ^[1-9][0-9]*$ ]] || { echo "multi_gpu/run.sh: ACCOUNTS must be a whole number, got '$A'" >&2; exit 2; }
root="$(cd "$(dirname "$0")/../../.." && pwd)"
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0
# The NVSHMEM libraries for the runs outside the launcher (it sets the path itself).
if lib=$(python3 -c 'import nvidia.nvshmem as m; print(list(m.__path__)[0] + "/lib")' 2>/dev/null); then
  export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
[ "$gpus" -ge 1 ] || { echo "multi_gpu/run.sh: no GPU (nvidia-smi -L)" >&2; exit 2; }
common=(--backend gpu --workload bank --accounts "$A" --tpt 64 --hash 1 --repeat 3 --warmup 1 --format json -q --out "$OUT")
status=0
run() { echo "multi_gpu: $*" >&2; "$@" > /dev/null || { echo "FAILED: $*" >&2; status=1; }; }
for t in full 131072; do
  run "$B" "${common[@]}" --threads $t --semantic 0 --read-only 0 --cm prstm
  run "$B" "${common[@]}" --threads $t --pes 1
  run bash "$root/tools/multi_gpu.sh" 1 "$B" "${common[@]}" --threads $t --pes 1
done
for ((n = 2; n <= gpus; n *= 2)); do
  t=$(( 524288 / n ))  # below full occupancy of an H100/H200 (270,336) from N = 2 on
  for x in 0 1 10 50 100; do
    run bash "$root/tools/multi_gpu.sh" $n "$B" "${common[@]}" --threads $t --pes $n --cross $x
  done
done
exit $status
