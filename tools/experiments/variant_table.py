#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Experiment tool: one line per configuration, one column per variant.

Usage: variant_table.py OUTDIR PREFIX VARIANT...
Reads OUTDIR/PREFIX<VARIANT>.jsonl (stm_bench --out files, one per variant of
an A/B run in one binary) and prints each configuration's throughput in M/s
under every variant (nan: a run that did not verify, -: not run). A
configuration is the workload and whichever of reads, words, preset,
accounts, validation, cm and threads its rows carry.
"""
import json
import os
import sys

FIELDS = ("reads", "words", "preset", "accounts", "validation", "cm", "threads")


def main(argv):
    if len(argv) < 4:
        sys.exit("usage: variant_table.py OUTDIR PREFIX VARIANT...")
    out, prefix, variants = argv[1], argv[2], argv[3:]
    rows = {}
    for v in variants:
        path = os.path.join(out, prefix + v + ".jsonl")
        if not os.path.exists(path):
            continue
        with open(path) as f:
            for line in f:
                if not line.strip():
                    continue
                r = json.loads(line)
                key = (r["workload"],) + tuple(f"{k}={r[k]}" for k in FIELDS if r.get(k) not in (None, ""))
                rows.setdefault(key, {})[v] = r["throughput"] if r.get("verified") else float("nan")
    print("configuration | " + " ".join(variants) + "  (M/s)")
    for key, by in rows.items():
        print(" ".join(key), "|", " ".join(f"{by[v] / 1e6:.2f}" if v in by else "-" for v in variants))


if __name__ == "__main__":
    main(sys.argv)
