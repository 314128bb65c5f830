#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# stm_bench's array workload from the command line: bad input fails with one
# line on stderr and exit code 2 before any work; small runs of every manager,
# both validations, the native baseline and admission control verify.
bench="$1"
source "$(dirname "$0")/cli_lib.sh"
PREFIX=(--workload array)

bad --words 0
bad --words 8 --reads 16
bad --words 2147483649
bad --reads 0
bad --reads 257
bad --writes 3
bad --writes 10
bad --reads 2 --writes 4
bad --read-only 101
bad --validation lazy
bad --impl atomic
bad --impl native --cm backoff
bad --impl native --validation commit
bad --cm no_such_manager
bad --reads 129 --cm gpustm   # beyond gpustm's lock log: every attempt would abort for capacity
bad --threads 600000
bad --ops 0
bad --tpt 0
bad --tpt 4 --ops 1000   # two ways to set the transactions
bad --tpt 1048576 --threads 8192   # 2^33 transactions
bad --keys 10
STM_FOOTPRINT_KIB=4097 bad --reads 16   # the footprint gate's budget (stm::throttle_config), 0 to 4096 KiB
STM_FOOTPRINT_KIB=x bad --reads 16
STM_FOOTPRINT_MIN_WARPS=65 bad --reads 16   # warps the footprint gate always lets in, 0 to 64
STM_ESCALATE_WHEN_FREE=2 bad --reads 16    # 0 or 1
STM_FOOTPRINT_HEAT_WEIGHT=65 bad --reads 16   # how much more a hot lane's sets weigh, 0 to 64
STM_FOOTPRINT_OPEN_WARPS=65 bad --reads 16    # warps per SM from which sets that cannot fit skip the gate, 0 to 64

for cm in prstm gpustm backoff delay; do
  good --words 4096 --reads 16 --threads 32 --ops 20000 --cm $cm --validation all --impl all
done
good --words 1024 --reads 256 --threads 16 --ops 2000 --validation all
good --words 1024 --reads 128 --threads 16 --ops 2000 --cm gpustm
good --words 1024 --reads 256 --threads 16 --ops 200 --impl native --writes 2
good --words 64 --reads 2 --writes 2 --read-only 30 --threads 64 --ops 20000 --hash 4
good --words 64 --reads 8 --writes 0 --threads 16 --ops 5000
good --words 4096 --reads 4 --tpt 100 --sweep threads=16,64
for n in 1600 6400; do   # --tpt is a number a thread: each point of the sweep runs its own
  grep -q "\"transactions\": $n," "$tmp/out" || { echo "FAIL: --tpt 100 at $((n / 100)) threads: not $n transactions"; fail=1; }
done
STM_ADMISSION=1 good --words 64 --reads 4 --threads 64 --ops 20000 --validation all
# Sets in local memory (16 reads) behind a footprint gate of 1 KiB (nearly every pass waits) and with it off.
STM_FOOTPRINT_KIB=1 good --words 4096 --reads 16 --threads 64 --ops 20000 --validation all
STM_FOOTPRINT_KIB=0 good --words 4096 --reads 16 --threads 64 --ops 20000 --validation all
STM_FOOTPRINT_MIN_WARPS=4 good --words 4096 --reads 16 --threads 64 --ops 20000 --validation all
STM_ESCALATE_WHEN_FREE=0 good --words 4096 --reads 16 --threads 64 --ops 20000 --validation all
STM_FOOTPRINT_HEAT_WEIGHT=0 good --words 4096 --reads 16 --threads 64 --ops 20000 --validation all
# A budget of 1 KiB that 64-read sets (2 KiB a lane) cannot fit, every launch crowded (the host's one warp,
# of one lane, per SM): no warp enters the gate.
STM_FOOTPRINT_OPEN_WARPS=1 STM_FOOTPRINT_KIB=1 good --words 4096 --reads 64 --threads 64 --ops 20000 --validation all
exit $fail
