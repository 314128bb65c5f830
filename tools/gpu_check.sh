#!/usr/bin/env bash
# tools/gpu_check.sh OUT_DIR [--quick] [--no-tests] [--no-bench] [--no-sanitizer] [--cpu-tests] [--only=NAME]
#                            [--skip=NAME,...] [--sanitize=NAME,...] [--deadline=SECONDS] [--prebuilt=DIR]
#                            [--suite-limit=SECONDS]
#   --cpu-tests       run the CPU test programs too (by default only the *_gpu programs run here:
#                     the CPU ones are what CI runs on every machine)
#   --only=A,B        only the suites whose name contains A or B
#   --skip=A,B        no suite whose name contains A or B
#   --sanitize=A,B    compute-sanitizer only on the GPU test programs whose name contains A or B
#   --deadline=S      start no suite later than S seconds after the script started
#   --suite-limit=S   cut a suite after S seconds (default 300)
#   --prebuilt=DIR    use stm_bench and the test programs already built into DIR (DIR/stm_bench,
#                     DIR/tests/*): falls back to building here when they do not run on this machine
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
QUICK=0; CPU_TESTS=0; BENCHMARKS=1; SANITIZE=1; TESTS=1; ONLY=""; SKIP=""; SANITIZE_ONLY=""; DEADLINE=100000; PREBUILT=""; SUITE_LIMIT=300
for a in "$@"; do
  case "$a" in
    --quick) QUICK=1 ;;
    --no-bench) BENCHMARKS=0 ;;
    --no-sanitizer) SANITIZE=0 ;;
    --cpu-tests) CPU_TESTS=1 ;;
    --no-tests) TESTS=0; SANITIZE=0 ;;
    --only=*) ONLY="${a#--only=}" ;;
    --sanitize=*) SANITIZE_ONLY="${a#--sanitize=}" ;;
    --deadline=*) DEADLINE="${a#--deadline=}" ;;
    --prebuilt=*) PREBUILT="${a#--prebuilt=}" ;;
    --skip=*) SKIP="${a#--skip=}" ;;
    --suite-limit=*) SUITE_LIMIT="${a#--suite-limit=}" ;;
    *) echo "gpu_check.sh: unknown option '$a'" >&2; exit 2 ;;
  esac
done
[[ "$SUITE_LIMIT" =~ ^[0-9]+$ ]] || { echo "gpu_check.sh: --suite-limit takes whole seconds, got '$SUITE_LIMIT'" >&2; exit 2; }
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
BIN=""
if [ -n "$PREBUILT" ] && "$PREBUILT/stm_bench" --list >/dev/null 2>&1; then
  BIN="$PREBUILT"; note "build: using the programs prebuilt in $PREBUILT"
elif cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null &&
     cmake --build build-gpu -j "$(nproc)"; then
  note "build: ok ($(( $(date +%s) - t0 )) s)"
else
  note "build: FAILED"; printf '%s\n' "${summary[@]}" > "$OUT/summary.txt"; exit 1
fi
BENCH="${BIN:-$PWD/build-gpu}/stm_bench"
export BENCH

