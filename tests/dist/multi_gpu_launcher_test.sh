#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tools/multi_gpu.sh without GPUs: bad input is one line and exit 2; every
# process gets its rank, the count, the unique-id file's name and NVLink
# multicast off; a failing process's exit code is the script's.
set -uo pipefail
root="$1"
launcher="$root/tools/multi_gpu.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }

for args in "0 true" "x true" "2" "2 /nonexistent-program" "10000 true"; do
  # shellcheck disable=SC2086
  err=$("$launcher" $args 2>&1 >/dev/null)
  rc=$?
  [ "$rc" = 2 ] || fail "'$args': exit $rc, expected 2"
  [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] || fail "'$args': more than one line: $err"
done

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$launcher" 3 bash -c 'echo "$PRSTM_PE_RANK $PRSTM_PE_COUNT $NVSHMEM_DISABLE_NVLS $NCCL_NVLS_ENABLE $PRSTM_UNIQUEID_FILE" > "'"$out"'/pe$PRSTM_PE_RANK"' \
  || fail "three processes of true: exit $?"
for k in 0 1 2; do
  [ -f "$out/pe$k" ] || fail "process $k did not run"
  read -r rank count nvls nccl uid < "$out/pe$k"
  [ "$rank" = "$k" ] && [ "$count" = 3 ] || fail "process $k: rank $rank of $count"
  [ "$nvls" = 1 ] && [ "$nccl" = 0 ] || fail "process $k: NVSHMEM_DISABLE_NVLS=$nvls NCCL_NVLS_ENABLE=$nccl"
  [ "$uid" = "$(cut -d' ' -f5 < "$out/pe0")" ] || fail "process $k: another unique-id file"
done
[ ! -e "$(dirname "$(cut -d' ' -f5 < "$out/pe0")")" ] || fail "the launcher's folder is left behind"

"$launcher" 2 bash -c '[ "$PRSTM_PE_RANK" = 1 ] && exit 5; exit 0' 2>/dev/null
rc=$?
[ "$rc" = 5 ] || fail "process 1 exited 5, the launcher $rc"
"$launcher" 2 bash -c 'exit 4' 2>/dev/null
rc=$?
[ "$rc" = 4 ] || fail "process 0 exited 4, the launcher $rc"
echo "multi_gpu.sh: ok"
