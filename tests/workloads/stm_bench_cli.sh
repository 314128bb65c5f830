#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# stm_bench's bank workload from the command line: bad input fails with one
# line on stderr and exit code 2 before any work; the headline command runs,
# verifies and reports postponed-then-committed transactions.
bench="$1"
source "$(dirname "$0")/cli_lib.sh"

bad --workload bank --semantic 150
bad --workload bank --read-only -1
bad --workload bank --accounts 0
bad --workload bank --threads 0
bad --workload no_such_workload
bad --workload bank --cm no_such_manager
bad --workload bank --max-postpones 0
bad --workload bank --lock-spread 3
bad --workload bank --lock-spread 64
bad --workload bank --lock-spread many
bad --workload bank --sweep threads=8,0          # a bad point: refused before the first point runs
bad --workload bank --sweep semantic=0,150
bad --workload bank --driver tables
bad --workload bank --sweep driver=loop,while
bad --workload bank --read-all 1 --accounts 4096 --audit-size 1000  # does not divide the accounts
bad --workload bank --read-all 1 --audit-size 1024 --cm gpustm       # beyond gpustm's lock log
bad --workload bank --read-all 1 --semantic 10
bad --workload bank --read-all 120
bad --workload bank --read-all 1 --driver loop                       # audits: the table driver only
bad --workload bank --impl native --cm backoff                       # the baseline has no manager
bad --workload bank --impl native --driver loop
bad --workload bank --impl all --read-all 1                          # audits are not run natively
bad --workload bank --impl locks
bad --workload bank --pes 2 --impl native

# The headline command (CPU backend, a small bank): verified, postponements reported.
if ! "$bench" --workload bank --semantic 100 --backend cpu --accounts 4096 --threads 16 --tpt 32 --warmup 0 \
    >"$tmp/out" 2>"$tmp/err"; then
  echo "FAIL: the semantic 100 run failed"; cat "$tmp/out" "$tmp/err"; fail=1
elif ! grep -q "transactions postponed then committed" "$tmp/out"; then
  echo "FAIL: the semantic 100 run does not report postponed transactions"; cat "$tmp/out"; fail=1
else
  echo "ok: $(grep 'postponed then committed' "$tmp/out")"
fi

# A sweep writes one JSON object per point.
if ! "$bench" --workload bank --backend cpu --accounts 1024 --threads 8 --tpt 16 --warmup 0 -q \
    --sweep semantic=0,100 --sweep presort=false,true >"$tmp/out" 2>"$tmp/err"; then
  echo "FAIL: sweep failed"; cat "$tmp/err"; fail=1
elif [ "$(grep -c '^{"workload": "bank"' "$tmp/out")" != 4 ]; then
  echo "FAIL: sweep wrote $(wc -l <"$tmp/out") lines, expected 4 JSON objects"; cat "$tmp/out"; fail=1
else
  echo "ok: sweep wrote 4 JSON objects"
fi
# Every driver runs the same table and verifies; the JSON says which ran.
if ! "$bench" --workload bank --backend cpu --accounts 128 --threads 8 --tpt 16 --warmup 0 -q \
    --sweep driver=table,loop,for >"$tmp/out" 2>"$tmp/err"; then
  echo "FAIL: driver sweep failed"; cat "$tmp/out" "$tmp/err"; fail=1
elif [ "$(grep -c '"driver": "table"' "$tmp/out")" != 1 ] || [ "$(grep -c '"driver": "loop"' "$tmp/out")" != 1 ] ||
     [ "$(grep -c '"driver": "for"' "$tmp/out")" != 1 ] || [ "$(grep -c '"verified": true' "$tmp/out")" != 3 ]; then
  echo "FAIL: driver sweep did not report three verified drivers"; cat "$tmp/out"; fail=1
else
  echo "ok: drivers table, loop and for verified"
fi
# The native baseline beside the STM: two verified rows, the second impl native.
if ! "$bench" --workload bank --backend cpu --accounts 256 --threads 8 --tpt 32 --warmup 0 -q --format json \
    --impl all --semantic 20 >"$tmp/out" 2>"$tmp/err"; then
  echo "FAIL: --impl all failed"; cat "$tmp/out" "$tmp/err"; fail=1
elif [ "$(grep -c '"verified": true' "$tmp/out")" != 2 ] || [ "$(grep -c '"impl": "native"' "$tmp/out")" != 1 ]; then
  echo "FAIL: --impl all did not report a verified STM row and a verified native row"; cat "$tmp/out"; fail=1
else
  echo "ok: bank tx and native verified side by side"
fi
# Audits beside transfers (CPU backend): verified, audits counted.
if ! "$bench" --workload bank --backend cpu --accounts 4096 --threads 8 --tpt 64 --warmup 0 -q --format json \
    --read-all 10 --audit-size 1024 --opaque >"$tmp/out" 2>"$tmp/err"; then
  echo "FAIL: the read-all run failed"; cat "$tmp/out" "$tmp/err"; fail=1
elif ! grep -q '"wrong_totals": 0' "$tmp/out" || grep -q '"audits": 0,' "$tmp/out"; then
  echo "FAIL: the read-all run reports no audits or wrong totals"; cat "$tmp/out"; fail=1
else
  echo "ok: read-all audits verified"
fi
exit $fail