# compute-sanitizer on one GPU test program; the full-occupancy repetitions take
# minutes under it, and the same code paths run in the smaller tests, whose
# launches shrink under STM_TEST_REDUCED (tests/support/backends.hpp).
sanitize() {
  local exe="$1" tool="$2" log="$RESULTS/sanitizer_${2}_$(basename "$1").log"
  STM_TEST_REDUCED=1 timeout 150 compute-sanitizer --tool "$tool" --error-exitcode 99 --print-limit 20 "$exe" \
    --gtest_filter='-*FullOccupancy*:*Stress*:*Sweep*' > "$log" 2>&1
  case $? in
    0) echo "compute-sanitizer $tool $(basename "$exe"): clean ($(grep -m1 -o 'ERROR SUMMARY: [0-9]* errors' "$log"))" ;;
    124) echo "compute-sanitizer $tool $(basename "$exe"): NOT FINISHED in 150 s ($(grep -c '^\[       OK' "$log") tests passed under it, errors so far: $(grep -c '^========= Invalid\|^========= Race\|hazard' "$log"))" ;;
    *) echo "compute-sanitizer $tool $(basename "$exe"): FAILED"; tail -30 "$log" ;;
  esac
}
sanitized() {  # is this program selected for the sanitizer?
  local exe="$1"
  if [ -n "$SANITIZE_ONLY" ]; then
    for p in ${SANITIZE_ONLY//,/ }; do [[ "$(basename "$exe")" == *"$p"* ]] && return 0; done
    return 1
  fi
  return 0
}

if [ "$TESTS" = 1 ]; then
  exes=$(find "${BIN:-build-gpu}/tests" -type f -perm -u+x ! -name '*.sh' ! -path '*CMakeFiles*' | sort)
  gpu_exes=$(printf '%s\n' $exes | grep '_gpu$')
  [ "$CPU_TESTS" = 1 ] || exes="$gpu_exes"
  # The sanitizers run alongside the tests: they check, they time nothing.
  : > "$RESULTS/sanitizer.txt"
  if [ "$SANITIZE" = 1 ] && command -v compute-sanitizer >/dev/null; then
    # The whole sanitizer phase is bounded too; a program it did not reach is reported.
    ( export -f sanitize sanitized; export RESULTS SANITIZE_ONLY
      timeout 300 bash -c 'for exe in $1; do sanitized "$exe" || continue
        for tool in memcheck racecheck; do sanitize "$exe" $tool; done; done' _ "$gpu_exes" > "$RESULTS/sanitizer.txt" 2>&1
      [ $? = 124 ] && echo "compute-sanitizer: phase cut at 300 s; see the lines above for what ran" >> "$RESULTS/sanitizer.txt" ) &
    sanitizer_pid=$!
  fi
  # Every test program, three at a time, each bounded (300 s); each writes its own log.
  : > "$RESULTS/test_status.txt"
  printf '%s\n' $exes | xargs -P 3 -I{} bash -c \
    'log="$2/test_$(basename "$1").log"; timeout 300 "$1" > "$log" 2>&1; echo "$? $(basename "$1")" >> "$2/test_status.txt"' \
    _ {} "$RESULTS"
  failed=$(awk '$1 != 0 {print $2 " (exit " $1 ")"}' "$RESULTS/test_status.txt")
  passed=$(cat "$RESULTS"/test_*.log | grep -c '^\[       OK \]')
  skipped=$(cat "$RESULTS"/test_*.log | grep -c '^\[  SKIPPED \] .*(')  # the test lines, not gtest's summary
  nfailed=$(cat "$RESULTS"/test_*.log | grep -c '^\[  FAILED  \] .*(')
  if [ -z "$failed" ]; then
    note "tests: all $(wc -l < "$RESULTS/test_status.txt") programs passed: $passed tests passed, $skipped skipped"
  else
    status=1
    note "tests: FAILED programs: $(echo $failed) ($passed passed, $nfailed failed, $skipped skipped)"
    grep -h -A12 'Failure$\|^\[  FAILED  \] .*(' "$RESULTS"/test_*.log | head -100
  fi
  if [ -n "${sanitizer_pid:-}" ]; then
    wait "$sanitizer_pid"
    while read -r line; do case "$line" in compute-sanitizer*) note "$line" ;; esac; done < "$RESULTS/sanitizer.txt"
    grep -q "FAILED\|NOT FINISHED" "$RESULTS/sanitizer.txt" && status=1
  fi
  tar czf "$OUT/results.tgz" -C "$RESULTS" .
fi

if [ "$BENCHMARKS" = 1 ]; then
  for suite in tools/gpu_suites/*.sh; do
    name="$(basename "$suite" .sh)"
    if [ -n "$ONLY" ]; then
      hit=0; for p in ${ONLY//,/ }; do [[ "$name" == *"$p"* ]] && hit=1; done
      [ "$hit" = 1 ] || continue
    fi
    skip=0; for p in ${SKIP//,/ }; do [[ "$name" == *"$p"* ]] && skip=1; done
    [ "$skip" = 1 ] && continue
    t1=$(date +%s)
    left=$(( DEADLINE - (t1 - t0) ))
    if [ "$left" -le 10 ]; then note "suite $name: SKIPPED (deadline)"; continue; fi
    [ "$left" -gt "$SUITE_LIMIT" ] && left=$SUITE_LIMIT
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
