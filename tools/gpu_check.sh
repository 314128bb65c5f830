#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tools/gpu_check.sh OUT_DIR [--quick] [--no-tests] [--no-bench] [--no-sanitizer] [--cpu-tests] [--only=NAME]
#                            [--skip=NAME,...] [--sanitize=NAME,...] [--tools=T,...] [--deadline=SECONDS]
#                            [--prebuilt=DIR] [--suite-limit=SECONDS] [--test-limit=SECONDS]
#                            [--sanitizer-limit=SECONDS] [--sanitizer-jobs=N]
#                            [--perturb] [--perturb-rate=R] [--perturb-seed=S] [--lin-histories=N]
#                            [--lin-batch=N] [--perturb-only=A,B] [--tests=A,B] [--test-jobs=N]
#                            [--sanitizer-only] [--sanitizer-shards=N] [--no-examples]
#   --no-examples     do not build and run examples/ (by default, unless --no-tests or
#                     --sanitizer-only: the package installed into a temporary prefix, each
#                     example built with find_package and -DWITH_CUDA=ON for sm_90, and run)
#   --cpu-tests       run the CPU test programs too (by default only the *_gpu programs run here:
#                     the CPU ones are what CI runs on every machine)
#   --only=A,B        only the suites whose name contains A or B
#   --tests=A,B       only the test programs whose name contains A or B (the sanitizers too)
#   --test-jobs=N     test programs at once (default 2). The tests with wall-clock bounds (the
#                     no-livelock tests) assume a GPU of their own: beside many other processes
#                     the GPU time-slices and they fail for want of time, not of progress
#   --skip=A,B        no suite whose name contains A or B
#   --sanitize=A,B    compute-sanitizer only on the GPU test programs whose name contains A or B
#   --tools=T,...     compute-sanitizer tools (default memcheck,racecheck,synccheck,initcheck)
#   --sanitizer-limit=S  cut one program under one tool after S seconds (default 600)
#   --sanitizer-jobs=N   programs under the sanitizer at once (default 4); the sanitizers run
#                     after the tests, never beside them
#   --sanitizer-shards=N  each program's tests split over N processes under one tool
#                     (GoogleTest sharding, default 1): the longest test, not the sum, bounds it.
#                     On a machine of several GPUs the shards and programs are spread over
#                     them (each process sees one, CUDA_VISIBLE_DEVICES); the GPUs are those of
#                     CUDA_VISIBLE_DEVICES when it is set, else every one nvidia-smi lists
#   --sanitizer-only  the GPU test programs under compute-sanitizer only, not run plainly first
#                     (the plain run is the one to time; a sanitizer run only checks)
#   --deadline=S      start no suite later than S seconds after the script started
#   --suite-limit=S   cut a suite after S seconds (default 300)
#   --test-limit=S    cut a test program after S seconds (default 300; raise it with --lin-histories)
#   --prebuilt=DIR    use stm_bench and the test programs already built into DIR (DIR/stm_bench,
#                     DIR/tests/*): falls back to building here when they do not run on this machine
#   --perturb         also build the schedule-perturbation programs (-DPRSTM_PERTURB=ON: the
#                     linearizability, container, bank, STM core, history and compose tests, in
#                     build-gpu-perturb) and run them with STM_PERTURB_RATE (--perturb-rate, default
#                     0.05) and STM_PERTURB_SEED (--perturb-seed, default 1), each cut after twice
#                     --test-limit (every atomic delays: the skiplist's composed tests alone take
#                     minutes, results/experiments/LOG.md); with --no-tests and --no-bench only these are built
#   --lin-histories=N every linearizability test that counts its histories checks N of them
#                     (STM_LIN_HISTORIES), in the plain and the perturbed runs. The GPU tests record
#                     many independent histories per launch (tests/support/lincheck.hpp, batches)
#                     and check them on every core; 100000 takes tens of seconds per container
#   --perturb-only=A,B  build and run only the perturbed programs whose name contains A or B
#                     (--perturb-only=lin,queue: the programs with linearizability tests)
#   --lin-batch=N     histories per launch of those tests (STM_LIN_BATCH; default up to 1024 on
#                     the GPU, see the tests)
#
# On a machine with an NVIDIA GPU (H100/H200): build, run the whole test suite
# with the GPU instances live, run compute-sanitizer (memcheck, racecheck,
# synccheck, initcheck) on the GPU tests, then the benchmarks of
# tools/gpu_suites/*.sh. Writes:
#   OUT_DIR/gpu_check.log   everything printed
#   OUT_DIR/results.tgz     the JSON-lines result files (input of tools/bench_report.py), with
#                           reliability.jsonl: histories checked per container, backend and mode
#                           (tools/reliability_rows.py; merge it into results/reliability.jsonl)
#   OUT_DIR/summary.txt     the closing summary: per sanitized program and tool, the tests run
#                           and the errors found
#   OUT_DIR/lin_dumps/      every undecided or violating linearizability history, one file
#                           each (STM_LIN_DUMP_DIR; re-check on a CPU with STM_LIN_RECHECK)
# Environment: COMPUTE_SANITIZER, the sanitizer to run (default compute-sanitizer on the PATH);
# CUDA_VISIBLE_DEVICES, the GPUs the sanitizer processes are spread over.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${1:?usage: tools/gpu_check.sh OUT_DIR [--quick] [--no-tests] [--no-bench] [--no-sanitizer] [--only=NAME]}"
shift
QUICK=0; CPU_TESTS=0; BENCHMARKS=1; SANITIZE=1; TESTS=1; ONLY=""; SKIP=""; SANITIZE_ONLY=""; DEADLINE=100000; PREBUILT=""; SUITE_LIMIT=300
TOOLS="memcheck,racecheck,synccheck,initcheck"; SANITIZER_LIMIT=600; SANITIZER_JOBS=4; TEST_LIMIT=300
PERTURB=0; PERTURB_RATE=0.05; PERTURB_SEED=1; LIN_HISTORIES=""; LIN_BATCH=""; PERTURB_ONLY=""
TESTS_ONLY=""; TEST_JOBS=2; SANITIZER_ONLY=0; SANITIZER_SHARDS=1; EXAMPLES=1
for a in "$@"; do
  case "$a" in
    --tools=*) TOOLS="${a#--tools=}" ;;
    --sanitizer-limit=*) SANITIZER_LIMIT="${a#--sanitizer-limit=}" ;;
    --sanitizer-jobs=*) SANITIZER_JOBS="${a#--sanitizer-jobs=}" ;;
    --test-limit=*) TEST_LIMIT="${a#--test-limit=}" ;;
    --test-jobs=*) TEST_JOBS="${a#--test-jobs=}" ;;
    --tests=*) TESTS_ONLY="${a#--tests=}" ;;
    --perturb) PERTURB=1 ;;
    --perturb-rate=*) PERTURB=1; PERTURB_RATE="${a#--perturb-rate=}" ;;
    --perturb-seed=*) PERTURB=1; PERTURB_SEED="${a#--perturb-seed=}" ;;
    --perturb-only=*) PERTURB=1; PERTURB_ONLY="${a#--perturb-only=}" ;;
    --lin-histories=*) LIN_HISTORIES="${a#--lin-histories=}" ;;
    --lin-batch=*) LIN_BATCH="${a#--lin-batch=}" ;;
    --quick) QUICK=1 ;;
    --no-bench) BENCHMARKS=0 ;;
    --no-sanitizer) SANITIZE=0 ;;
    --sanitizer-only) SANITIZER_ONLY=1; EXAMPLES=0 ;;
    --sanitizer-shards=*) SANITIZER_SHARDS="${a#--sanitizer-shards=}" ;;
    --cpu-tests) CPU_TESTS=1 ;;
    --no-examples) EXAMPLES=0 ;;
    --no-tests) TESTS=0; SANITIZE=0; EXAMPLES=0 ;;
    --only=*) ONLY="${a#--only=}" ;;
    --sanitize=*) SANITIZE_ONLY="${a#--sanitize=}" ;;
    --deadline=*) DEADLINE="${a#--deadline=}" ;;
    --prebuilt=*) PREBUILT="${a#--prebuilt=}" ;;
    --skip=*) SKIP="${a#--skip=}" ;;
    --suite-limit=*) SUITE_LIMIT="${a#--suite-limit=}" ;;
    *) echo "gpu_check.sh: unknown option '$a'" >&2; exit 2 ;;
  esac
