#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tools/gpu_check.sh's compute-sanitizer step, checked without a GPU: a stand-in
# compute-sanitizer (COMPUTE_SANITIZER) and nvidia-smi, and stand-in test programs whose
# names choose what the "sanitizer" reports. Checks the one line per program and tool
# (tests run, errors, verdict) for a clean run, a shard whose tests make no CUDA call
# (the real sanitizer exits 255 for it), a failed test, errors of memcheck and racecheck,
# a run cut at its limit, and that shards spread over every GPU (or those of
# CUDA_VISIBLE_DEVICES). Usage: gpu_check_sanitizer_test.sh REPO_ROOT
set -u
root="${1:?usage: gpu_check_sanitizer_test.sh REPO_ROOT}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
mkdir -p "$tmp/bin" "$tmp/pre/tests"

cat > "$tmp/bin/nvidia-smi" <<'SH'
#!/usr/bin/env bash
case "$*" in *index*) printf '0\n1\n2\n3\n' ;; *) echo "stand-in GPU" ;; esac
SH
# compute-sanitizer --tool T --error-exitcode 99 --print-limit 20 PROGRAM --gtest_filter=...
cat > "$tmp/bin/sanitizer" <<'SH'
#!/usr/bin/env bash
tool=$2 prog=$(basename "$7") shard=${GTEST_SHARD_INDEX:-0}
echo "${CUDA_VISIBLE_DEVICES:-unset}" >> "$SPREAD_LOG"
nocuda() { echo "========= Error: Target application terminated before first instrumented API call"; exit 255; }
summary() {  # summary N: the tool's closing line with N errors
  if [ "$tool" = racecheck ]; then echo "========= RACECHECK SUMMARY: $1 hazards displayed ($1 errors, 0 warnings)"
  else echo "========= ERROR SUMMARY: $1 errors"; fi
}
case "$prog" in
  clean_gpu) echo "[       OK ] A.b (1 ms)"; echo "[  PASSED  ] 1 test."; summary 0 ;;
  hostonly_gpu)  # shard 0 calls CUDA; the others run host-only tests
    echo "[       OK ] A.b (1 ms)"; echo "[  PASSED  ] 1 test."; [ "$shard" = 0 ] || nocuda; summary 0 ;;
  hostfail_gpu)
    if [ "$shard" = 1 ]; then echo "[  FAILED  ] A.c (1 ms)"; echo "[  FAILED  ] 1 test"; nocuda; fi
    echo "[       OK ] A.b (1 ms)"; echo "[  PASSED  ] 1 test."; summary 0 ;;
  errors_gpu)
    echo "========= Invalid __global__ read of size 4 bytes"; echo "[       OK ] A.b (1 ms)"; summary 1; exit 99 ;;
  slow_gpu) echo "[       OK ] A.b (1 ms)"; [ "$shard" = 0 ] && { echo "========= Invalid __global__ write"; sleep 30; }; summary 0 ;;
esac
exit 0
SH
printf '#!/usr/bin/env bash\necho stand-in\n' > "$tmp/pre/stm_bench"
for p in clean hostonly hostfail errors slow; do printf '#!/usr/bin/env bash\n' > "$tmp/pre/tests/${p}_gpu"; done
chmod +x "$tmp"/bin/* "$tmp/pre/stm_bench" "$tmp"/pre/tests/*

run() {  # run NAME ARGS...: gpu_check.sh's sanitizer step only, its lines in $tmp/NAME.txt
  local name=$1; shift
  : > "$tmp/$name.spread"
  TMPDIR="$tmp" PATH="$tmp/bin:$PATH" COMPUTE_SANITIZER="$tmp/bin/sanitizer" SPREAD_LOG="$tmp/$name.spread" \
    bash "$root/tools/gpu_check.sh" "$tmp/out_$name" --prebuilt="$tmp/pre" --no-bench --sanitizer-only \
    --sanitizer-limit=3 --sanitizer-jobs=5 "$@" > /dev/null 2>&1
  grep -h '^compute-sanitizer [a-z]* ' "$tmp/out_$name/summary.txt" | sort -u > "$tmp/$name.txt"
}
expect() {  # expect NAME PROGRAM TOOL PATTERN
  local line; line=$(grep "^compute-sanitizer $3 $2:" "$tmp/$1.txt")
  if [[ "$line" =~ $4 ]]; then echo "ok: $line"; else echo "FAIL: $2 under $3 ($1): expected /$4/, got '$line'"; fail=1; fi
}

run shards --tools=memcheck,racecheck --sanitizer-shards=3
expect shards clean_gpu memcheck ': 3 tests run, 0 errors, [0-9]+ s: clean$'
expect shards clean_gpu racecheck ': 3 tests run, 0 errors, 0 hazards, [0-9]+ s: clean$'
expect shards hostonly_gpu memcheck ': 3 tests run, 0 errors, [0-9]+ s: clean$'
expect shards hostfail_gpu memcheck ': 3 tests run, 0 errors, [0-9]+ s: FAILED \(exit 255\)$'
expect shards errors_gpu memcheck ': 3 tests run, 3 errors, [0-9]+ s: ERRORS$'
expect shards errors_gpu racecheck ': 3 tests run, 3 errors, 3 hazards, [0-9]+ s: ERRORS$'
expect shards slow_gpu memcheck ': 3 tests run, 1 errors, [0-9]+ s: NOT FINISHED in 3 s$'
used=$(sort -u "$tmp/shards.spread" | paste -sd, -)
if [ "$used" = "0,1,2,3" ]; then echo "ok: shards spread over GPUs $used"; else echo "FAIL: shards spread over '$used', not 0,1,2,3"; fail=1; fi

CUDA_VISIBLE_DEVICES=5,7 run visible --tools=memcheck --sanitizer-shards=2 --sanitize=clean
expect visible clean_gpu memcheck ': 2 tests run, 0 errors, [0-9]+ s: clean$'
used=$(sort -u "$tmp/visible.spread" | paste -sd, -)
if [ "$used" = "5,7" ]; then echo "ok: CUDA_VISIBLE_DEVICES=5,7 kept: $used"; else echo "FAIL: spread over '$used', not 5,7"; fail=1; fi

run single --tools=synccheck --sanitize=clean,hostonly
expect single clean_gpu synccheck ': 1 tests run, 0 errors, [0-9]+ s: clean$'
expect single hostonly_gpu synccheck ': 1 tests run, 0 errors, [0-9]+ s: clean$'
exit $fail
