# SPDX-License-Identifier: Apache-2.0
# Recorded histories at full occupancy (tests/history): every contention
# manager, opaque and not, over 8, 64 and 4,096 words at lock coverage 1 and 4,
# at least 1,000,000 committed transactions per configuration, each history
# checked for serializability and opacity (stm/history_check.hpp). One test
# program run per manager, so that a slow one does not hide the others; the
# per-configuration counts and the checker's time go to $RESULTS/history.txt.
# Not a benchmark: nothing here is timed for BENCHMARKS.md. QUICK=1 runs the
# default (reduced) GPU size instead.
hist_exe=$(find "$(dirname "$BENCH")/tests" -type f -name history_tests_gpu 2>/dev/null | head -1)
if [ -z "$hist_exe" ]; then
  echo "FAILED: history: no history_tests_gpu next to $BENCH" >&2
else
  # One run per manager and mode (a filter "prstm_*" would take prstm_aging's
  # cases too).
  for cm in prstm prstm_aging gpustm backoff delay user_direct_lock; do
    for mode in opaque nonopaque; do
      if [ "$QUICK" = 1 ]; then
        timeout 120 "$hist_exe" --gtest_filter="RecordedHistory/${cm}_${mode}_*" >> "$RESULTS/history.txt" 2>&1
      else
        STM_HISTORY_FULL=1 timeout 600 "$hist_exe" --gtest_filter="RecordedHistory/${cm}_${mode}_*" >> "$RESULTS/history.txt" 2>&1
      fi || echo "FAILED: history cm=$cm $mode (see history.txt)" >&2
    done
  done
  grep -E '^\[history\]|FAILED' "$RESULTS/history.txt"
fi