done
for v in SUITE_LIMIT SANITIZER_LIMIT SANITIZER_JOBS SANITIZER_SHARDS TEST_LIMIT TEST_JOBS; do
  [[ "${!v}" =~ ^[0-9]+$ ]] || { echo "gpu_check.sh: --$(echo "$v" | tr 'A-Z_' 'a-z-') takes a whole number, got '${!v}'" >&2; exit 2; }
done
[ "$TEST_JOBS" -ge 1 ] && [ "$SANITIZER_JOBS" -ge 1 ] && [ "$SANITIZER_SHARDS" -ge 1 ] || { echo "gpu_check.sh: --test-jobs, --sanitizer-jobs and --sanitizer-shards take at least 1" >&2; exit 2; }
[ -z "$LIN_HISTORIES" ] || [[ "$LIN_HISTORIES" =~ ^[1-9][0-9]{0,7}$ ]] || { echo "gpu_check.sh: --lin-histories takes a positive count below 10^8, got '$LIN_HISTORIES'" >&2; exit 2; }
[ -z "$LIN_BATCH" ] || { [[ "$LIN_BATCH" =~ ^[1-9][0-9]{0,4}$ ]] && [ "$LIN_BATCH" -le 65536 ]; } || { echo "gpu_check.sh: --lin-batch takes a count from 1 to 65536, got '$LIN_BATCH'" >&2; exit 2; }
[[ "$PERTURB_RATE" =~ ^(0|1|0?\.[0-9]+|1\.0*)$ ]] || { echo "gpu_check.sh: --perturb-rate takes a probability in [0, 1], got '$PERTURB_RATE'" >&2; exit 2; }
[[ "$PERTURB_SEED" =~ ^[0-9]+$ ]] || { echo "gpu_check.sh: --perturb-seed takes a whole number, got '$PERTURB_SEED'" >&2; exit 2; }
for t in ${TOOLS//,/ }; do
  case "$t" in memcheck|racecheck|synccheck|initcheck) ;; *) echo "gpu_check.sh: unknown compute-sanitizer tool '$t' (known: memcheck, racecheck, synccheck, initcheck)" >&2; exit 2 ;; esac
