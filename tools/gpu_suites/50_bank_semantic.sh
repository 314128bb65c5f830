# SPDX-License-Identifier: Apache-2.0
# Bank, semantic experiments of the PR-STM paper (sections 4.2-4.3, figures
# 7-9) as data: prstm against gpustm (100 retries on a semantic conflict), each
# point the median of 3 table-drain runs after a warm-up, written as one JSON
# object per point (--sweep) to $RESULTS/bank_semantic.jsonl.
#   fig 7: throughput vs threads 960..9,600 and full occupancy (semantic 100)
#   fig 8: throughput vs lock coverage --hash 1..64 (6,720 threads, semantic 100)
#   fig 9: throughput vs semantic ratio 0..100% (6,720 threads, hash 1)
# each with and without --presort, all read/write and 20% read-only.
# gpustm is run only when this build knows the name.
rep=3; tpt=64
threads=960,1920,2880,3840,4800,5760,6720,7680,8640,9600,full
hashes=1,2,4,8,16,32,64
ratios=0,5,10,25,50,75,100
ros=0,20
if [ "$QUICK" = 1 ]; then
  tpt=16; threads=960,6720,full; hashes=1,64; ratios=0,50,100; ros=0
fi
cms=prstm
if "$BENCH" --workload bank --backend cpu --cm gpustm --accounts 64 --threads 8 --tpt 4 --warmup 0 -q \
     --format json >/dev/null 2>&1; then
  cms=prstm,gpustm
else
  echo "note: this build has no gpustm manager; bank_semantic runs prstm only" >&2
fi
common=(--workload bank --backend gpu --accounts 2621440 --tpt $tpt --repeat $rep --warmup 1 -q
        --format json --out "$RESULTS/bank_semantic.jsonl" --sweep cm=$cms --sweep presort=false,true
        --sweep read-only=$ros)
"$BENCH" "${common[@]}" --semantic 100 --hash 1 --sweep threads=$threads >/dev/null \
  || echo "FAILED: bank_semantic threads sweep" >&2
"$BENCH" "${common[@]}" --semantic 100 --threads 6720 --sweep hash=$hashes >/dev/null \
  || echo "FAILED: bank_semantic hash sweep" >&2
"$BENCH" "${common[@]}" --hash 1 --threads 6720 --sweep semantic=$ratios >/dev/null \
  || echo "FAILED: bank_semantic ratio sweep" >&2
# The targets (prstm, semantic 0, lock coverage 1, full occupancy), drain mode.
for acc in 2621440 4096; do
  "$BENCH" --workload bank --backend gpu --accounts $acc --threads full --tpt $tpt --semantic 0 --hash 1 \
    --repeat $rep --warmup 1 -q --format json --out "$RESULTS/bank_semantic.jsonl" >/dev/null \
    || echo "FAILED: bank_semantic target accounts=$acc" >&2
done
