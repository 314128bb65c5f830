#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Shared by the stm_bench command-line tests (sourced, after `bench=$1`):
#   bad ARGS...   stm_bench --backend cpu $PREFIX ARGS must fail before any work:
#                 exit code 2, one line on stderr, nothing on stdout
#   good ARGS...  stm_bench --backend cpu --warmup 0 -q --format json $PREFIX ARGS
#                 must succeed with every result verified
# Both set fail=1 on a failure and print one line either way; a script ends
# with `exit $fail`. PREFIX (an array, empty unless the script sets it) goes
# before the arguments: the workload, for a script that tests one.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
PREFIX=()

bad() {
  "$bench" --backend cpu "${PREFIX[@]}" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$? lines
  lines=$(wc -l <"$tmp/err")
  if [ "$rc" != 2 ] || [ "$lines" != 1 ] || [ -s "$tmp/out" ]; then
    echo "FAIL: stm_bench ${PREFIX[*]} $* -> exit $rc, $lines stderr line(s), stdout $(wc -c <"$tmp/out") bytes"
    cat "$tmp/err"
    fail=1
  else
    echo "ok: stm_bench ${PREFIX[*]} $* -> $(cat "$tmp/err")"
  fi
}

good() {
  if ! "$bench" --backend cpu --warmup 0 -q --format json "${PREFIX[@]}" "$@" >"$tmp/out" 2>"$tmp/err"; then
    echo "FAIL: stm_bench ${PREFIX[*]} $* failed"; cat "$tmp/out" "$tmp/err"; fail=1
  elif grep -q '"verified": false' "$tmp/out" || ! grep -q '"verified": true' "$tmp/out"; then
    echo "FAIL: stm_bench ${PREFIX[*]} $* did not verify"; cat "$tmp/out"; fail=1
  else
    echo "ok: stm_bench ${PREFIX[*]} $* -> $(grep -c '"verified": true' "$tmp/out") verified result(s)"
  fi
}