done
# The perturbed programs: the GPU twins of tools/check.sh's perturbed CPU programs (every
# linearizability test program, the containers', bank, STM core, contention manager, history and
# compose tests).
ptargets="list_lin_tests_gpu list_tests_gpu skiplist_lin_tests_gpu skiplist_tests_gpu stack_lin_tests_gpu stack_tests_gpu"
ptargets="$ptargets queue_tests_gpu compose_tests_gpu bank_tests_gpu core_tests_gpu cmp_tests_gpu history_tests_gpu long_tx_tests_gpu"
if [ -n "$PERTURB_ONLY" ]; then
  kept=""; for t in $ptargets; do for p in ${PERTURB_ONLY//,/ }; do [[ "$t" == *"$p"* ]] && { kept="$kept $t"; break; }; done; done
  [ -n "$kept" ] || { echo "gpu_check.sh: --perturb-only '$PERTURB_ONLY' matches no perturbed program (known: $ptargets)" >&2; exit 2; }
  ptargets="${kept# }"
fi
[ -n "$LIN_HISTORIES" ] && export STM_LIN_HISTORIES="$LIN_HISTORIES"
[ -n "$LIN_BATCH" ] && export STM_LIN_BATCH="$LIN_BATCH"
mkdir -p "$OUT"
export STM_LIN_DUMP_DIR="${STM_LIN_DUMP_DIR:-$(cd "$OUT" && pwd)/lin_dumps}"  # absolute: tests run elsewhere
mkdir -p "$STM_LIN_DUMP_DIR"
RESULTS="$(mktemp -d)"
export QUICK RESULTS
exec > >(tee "$OUT/gpu_check.log") 2>&1
status=0
summary=()
note() { summary+=("$1"); echo "== $1"; }

[ -d /usr/local/cuda/bin ] && export PATH="/usr/local/cuda/bin:$PATH"
COMPUTE_SANITIZER="${COMPUTE_SANITIZER:-compute-sanitizer}"  # another toolkit's, or a stand-in (tests/tools)
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,driver_version --format=csv || true
nvcc --version | tail -1

t0=$(date +%s)
BIN=""
if [ "$TESTS" = 0 ] && [ "$BENCHMARKS" = 0 ]; then
  note "build: only the perturbed programs (no tests, no benchmarks asked)"
elif [ -n "$PREBUILT" ] && "$PREBUILT/stm_bench" --list >/dev/null 2>&1; then
  BIN="$PREBUILT"; note "build: using the programs prebuilt in $PREBUILT"
elif cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null &&
     cmake --build build-gpu -j "$(nproc)"; then
  note "build: ok ($(( $(date +%s) - t0 )) s)"
else
  note "build: FAILED"; printf '%s\n' "${summary[@]}" > "$OUT/summary.txt"; exit 1
fi
BENCH="${BIN:-$PWD/build-gpu}/stm_bench"
export BENCH

# The examples as a user builds them: the package installed into a temporary
# prefix (headers only: nothing to compile), each example of examples/ its own
# project that finds it, compiled as CUDA for sm_90 (five builds at once), then
# run one after the other on the GPU; each exits non-zero when its check fails.
if [ "$EXAMPLES" = 1 ]; then
  t1=$(date +%s); ex="$(mktemp -d)"; failed_ex=""
  if cmake -S . -B "$ex/package" -G Ninja -DPRSTM_BUILD_TOOLS=OFF -DPRSTM_BUILD_TESTS=OFF -DPRSTM_ENABLE_CUDA=OFF >/dev/null &&
     cmake --install "$ex/package" --prefix "$ex/prefix" >/dev/null; then
    for dir in examples/*/; do
      name="$(basename "$dir")"
      ( cmake -S "$dir" -B "$ex/$name" -G Ninja -DCMAKE_PREFIX_PATH="$ex/prefix" -DWITH_CUDA=ON \
          -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release && cmake --build "$ex/$name" ) > "$ex/$name.build.log" 2>&1 &
    done
    wait
    for dir in examples/*/; do
      name="$(basename "$dir")"
      if [ ! -x "$ex/$name/$name" ]; then
        failed_ex="$failed_ex $name(build)"; tail -20 "$ex/$name.build.log"
      elif ! timeout 300 "$ex/$name/$name"; then
        failed_ex="$failed_ex $name"
      fi
    done
  else
    failed_ex=" (install)"
  fi
  if [ -z "$failed_ex" ]; then note "examples: all built with find_package (sm_90) and passed on the GPU ($(( $(date +%s) - t1 )) s)"
  else status=1; note "examples: FAILED:$failed_ex"; fi
fi

# compute-sanitizer: one GPU test program under one tool. The full-occupancy
# repetitions take minutes under it, and the same code paths run in the smaller
# tests, whose launches shrink under STM_TEST_REDUCED (tests/support/backends.hpp).
# Prints one line: tool, program, tests run, errors (racecheck: also hazards).
# The linearizability tests check their default counts here, whatever --lin-histories says.
sanitize() {
  local exe="$1" tool="$2" log="$RESULTS/sanitizer_${2}_$(basename "$1").log" t0 rc=0 i pids=()
  t0=$(date +%s)
  # SANITIZER_SHARDS processes share the program's tests (GoogleTest's sharding): the
  # sanitizers' host-side work runs on as many cores, and the longest test bounds the run.
  local pair="${3:-0}" gpus=(${SANITIZER_GPUS//,/ }) dev=()
  for ((i = 0; i < SANITIZER_SHARDS; i++)); do
    # shard i of the pair-th program/tool pair: the next GPU in turn, so that the pairs'
    # shards spread evenly (GPUs time-slice between processes; each more card adds its time)
    [ "${#gpus[@]}" -gt 1 ] && dev=(CUDA_VISIBLE_DEVICES="${gpus[$(( (pair * SANITIZER_SHARDS + i) % ${#gpus[@]} ))]}")
    env -u STM_LIN_HISTORIES -u STM_LIN_BATCH "${dev[@]}" STM_TEST_REDUCED=1 GTEST_TOTAL_SHARDS="$SANITIZER_SHARDS" GTEST_SHARD_INDEX="$i" \
      timeout "$SANITIZER_LIMIT" "$COMPUTE_SANITIZER" --tool "$tool" --error-exitcode 99 --print-limit 20 \
      "$exe" --gtest_filter='-*FullOccupancy*:*Stress*:*Sweep*' > "$log.$i" 2>&1 &
    pids+=($!)
  done
  local nocuda='terminated before first instrumented API call'
  for i in "${!pids[@]}"; do  # each by its pid: `wait -n` loses shards that end together (exit 127)
    local r=0; wait "${pids[$i]}" || r=$?
    # A shard whose tests made no CUDA call (no test left for it, or host-only tests): the
    # sanitizer exits 255 with the line above. Clean when its tests passed.
    if [ "$r" = 255 ] && grep -q "$nocuda" "$log.$i" && grep -q '^\[  PASSED  \]' "$log.$i" &&
       ! grep -q '^\[  FAILED  \]' "$log.$i"; then r=0; fi
    # the worst exit status: an error report, then a failure, then a cut, then clean
    case "$r" in 99) rc=99 ;; 0) ;; 124) [ "$rc" = 0 ] && rc=124 ;; *) [ "$rc" = 99 ] || rc=$r ;; esac
  done
  for ((i = 0; i < SANITIZER_SHARDS; i++)); do cat "$log.$i"; done > "$log" && rm -f "$log".*
  local ran errors hazards verdict
  ran=$(grep -c '^\[       OK \]\|^\[  FAILED  \] .*(' "$log")
  hazards=$(grep -o 'RACECHECK SUMMARY: [0-9]* hazard' "$log" | awk '{n += $3} END {if (NR) print n + 0}')
  if [ "$rc" = 124 ]; then  # a cut run prints no summary: count the reports it printed
    errors=$(grep -v "$nocuda" "$log" | grep -c '^========= \(Invalid\|Uninitialized\|Barrier\|Race\|Error\)')
  else  # every shard's summary: "ERROR SUMMARY: N errors", racecheck's "(N errors, ...)"
    errors=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\).*/\1/p; s/.*RACECHECK SUMMARY: .*(\([0-9]*\) error.*/\1/p' "$log" |
             awk '{n += $1} END {print n + 0}')
  fi
  case $rc in
    0) verdict="clean" ;;
    124) verdict="NOT FINISHED in $SANITIZER_LIMIT s" ;;
    99) verdict="ERRORS" ;;
    *) verdict="FAILED (exit $rc)" ;;
  esac
  echo "compute-sanitizer $tool $(basename "$exe"): $ran tests run, $errors errors${hazards:+, $hazards hazards}, $(( $(date +%s) - t0 )) s: $verdict"
  [ "$rc" = 0 ] || [ "$rc" = 124 ] || tail -30 "$log" | sed 's/^/    /'
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
  if [ -n "$TESTS_ONLY" ]; then
    kept=""; for e in $exes; do for p in ${TESTS_ONLY//,/ }; do [[ "$(basename "$e")" == *"$p"* ]] && { kept="$kept $e"; break; }; done; done
    [ -n "$kept" ] || { note "tests: --tests '$TESTS_ONLY' matches no test program"; status=1; }
    exes="${kept# }"
  fi
  gpu_exes=$(printf '%s\n' $exes | grep '_gpu$')
  [ "$CPU_TESTS" = 1 ] || exes="$gpu_exes"
  if [ "$SANITIZER_ONLY" = 0 ]; then
    # Every test program, TEST_JOBS at a time, each bounded (--test-limit); each writes its own log.
    : > "$RESULTS/test_status.txt"
    [ -z "$exes" ] || printf '%s\n' $exes | xargs -P "$TEST_JOBS" -I{} bash -c \
      't0=$(date +%s); log="$2/test_$(basename "$1").log"; STM_RELIABILITY_OUT="$2/reliability_raw.jsonl" timeout "$3" "$1" > "$log" 2>&1
       rc=$?; echo "$rc $(basename "$1") $(( $(date +%s) - t0 ))" >> "$2/test_status.txt"' \
      _ {} "$RESULTS" "$TEST_LIMIT"
    while read -r rc name secs; do echo "   $name: exit $rc, $secs s"; done < "$RESULTS/test_status.txt"
    failed=$(awk '$1 != 0 {print $2 " (exit " $1 ")"}' "$RESULTS/test_status.txt")
    passed=$(cat "$RESULTS"/test_*.log 2>/dev/null | grep -c '^\[       OK \]')
    skipped=$(cat "$RESULTS"/test_*.log 2>/dev/null | grep -c '^\[  SKIPPED \] .*(')  # the test lines, not gtest's summary
    nfailed=$(cat "$RESULTS"/test_*.log 2>/dev/null | grep -c '^\[  FAILED  \] .*(')
    if [ -z "$failed" ]; then
      note "tests: all $(wc -l < "$RESULTS/test_status.txt") programs passed: $passed tests passed, $skipped skipped"
    else
      status=1
      note "tests: FAILED programs: $(echo $failed) ($passed passed, $nfailed failed, $skipped skipped)"
      grep -h -A12 'Failure$\|^\[  FAILED  \] .*(' "$RESULTS"/test_*.log | head -100
    fi
  fi
  tar czf "$OUT/results.tgz" -C "$RESULTS" .
  # The sanitizers after the tests: they check, they time nothing, but beside the tests they
  # would slow the GPU under the tests' wall-clock bounds.
  : > "$RESULTS/sanitizer.txt"
  if [ "$SANITIZE" = 1 ] && command -v "$COMPUTE_SANITIZER" >/dev/null; then
    # the GPUs the sanitizer processes are spread over (sanitize above)
    SANITIZER_GPUS="${CUDA_VISIBLE_DEVICES:-$(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | paste -sd, -)}"
    echo "sanitizer processes spread over GPUs: ${SANITIZER_GPUS:-the default one}"
    ( export -f sanitize sanitized; export RESULTS SANITIZE_ONLY SANITIZER_LIMIT SANITIZER_SHARDS SANITIZER_GPUS COMPUTE_SANITIZER
      pair=0
      for exe in $gpu_exes; do sanitized "$exe" || continue
        for tool in ${TOOLS//,/ }; do echo "$exe $tool $pair"; pair=$((pair + 1)); done; done |
        xargs -P "$SANITIZER_JOBS" -L 1 bash -c 'sanitize "$0" "$1" "$2"' 2>&1 | tee "$RESULTS/sanitizer.txt" )
    while read -r line; do case "$line" in compute-sanitizer*) summary+=("$line") ;; esac; done < "$RESULTS/sanitizer.txt"
    grep -q "FAILED\|NOT FINISHED\|ERRORS" "$RESULTS/sanitizer.txt" && status=1
  fi
  tar czf "$OUT/results.tgz" -C "$RESULTS" .
fi

# The schedule-perturbation programs (stm/detail/perturb.hpp): the same tests,
# every atomic of the library delaying its lane at random.
if [ "$PERTURB" = 1 ]; then
  t1=$(date +%s)
  if cmake -S . -B build-gpu-perturb -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DPRSTM_PERTURB=ON >/dev/null &&
     cmake --build build-gpu-perturb -j "$(nproc)" --target $ptargets; then
    : > "$RESULTS/perturb_status.txt"
    for t in $ptargets; do find build-gpu-perturb/tests -type f -name "$t"; done |
      xargs -P 3 -I{} bash -c \
      'log="$2/perturb_$(basename "$1").log"
       STM_PERTURB_RATE="$4" STM_PERTURB_SEED="$5" STM_RELIABILITY_OUT="$2/reliability_raw.jsonl" timeout "$3" "$1" > "$log" 2>&1
       echo "$? $(basename "$1")" >> "$2/perturb_status.txt"' _ {} "$RESULTS" "$((2 * TEST_LIMIT))" "$PERTURB_RATE" "$PERTURB_SEED"
    pfailed=$(awk '$1 != 0 {print $2 " (exit " $1 ")"}' "$RESULTS/perturb_status.txt")
    ppassed=$(cat "$RESULTS"/perturb_*.log | grep -c '^\[       OK \]')
    if [ -z "$pfailed" ]; then
      note "perturbed tests (rate $PERTURB_RATE, seed $PERTURB_SEED): all $(wc -l < "$RESULTS/perturb_status.txt") programs passed: $ppassed tests ($(( $(date +%s) - t1 )) s)"
    else
      status=1
      note "perturbed tests (rate $PERTURB_RATE, seed $PERTURB_SEED): FAILED programs: $(echo $pfailed) ($ppassed passed)"
      grep -h -A12 'Failure$\|^\[  FAILED  \] .*(' "$RESULTS"/perturb_*.log | head -100
    fi
  else
    status=1; note "perturbed build: FAILED"
  fi
fi
if [ -s "$RESULTS/reliability_raw.jsonl" ] && command -v python3 >/dev/null; then
  python3 tools/reliability_rows.py "$RESULTS/reliability_raw.jsonl" --commit "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" \
    > "$RESULTS/reliability.jsonl" && while read -r line; do note "reliability: $line"; done < "$RESULTS/reliability.jsonl"
fi
[ "$TESTS" = 1 ] || [ "$PERTURB" = 1 ] && tar czf "$OUT/results.tgz" -C "$RESULTS" .

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
