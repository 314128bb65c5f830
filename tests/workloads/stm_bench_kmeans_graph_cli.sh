#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# stm_bench's kmeans and graph workloads from the command line: bad input fails
# with one line on stderr and exit code 2 before any work; small runs of every
# implementation and manager verify; a file graph runs.
bench="$1"
source "$(dirname "$0")/cli_lib.sh"

bad --workload kmeans --points 0
bad --workload kmeans --points 10 --clusters 11
bad --workload kmeans --clusters 0
bad --workload kmeans --clusters 65
bad --workload kmeans --points 4294967296
bad --workload kmeans --points 18446744073709551616
bad --workload kmeans --points -5
bad --workload kmeans --iterations 0
bad --workload kmeans --impl atomic
bad --workload kmeans --cm no_such_manager
bad --workload kmeans --threads 600000 --impl tx
bad --workload kmeans --vertices 10
bad --workload kmeans --impl tx-block --block 48
bad --workload kmeans --impl tx-block --block 0
bad --workload kmeans --impl tx-block --block 4294967296
bad --workload kmeans --impl tx-aggregated --block 64
bad --workload kmeans --impl native --block 64
bad --workload graph --vertices 0
bad --workload graph --tpt 4   # the array's (and bank's, vacation's) transactions a thread: not the graph's
bad --workload kmeans --tpt 4
bad --workload graph --vertices 2147483649
bad --workload graph --edges 4294967296
bad --workload graph --graph no_such_file_or_shape
bad --workload graph --impl tx-aggregated
bad --workload graph --block 64
bad --workload graph --max-value 0
bad --workload graph --cm no_such_manager
bad --workload graph --points 10
printf '0 1\n1 x\n' >"$tmp/bad.txt"
bad --workload graph --graph "$tmp/bad.txt"

for cm in prstm gpustm backoff delay; do
  good --workload kmeans --points 20000 --clusters 16 --iterations 3 --threads 16 --cm $cm
  good --workload graph --vertices 20000 --edges 14000 --threads 16 --cm $cm
done
good --workload kmeans --points 20000 --threads 16 --hash 64 --impl tx
good --workload kmeans --points 20000 --threads 100 --impl tx-block --block 32 --sweep cm=prstm,gpustm
good --workload graph --vertices 20000 --edges 200000 --threads 64 --impl tx-lower --sweep hash=1,16
good --workload graph --vertices 4096 --edges 40000 --graph rmat --threads 16 --hash 16
printf '%%%%MatrixMarket matrix coordinate pattern symmetric\n5 5 4\n2 1\n3 2\n5 4\n1 1\n' >"$tmp/g.mtx"
good --workload graph --graph "$tmp/g.mtx" --threads 4
exit $fail
