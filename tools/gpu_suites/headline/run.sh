#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tools/gpu_suites/headline/run.sh [--quick] [--no-report] STM_BENCH OUT_DIR
#
# On an H100/H200: measure every headline row of BENCHMARKS.md at the current
# commit (suite.sh beside this script; about 6.5 minutes), then
#   1. write results/headline.jsonl, each row stamped with `commit` (the tree's,
#      "-dirty" when tracked files outside results/ differ from it; `device` and
#      `command` come from stm_bench), the previous one kept as
#      OUT_DIR/headline.previous.jsonl;
#   2. compare it with the previous headline run (tools/compare_results.py: every
#      row whose throughput moved by more than 10%), into OUT_DIR/compare.txt. With
#      no previous headline run, the rows of the per-suite files of results/ with
#      the same configuration stand in for it (the last measured of each);
#   3. redraw the figures (tools/plot_results.py, when matplotlib is installed:
#      tools/setup.sh --plot) and regenerate BENCHMARKS.md (tools/bench_report.py).
# --quick   one run per point, no warm-up: a smoke test of the commands; writes
#           OUT_DIR only (results/ and BENCHMARKS.md are left alone)
# --no-report  steps 1 and 2 only
# STM_BENCH: the built stm_bench (cmake --build build-gpu --target stm_bench).
# Environment: HEADLINE_LIMIT, seconds per stm_bench command (default 150);
# HEADLINE_BACKEND=cpu with --quick checks the commands on a machine without a GPU.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
QUICK=0; REPORT=1; args=()
for a in "$@"; do
  case "$a" in
    --quick) QUICK=1 ;;
    --no-report) REPORT=0 ;;
    -*) echo "headline/run.sh: unknown option '$a'" >&2; exit 2 ;;
    *) args+=("$a") ;;
  esac
done
[ "${#args[@]}" = 2 ] || { echo "usage: tools/gpu_suites/headline/run.sh [--quick] [--no-report] STM_BENCH OUT_DIR" >&2; exit 2; }
BENCH="${args[0]}"; OUT="${args[1]}"
[ -x "$BENCH" ] && [ -f "$BENCH" ] || { echo "headline/run.sh: '$BENCH' is not an executable file (build stm_bench first)" >&2; exit 2; }
case "${HEADLINE_BACKEND:-gpu}" in gpu) ;; cpu) [ "$QUICK" = 1 ] || { echo "headline/run.sh: HEADLINE_BACKEND=cpu is for --quick only (a CPU row is no headline)" >&2; exit 2; } ;;
  *) echo "headline/run.sh: HEADLINE_BACKEND is gpu or cpu, got '$HEADLINE_BACKEND'" >&2; exit 2 ;; esac
[ -z "${HEADLINE_LIMIT:-}" ] || [[ "$HEADLINE_LIMIT" =~ ^[1-9][0-9]*$ ]] || { echo "headline/run.sh: HEADLINE_LIMIT takes whole seconds, got '$HEADLINE_LIMIT'" >&2; exit 2; }
command -v python3 >/dev/null || { echo "headline/run.sh: python3 is needed to stamp and compare the rows" >&2; exit 2; }
BENCH="$(cd "$(dirname "$BENCH")" && pwd)/$(basename "$BENCH")"
mkdir -p "$OUT" || exit 2
OUT="$(cd "$OUT" && pwd)"

commit="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [ "$commit" != unknown ] && ! git -C "$root" diff --quiet HEAD -- . ':(exclude)results' ':(exclude)BENCHMARKS.md'; then
  commit="$commit-dirty"
fi
RESULTS="$OUT/raw"
rm -rf "$RESULTS" && mkdir -p "$RESULTS"
export BENCH RESULTS QUICK
echo "headline: commit $commit, stm_bench $BENCH, results in $OUT"
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,driver_version --format=csv,noheader 2>/dev/null || true
t0=$SECONDS
# In OUT_DIR, so that the list's seed files (relative paths in the recorded commands) land there.
(cd "$OUT" && source "$here/suite.sh") 2>&1 | tee "$OUT/headline.log"
echo "headline: measured in $((SECONDS - t0)) s"
[ -s "$RESULTS/headline.jsonl" ] || { echo "headline/run.sh: no row was written (see $OUT/headline.log)" >&2; exit 1; }

# Every row carries the commit it measured (stm_bench writes device and command).
python3 - "$RESULTS/headline.jsonl" "$OUT/headline.jsonl" "$commit" <<'PY' || exit 1
import json, sys
src, dst, commit = sys.argv[1:]
with open(src) as f, open(dst, "w") as out:
    for line in f:
        if line.strip():
            row = json.loads(line)
            row["commit"] = commit
            out.write(json.dumps(row) + "\n")
PY
failed=$(grep -c '^FAILED' "$OUT/headline.log" || true)
echo "headline: $(wc -l < "$OUT/headline.jsonl") rows, $failed commands failed or cut"

if [ "$QUICK" = 1 ]; then
  prev="$root/results/headline.jsonl"; [ -s "$prev" ] || prev="$root/results"
  python3 "$root/tools/compare_results.py" "$prev" "$OUT/headline.jsonl" | tee "$OUT/compare.txt"
  echo "headline: --quick: results/ and BENCHMARKS.md left as they were"
  exit 0
fi
if [ -s "$root/results/headline.jsonl" ]; then
  cp "$root/results/headline.jsonl" "$OUT/headline.previous.jsonl"
  prev="$OUT/headline.previous.jsonl"
else
  prev="$root/results"  # the first headline run: the per-suite files stand in for a previous one
fi
cp "$OUT/headline.jsonl" "$root/results/headline.jsonl"
python3 "$root/tools/compare_results.py" "$prev" "$root/results/headline.jsonl" | tee "$OUT/compare.txt"

[ "$REPORT" = 1 ] || exit 0
if python3 -c 'import matplotlib' 2>/dev/null; then
  python3 "$root/tools/plot_results.py" "$root/results" "$root/results/figures" || echo "headline/run.sh: plotting failed" >&2
else
  echo "headline: no matplotlib here: the figures were not redrawn (tools/setup.sh --plot, then tools/plot_results.py results/ results/figures/)"
fi
python3 "$root/tools/bench_report.py" "$root/results" > "$root/BENCHMARKS.md.new" && mv "$root/BENCHMARKS.md.new" "$root/BENCHMARKS.md" \
  && echo "headline: BENCHMARKS.md regenerated ($(wc -l < "$root/BENCHMARKS.md") lines)"
echo "headline: done in $((SECONDS - t0)) s"
