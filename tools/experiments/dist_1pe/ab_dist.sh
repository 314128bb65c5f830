#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tools/experiments/dist_1pe/ab_dist.sh OUT.jsonl LABEL=STM_BENCH [LABEL=STM_BENCH ...]
#
# Like-for-like A/B of the 1-PE partitioned bank against the plain bank:
# both in drain mode (one launch of threads x 64 transfers; --pes has no
# timed mode), full occupancy, transfers only, --hash 1, lock spread auto for
# both, median of 3 after a warm-up. For each account count every binary runs
# the plain bank (a control: no patch here touches it) and --pes 1, the
# binaries' order reversed at every step. Rows get "variant" (the LABEL) and
# "ab_mode" ("plain" or "pes1"); the summary gives pes1 / plain per binary and
# pes1 against the first binary's.
# Environment: ACCOUNTS (default "2621440 4096 10485760"), THREADS (full), BACKEND (gpu).
set -uo pipefail
out="${1:?usage: ab_dist.sh OUT.jsonl LABEL=STM_BENCH ...}"
shift
labels=() bins=()
for a in "$@"; do labels+=("${a%%=*}"); bins+=("${a#*=}"); done
[ ${#bins[@]} -ge 1 ] || { echo "ab_dist.sh: give at least one LABEL=STM_BENCH" >&2; exit 2; }
tmp="$(mktemp)"
trap 'rm -f "$tmp"' EXIT
step=0
for acc in ${ACCOUNTS:-2621440 4096 10485760}; do
  for mode in plain pes1; do
    order=$(seq 0 $(( ${#bins[@]} - 1 )))
    [ $(( step % 2 )) = 1 ] && order=$(echo "$order" | tac)
    step=$(( step + 1 ))
    for i in $order; do
      args=(--backend "${BACKEND:-gpu}" --workload bank --accounts "$acc" --threads "${THREADS:-full}" --tpt 64 --hash 1
            --repeat 3 --warmup 1 --format json --out "$tmp" -q)
      if [ "$mode" = plain ]; then args+=(--cm prstm --semantic 0 --read-only 0); else args+=(--pes 1); fi
      : > "$tmp"
      if ! "${bins[$i]}" "${args[@]}" >/dev/null; then echo "FAILED: ${labels[$i]} $mode $acc" >&2; continue; fi
      python3 -c 'import json,sys
for line in open(sys.argv[1]):
    if line.strip():
        d=json.loads(line); d["variant"]=sys.argv[2]; d["ab_mode"]=sys.argv[3]; print(json.dumps(d))' "$tmp" "${labels[$i]}" "$mode" >> "$out"
    done
  done
done
python3 - "$out" "${labels[0]}" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
base = sys.argv[2]
by = {}
for r in rows:
    by[(r["accounts"], r["variant"], r["ab_mode"])] = r
for acc in sorted({k[0] for k in by}, reverse=True):
    b = by.get((acc, base, "pes1"))
    for v in dict.fromkeys(k[1] for k in by if k[0] == acc):
        p, q = by.get((acc, v, "pes1")), by.get((acc, v, "plain"))
        if not p or not q: continue
        print("%9d %-10s plain %7.3f G  pes1 %7.3f G  pes1/plain %.2f  pes1 x %s %.2f  aborts/commit %.3f (plain %.3f)  verified %s/%s  %s" % (
            acc, v, q["throughput"]/1e9, p["throughput"]/1e9, p["throughput"]/q["throughput"], base,
            p["throughput"]/b["throughput"] if b else 0, p["retries_per_commit"], q["retries_per_commit"],
            p["verified"], q["verified"], p.get("device", "")))
PY
