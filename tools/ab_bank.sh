#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tools/ab_bank.sh OUT.jsonl LABEL=STM_BENCH [LABEL=STM_BENCH ...] [-- EXTRA stm_bench ARGS]
#
# Side-by-side A/B of several stm_bench builds (or of one build under
# different extra arguments, by giving it twice with the same binary) on the
# bank's four anchor configurations: 2,621,440 and 4,096 accounts, at 6,720
# threads and at full occupancy, transfers only. Each figure is the median of
# 3 half-second timed runs after a warm-up. For every configuration and
# manager the builds run one after the other, their order reversed at every
# step, so that a drift of the GPU's clocks over the run does not favour one.
# Every JSON line gets a "variant" field with its LABEL.
#
# Environment: CMS (default "prstm backoff gpustm"), ACCOUNTS (default
# "2621440 4096"), THREADS (default "6720 full"), SECONDS_PER_RUN (0.5),
# BACKEND (gpu).
#
#   tools/ab_bank.sh results/experiments/bank_x_ab.jsonl before=old/stm_bench after=build/stm_bench
set -uo pipefail
out="${1:?usage: tools/ab_bank.sh OUT.jsonl LABEL=STM_BENCH ... [-- ARGS]}"
shift
labels=() bins=() extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --) shift; extra=("$@"); break ;;
    *=*) labels+=("${1%%=*}"); bins+=("${1#*=}") ;;
    *) echo "ab_bank.sh: expected LABEL=STM_BENCH, got '$1'" >&2; exit 2 ;;
  esac
  shift
done
[ ${#bins[@]} -ge 1 ] || { echo "ab_bank.sh: give at least one LABEL=STM_BENCH" >&2; exit 2; }
for b in "${bins[@]}"; do [ -x "$b" ] || { echo "ab_bank.sh: '$b' is not an executable" >&2; exit 2; }; done

tmp="$(mktemp)"
trap 'rm -f "$tmp"' EXIT
step=0
for acc in ${ACCOUNTS:-2621440 4096}; do
  for thr in ${THREADS:-6720 full}; do
    tpt=64; [ "$thr" = 6720 ] && tpt=1000
    for cm in ${CMS:-prstm backoff gpustm}; do
      order=$(seq 0 $(( ${#bins[@]} - 1 )))
      [ $(( step % 2 )) = 1 ] && order=$(echo "$order" | tac)
      step=$(( step + 1 ))
      for i in $order; do
        : > "$tmp"
        if "${bins[$i]}" --workload bank --backend "${BACKEND:-gpu}" --cm "$cm" --accounts "$acc" --threads "$thr" --tpt "$tpt" \
             --seconds "${SECONDS_PER_RUN:-0.5}" --semantic 0 --read-only 0 --hash 1 --repeat 3 --warmup 1 \
             --format json --out "$tmp" -q "${extra[@]}" >/dev/null; then
          python3 -c 'import json,sys
label=sys.argv[1]
for line in open(sys.argv[2]):
    if line.strip():
        d=json.loads(line); d["variant"]=label; print(json.dumps(d))' "${labels[$i]}" "$tmp" >> "$out"
          python3 -c 'import json,sys
d=json.loads(open(sys.argv[1]).readline())
tail = d["thread_time_p50"] / d["thread_time_max"] if d.get("thread_time_max") else 0
print("%12s %8s %8s %7s: %10.1f M tx/s, abort rate %.3f, thread time p50/max %.2f, attempt %.2f us, time in attempts %.0f%%, paused %.0f%%, verified %s" % (sys.argv[2], d["cm"], d["accounts"], d["threads"], d["throughput"]/1e6, d["abort_rate"], tail, d.get("attempt_time_mean_us", 0), 100 * d.get("time_in_attempts", 0), 100 * d.get("time_paused", 0), d["verified"]))' "$tmp" "${labels[$i]}"
        else
          echo "FAILED: ${labels[$i]} cm=$cm accounts=$acc threads=$thr" >&2
        fi
      done
    done
  done
done
