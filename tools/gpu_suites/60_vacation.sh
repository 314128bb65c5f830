# SPDX-License-Identifier: Apache-2.0
# Vacation (STAMP's travel reservation system with the PR-STM paper's sold-out
# semantic conflicts, sections 4.2-4.3, figures 7-9) as data: prstm against
# gpustm (100 retries on a semantic conflict) over the paper's preset (150,000
# customers, 1,000 room types, book/cancel pairs, records 128 words apart),
# each point the median of 3 table-drain runs after a warm-up, one JSON object
# per point (--sweep) in $RESULTS/vacation.jsonl.
#   fig 7: throughput vs threads 960..9,600 and full occupancy (semantic 100)
#   fig 8: throughput vs lock coverage --hash 1..64 (6,720 threads, semantic 100)
#   fig 9: throughput vs semantic ratio 0..100% (6,720 threads, hash 1)
# each with and without --presort, all read/write and 20% read-only.
# Headline points (full occupancy, presets paper and high): every manager and
# the native baseline (--impl all gives tx and native from one run). The whole
# suite takes about 4 minutes on an H100.
rep=3; tpt=64
threads=960,1920,2880,3840,4800,5760,6720,7680,8640,9600,full
hashes=1,2,4,8,16,32,64
ratios=0,5,10,25,50,75,100
ros=0,20
if [ "$QUICK" = 1 ]; then
  tpt=16; threads=960,6720,full; hashes=1,64; ratios=0,50,100; ros=0
fi
common=(--workload vacation --backend gpu --preset paper --tpt $tpt --repeat $rep --warmup 1 -q
        --format json --out "$RESULTS/vacation.jsonl" --sweep cm=prstm,gpustm --sweep presort=false,true
        --sweep read-only=$ros)
"$BENCH" "${common[@]}" --semantic 100 --hash 1 --sweep threads=$threads >/dev/null \
  || echo "FAILED: vacation threads sweep" >&2
"$BENCH" "${common[@]}" --semantic 100 --threads 6720 --sweep hash=$hashes >/dev/null \
  || echo "FAILED: vacation hash sweep" >&2
"$BENCH" "${common[@]}" --hash 1 --threads 6720 --sweep semantic=$ratios >/dev/null \
  || echo "FAILED: vacation ratio sweep" >&2
for preset in paper high; do
  head=(--workload vacation --backend gpu --preset $preset --threads full --tpt $tpt --hash 1 --repeat $rep
        --warmup 1 -q --format json --out "$RESULTS/vacation.jsonl")
  "$BENCH" "${head[@]}" --cm prstm --impl all >/dev/null || echo "FAILED: vacation $preset prstm/native" >&2
  "$BENCH" "${head[@]}" --sweep cm=gpustm,backoff,delay >/dev/null || echo "FAILED: vacation $preset managers" >&2
done
