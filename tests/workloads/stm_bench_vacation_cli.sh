#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# stm_bench's vacation workload from the command line: bad input fails with one
# line on stderr and exit code 2 before any work; --impl all runs the STM and
# the native baseline in one run, every manager verifies, and the semantic
# pairs report postponed-then-committed bookings; --cm-backoff caps the native
# baseline's pause and is recorded in its row.
bench="$1"
source "$(dirname "$0")/cli_lib.sh"
small=(--workload vacation --backend cpu --relations 256 --customers 512 --threads 8 --tpt 16 --warmup 0)

bad --workload vacation --queries 0
bad --workload vacation --queries 17
bad --workload vacation --query-range 0
bad --workload vacation --user 101
bad --workload vacation --relations 0
bad --workload vacation --customers many
bad --workload vacation --list-cap 16
bad --workload vacation --spacing 6
bad --workload vacation --semantic 150
bad --workload vacation --read-only -1
bad --workload vacation --tpt 0
bad --workload vacation --max-postpones 0
bad --workload vacation --preset medium
bad --workload vacation --impl stm
bad --workload vacation --cm no_such_manager
bad --workload vacation --impl all --cm no_such_manager
bad --workload vacation --threads 0
bad --workload vacation --accounts 10
bad --workload vacation --semantic 50 --read-only 100
bad --workload vacation --sweep queries=2,99
bad --workload vacation --impl native --cm-wait 4      # the STM's only
bad --workload vacation --impl native --cm-backoff -1

for cm in prstm gpustm backoff delay; do
  if ! "$bench" "${small[@]}" --cm "$cm" --impl all --read-only 20 -q --format json >"$tmp/out" 2>"$tmp/err"; then
    echo "FAIL: --cm $cm --impl all"; cat "$tmp/out" "$tmp/err"; fail=1
  elif [ "$(grep -c '"verified": true' "$tmp/out")" != 2 ]; then
    echo "FAIL: --cm $cm --impl all did not give two verified results"; cat "$tmp/out"; fail=1
  else
    echo "ok: --cm $cm --impl all: tx and native verified"
  fi
done

# The native baseline's pause cap (--cm-backoff), verified and recorded in its row.
if ! "$bench" "${small[@]}" --impl native --cm-backoff 1000000 -q --format json >"$tmp/out" 2>"$tmp/err"; then
  echo "FAIL: --impl native --cm-backoff"; cat "$tmp/out" "$tmp/err"; fail=1
elif ! grep -q '"verified": true' "$tmp/out" || ! grep -q '"cm_backoff": 1000000' "$tmp/out"; then
  echo "FAIL: --impl native --cm-backoff 1000000 not verified or not recorded"; cat "$tmp/out"; fail=1
else
  echo "ok: --impl native --cm-backoff 1000000 verified and recorded"
fi

# The paper's preset (small launch): bookings of sold-out room types postponed, then committed.
if ! "$bench" --workload vacation --backend cpu --preset paper --threads 16 --tpt 32 --warmup 0 >"$tmp/out" 2>"$tmp/err"; then
  echo "FAIL: the paper preset failed"; cat "$tmp/out" "$tmp/err"; fail=1
elif ! grep -q "transactions postponed then committed" "$tmp/out"; then
  echo "FAIL: the paper preset does not report postponed transactions"; cat "$tmp/out"; fail=1
else
  echo "ok: $(grep -m1 'postponed then committed' "$tmp/out" | cut -c1-160)"
fi
for p in low high; do
  if ! "$bench" --workload vacation --backend cpu --threads 8 --tpt 16 --warmup 0 --preset $p --relations 4096 -q --format json >"$tmp/out" 2>"$tmp/err" \
     || ! grep -q '"verified": true' "$tmp/out"; then
    echo "FAIL: preset $p"; cat "$tmp/out" "$tmp/err"; fail=1
  else
    echo "ok: preset $p verified"
  fi
done
exit $fail
