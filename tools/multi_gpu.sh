#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tools/multi_gpu.sh - start one process per GPU of a multi-GPU program of this
# project (stm_bench --pes N, interconnect_bench --api nvshmem), bootstrapped by
# NVSHMEM's unique id, without MPI.
#
#   tools/multi_gpu.sh N|auto PROGRAM [ARGS...]
#
# N processes (auto: one per GPU of the machine, nvidia-smi -L). This script
# makes a private folder and names a file in it; process 0 writes NVSHMEM's
# unique id there and the others read it (stm/dist/nvshmem.hpp). Each process
# gets PRSTM_PE_RANK (0..N-1, also its GPU), PRSTM_PE_COUNT and
# PRSTM_UNIQUEID_FILE. Process 0's output is this script's; process k's goes
# to the folder and is shown when it fails. The exit code is the first
# non-zero one of the processes (0 when all succeed).
#
# NVLink multicast (NVLS) stays off in every environment started here:
# NVSHMEM_DISABLE_NVLS=1 and NCCL_NVLS_ENABLE=0 (docs/multi-gpu.md says why).
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "multi_gpu.sh: usage: tools/multi_gpu.sh N|auto PROGRAM [ARGS...]" >&2
  exit 2
fi
n="$1"
shift
if [ "$n" = auto ]; then
  if ! command -v nvidia-smi >/dev/null 2>&1; then
    echo "multi_gpu.sh: auto needs nvidia-smi to count the GPUs; give N" >&2
    exit 2
  fi
  n=$(nvidia-smi -L | grep -c '^GPU ')
fi
if ! [[ "$n" =~ ^[1-9][0-9]{0,3}$ ]]; then
  echo "multi_gpu.sh: N must be a whole number from 1 to 9999 or auto, got '$n'" >&2
  exit 2
fi
if ! command -v "$1" >/dev/null 2>&1 && [ ! -x "$1" ]; then
  echo "multi_gpu.sh: no program '$1'" >&2
  exit 2
fi

export NVSHMEM_DISABLE_NVLS=1
export NCCL_NVLS_ENABLE=0
# Every process runs on this machine: the unique-id bootstrap's sockets use the
# loopback interface unless told otherwise (a machine may have no other).
export NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME="${NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME:-lo}"
# NVSHMEM loads its bootstrap and transport plugins by name: the wheel's folder
# must be on the library path (NVSHMEM_HOME/lib for an installed NVSHMEM).
libdir=""
if [ -n "${NVSHMEM_HOME:-}" ] && [ -d "$NVSHMEM_HOME/lib" ]; then
  libdir="$NVSHMEM_HOME/lib"
elif libdir=$(python3 -c 'import nvidia.nvshmem as m; print(list(m.__path__)[0] + "/lib")' 2>/dev/null); then
  :
else
  libdir=""
fi
if [ -n "$libdir" ]; then export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"; fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/prstm_pes.XXXXXX")
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$dir"
}
trap cleanup EXIT INT TERM
export PRSTM_UNIQUEID_FILE="$dir/uniqueid"
export PRSTM_PE_COUNT="$n"

for ((k = 1; k < n; k++)); do
  PRSTM_PE_RANK=$k "$@" >"$dir/pe$k.out" 2>"$dir/pe$k.err" &
  pids+=($!)
done
rc=0
PRSTM_PE_RANK=0 "$@" || rc=$?
stopped=0
if [ "$rc" != 0 ]; then  # the others would wait for it (the unique id, a barrier): stop them
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  stopped=1
fi
for ((k = 1; k < n; k++)); do
  r=0
  wait "${pids[$((k - 1))]}" || r=$?
  if [ "$r" != 0 ] && [ "$stopped" = 0 ]; then
    echo "multi_gpu.sh: process $k exited with $r; its stderr:" >&2
    tail -n 20 "$dir/pe$k.err" >&2 || true
    [ "$rc" = 0 ] && rc=$r
  fi
done
pids=()
exit "$rc"
