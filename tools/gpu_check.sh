#!/usr/bin/env bash
# tools/gpu_check.sh OUT_DIR [--quick] [--no-tests] [--no-bench] [--no-sanitizer] [--only=NAME]
#                            [--sanitize=NAME,...] [--deadline=SECONDS]
#   --only=NAME       only the suites (and sanitizer runs) whose name contains NAME
#   --sanitize=A,B    compute-sanitizer only on the GPU test programs whose name contains A or B
#   --deadline=S      start no suite later than S seconds after the script started
#
# On a machine with an NVIDIA GPU (H100/H200): build, run the whole test suite
# with the GPU instances live, run compute-sanitizer (memcheck, racecheck) on
# the GPU tests, then the benchmarks of tools/gpu_suites/*.sh. Writes:
#   OUT_DIR/gpu_check.log   everything printed
#   OUT_DIR/results.tgz     the JSON-lines result files (input of tools/bench_report.py)
#   OUT_DIR/summary.txt     the closing summary
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${1:?usage: tools/gpu_check.sh OUT_DIR [--quick] [--no-tests] [--no-bench] [--no-sanitizer] [--only=NAME]}"
shift
QUICK=0; BENCHMARKS=1; SANITIZE=1; TESTS=1; ONLY=""; SANITIZE_ONLY=""; DEADLINE=100000
for a in "$@"; do
  case "$a" in
    --quick) QUICK=1 ;;
    --no-bench) BENCHMARKS=0 ;;
    --no-sanitizer) SANITIZE=0 ;;
    --no-tests) TESTS=0; SANITIZE=0 ;;
    --only=*) ONLY="${a#--only=}" ;;
    --sanitize=*) SANITIZE_ONLY="${a#--sanitize=}" ;;
    --deadline=*) DEADLINE="${a#--deadline=}" ;;
    *) echo "gpu_check.sh: unknown option '$a'" >&2; exit 2 ;;
  esac
done
mkdir -p "$OUT"
RESULTS="$(mktemp -d)"
export QUICK RESULTS
exec > >(tee "$OUT/gpu_check.log") 2>&1
status=0
summary=()
note() { summary+=("$1"); echo "== $1"; }

[ -d /usr/local/cuda/bin ] && export PATH="/usr/local/cuda/bin:$PATH"
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,driver_version --format=csv || true
nvcc --version | tail -1

t0=$(date +%s)
if cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null &&
   cmake --build build-gpu -j "$(nproc)"; then
  note "build: ok ($(( $(date +%s) - t0 )) s)"
else
  note "build: FAILED"; echo "${summary[@]}" > "$OUT/summary.txt"; exit 1
fi
BENCH="$PWD/build-gpu/stm_bench"
export BENCH

if [ "$TESTS" = 1 ]; then
# GPU test programs one at a time (they share one device); each test is bounded
# by its ctest TIMEOUT so a hang names itself instead of eating the budget.
if timeout 420 ctest --test-dir build-gpu --output-on-failure -j 2 2>&1 | tee "$RESULTS/ctest.log"; [ "${PIPESTATUS[0]}" = 0 ]; then
  note "tests: $(grep -E 'tests passed|tests failed' "$RESULTS/ctest.log" | tail -1)"
else
  status=1
  note "tests: FAILED: $(grep -E 'tests passed|tests failed' "$RESULTS/ctest.log" | tail -1)"
fi
grep -E "Failed|\*\*\*" "$RESULTS/ctest.log" | head -40
grep -c "Skipped" "$RESULTS/ctest.log" | sed 's/^/skipped tests: /'
fi

if [ "$SANITIZE" = 1 ] && command -v compute-sanitizer >/dev/null; then
  for exe in $(find build-gpu/tests -type f -name '*_gpu' -perm -u+x | sort); do
    [ -n "$ONLY" ] && [[ "$exe" != *"$ONLY"* ]] && continue
    if [ -n "$SANITIZE_ONLY" ]; then
      keep=0
      for p in ${SANITIZE_ONLY//,/ }; do [[ "$(basename "$exe")" == *"$p"* ]] && keep=1; done
      [ "$keep" = 1 ] || continue
    fi
    for tool in memcheck racecheck; do
      # The full-occupancy repetitions take minutes under the sanitizer; the
      # same code paths run in the smaller tests.
      if timeout 180 compute-sanitizer --tool "$tool" --error-exitcode 99 --print-limit 20 "$exe" \
           --gtest_filter='-*FullOccupancy*:*Stress*:*Sweep*' > "$RESULTS/sanitizer_${tool}_$(basename "$exe").log" 2>&1; then
        note "compute-sanitizer $tool $(basename "$exe"): clean ($(grep -m1 -o 'ERROR SUMMARY: [0-9]* errors' "$RESULTS/sanitizer_${tool}_$(basename "$exe").log"))"
      else
        status=1
        note "compute-sanitizer $tool $(basename "$exe"): FAILED"
        tail -30 "$RESULTS/sanitizer_${tool}_$(basename "$exe").log"
      fi
    done
  done
fi

if [ "$BENCHMARKS" = 1 ]; then
  for suite in tools/gpu_suites/*.sh; do
    name="$(basename "$suite" .sh)"
    [ -n "$ONLY" ] && [[ "$name" != *"$ONLY"* ]] && continue
    t1=$(date +%s)
    left=$(( DEADLINE - (t1 - t0) ))
    if [ "$left" -le 10 ]; then note "suite $name: SKIPPED (deadline)"; continue; fi
    [ "$left" -gt 300 ] && left=300
    echo "== suite $name"
    # shellcheck disable=SC1090
    if timeout "$left" bash -c 'source "$1"' _ "$suite"; then note "suite $name: done ($(( $(date +%s) - t1 )) s)"
    else status=1; note "suite $name: FAILED or cut at its time limit ($(( $(date +%s) - t1 )) s)"; fi
    tar czf "$OUT/results.tgz" -C "$RESULTS" .  # what finished so far survives a cut
  done
fi

tar czf "$OUT/results.tgz" -C "$RESULTS" .
if command -v python3 >/dev/null; then python3 tools/bench_report.py --summary "$RESULTS" || true; fi
printf '%s\n' "${summary[@]}" | tee "$OUT/summary.txt"
exit $status
