#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# stm_bench's skiplist workload from the command line: bad input fails with one
# line on stderr and exit code 2 before any work; --impl all runs both
# variants, verified, side by side.
bench="$1"
source "$(dirname "$0")/cli_lib.sh"
PREFIX=(--workload skiplist)

bad --levels 0
bad --tpt 4   # an option of the array, bank and vacation only
bad --levels 17
bad --keys 0
bad --range 10
bad --mix 50/40/0
bad --mix 50/50
bad --read-only 150
bad --pool 10
bad --pool 0
bad --impl harris
bad --impl tx-full
bad --impl native --hash 4
bad --cm no_such_manager
bad --ops 0
bad --map=maybe
bad --one-shot fast
bad --impl native --one-shot tx

if ! "$bench" --workload skiplist --backend cpu --impl all --keys 1000 --ops 20000 --threads 8 --mix 40/40/20 \
    --warmup 0 >"$tmp/out" 2>"$tmp/err"; then
  echo "FAIL: the --impl all run failed"; cat "$tmp/out" "$tmp/err"; fail=1
elif [ "$(grep -c '^skiplist  *\(prstm\|native\) .* true$' "$tmp/out")" != 2 ]; then
  echo "FAIL: expected a verified tx row and a verified native row"; cat "$tmp/out"; fail=1
else
  echo "ok: --impl all printed both variants, verified"
fi
if ! "$bench" --workload skiplist --backend cpu --impl all --map --keys 1000 --ops 20000 --threads 8 --mix 30/20/50 \
    --warmup 0 >"$tmp/out" 2>"$tmp/err"; then
  echo "FAIL: the --map run failed"; cat "$tmp/out" "$tmp/err"; fail=1
elif [ "$(grep -c '^skiplist  *\(prstm\|native\) .* true$' "$tmp/out")" != 2 ]; then
  echo "FAIL: expected a verified tx map row and a verified native map row"; cat "$tmp/out"; fail=1
else
  echo "ok: --map (put / erase / get) verified on both variants"
fi
if ! "$bench" --workload skiplist --backend cpu --impl tx --cm prstm --priority aging --keys 1000 --ops 5000 --threads 8 \
    --warmup 0 --format json >"$tmp/out" 2>"$tmp/err"; then
  echo "FAIL: the --priority aging run failed"; cat "$tmp/out" "$tmp/err"; fail=1
elif ! grep -q '"priority": "aging".*"verified": true' "$tmp/out"; then
  echo "FAIL: expected a verified row under the aging priority"; cat "$tmp/out"; fail=1
else
  echo "ok: --priority aging (prstm) verified"
fi
for mode in direct direct-search precheck tx; do
  if ! "$bench" --workload skiplist --backend cpu --impl tx --one-shot "$mode" --keys 1000 --ops 20000 --threads 8 \
      --mix 40/40/20 --warmup 0 --format json >"$tmp/out" 2>"$tmp/err"; then
    echo "FAIL: the --one-shot $mode run failed"; cat "$tmp/out" "$tmp/err"; fail=1
  elif ! grep -q "\"one_shot\": \"$mode\".*\"verified\": true" "$tmp/out"; then
    echo "FAIL: expected a verified row with one_shot $mode"; cat "$tmp/out"; fail=1
  else
    echo "ok: --one-shot $mode verified"
  fi
done
exit $fail
