#!/usr/bin/env bash
# tools/check.sh - the test command: install what is missing, build, and run
# every test: the CPU backend, a ThreadSanitizer build of the CPU tests, and the
# GPU backend when a device is present (GPU tests skip, with the reason, when
# there is none).
#
#   tools/check.sh            # everything
#   tools/check.sh --no-tsan  # skip the sanitized build (faster local loops)
set -euo pipefail
cd "$(dirname "$0")/.."

tsan=1
for a in "$@"; do
  case "$a" in
    --no-tsan) tsan=0 ;;
    *) echo "check.sh: unknown option '$a' (known: --no-tsan)" >&2; exit 2 ;;
  esac
done

bash tools/setup.sh
[ -d /usr/local/cuda/bin ] && export PATH="/usr/local/cuda/bin:$PATH"
jobs=$(nproc 2>/dev/null || echo 2)

echo "== build (GPU backend when nvcc is present) =="
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$jobs"
echo "== tests =="
ctest --test-dir build --output-on-failure -j "$jobs"

if [ "$tsan" = 1 ]; then
  echo "== ThreadSanitizer build of the CPU tests =="
  cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTM_SANITIZE=thread
  cmake --build build-tsan -j "$jobs"
  # setarch -R: TSan needs a non-randomized address layout on newer kernels.
  run=()
  if command -v setarch >/dev/null 2>&1 && setarch "$(uname -m)" -R true 2>/dev/null; then run=(setarch "$(uname -m)" -R); fi
  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" "${run[@]}" ctest --test-dir build-tsan --output-on-failure -j "$jobs"
fi
echo "check.sh: all tests passed"
