# SPDX-License-Identifier: Apache-2.0
# Bank with TinySTM's read-all audits: --read-all 1 --audit-size 1024 (1% of the
# table reads 1,024 accounts of one group spread over the table and checks their
# total; transfers stay within groups), opaque (tx_config Opaque = true, lock
# table with the commit clock) against non-opaque, at full occupancy and at
# 6,720 threads, over 4,096 and 2,621,440 accounts, prstm and backoff (gpustm's
# lock log holds 128 locks: it cannot run 1,024-read audits). The JSON lines
# carry audits, attempts_per_audit, escalations and wrong_totals (must be 0:
# the run fails otherwise). Audits that abort 8 times run escalated, side by
# side under shared locks (transfers wait for them), so a table with many
# audits is drained slowly: few transactions per thread (--tpt), and a time
# limit per command.
# Alone: one thread running audits only (microseconds per audit = 1e6 /
# throughput), opaque against non-opaque.
rep=3; secs=0.5; limit=150
[ "$QUICK" = 1 ] && rep=1 && secs=0.2 && limit=60
read_all_run() {  # accounts threads tpt cm opaque(0/1) read_all
  local op=(); [ "$5" = 1 ] && op=(--opaque)
  timeout $limit "$BENCH" --workload bank --backend gpu --accounts "$1" --threads "$2" --tpt "$3" --seconds $secs \
    --semantic 0 --read-only 0 --hash 1 --cm "$4" --read-all "$6" --audit-size 1024 "${op[@]}" \
    --repeat $rep --warmup 1 --format json --out "$RESULTS/bank_read_all.jsonl" -q \
    || echo "FAILED (or over ${limit}s): bank read-all accounts=$1 threads=$2 tpt=$3 cm=$4 opaque=$5 read_all=$6" >&2
}
for opaque in 0 1; do
  read_all_run 4096 1 64 prstm $opaque 100
  read_all_run 2621440 1 64 prstm $opaque 100
done
for acc in 2621440 4096; do
  for cm in prstm backoff; do
    for opaque in 0 1; do
      read_all_run $acc 6720 64 $cm $opaque 1
      read_all_run $acc full 4 $cm $opaque 1
    done
  done
done
