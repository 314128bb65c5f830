#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Compare two stm_bench result sets and list the rows whose throughput moved.

    tools/compare_results.py OLD NEW [--threshold PCT] [--all]

OLD and NEW are JSON-lines files written by `stm_bench --format json --out FILE`
(results/headline.jsonl of two runs), or folders, whose *.jsonl files are read
together (results/ itself: the per-suite files, to compare a first headline run
with what was measured before it).

Rows are matched by their configuration: the input fields of a row (workload,
implementation, manager, sizes, mix, threads, ...; CONFIG below), not by its
command line, so that a row measured with other --seconds, --repeat or output
options still meets its twin. A field at its neutral default (`--hash 1`, no
presort, the paper's thread-id priority, ...) counts as absent, so rows written
before the field existed match too. When one side holds several rows of one
configuration, the last one in file order counts (files grow by appending, so
the last is the newest), and in a folder the workload's own file (bank.jsonl for
the bank) counts before any other.

Printed: the devices and commits of both sides, every matched row whose median
throughput moved by more than the threshold (default 10%), largest move first,
then the rows of one side only and every unverified row of NEW. The exit status is
0 whatever moved (a report, not a gate: nvbench_compare's way); 2 on bad input.
"""
import argparse
import glob
import json
import os
import sys

# Input fields of a row: what was run, not what was measured. The key of a row
# is the tuple of those it has (in this order), less those at a neutral value.
CONFIG = ["workload", "backend", "impl", "cm", "priority", "variant", "experiment", "label", "mode", "preset",
          "accounts", "customers", "points", "clusters", "iterations", "block", "vertices", "edges", "graph",
          "keys", "levels", "range", "prefill", "capacity", "mix", "push_ratio", "producers", "consumers",
          "pairs_per_thread", "ops", "threads", "tpt", "hash", "lock_spread", "semantic", "read_only", "presort",
          "cm_wait", "cm_backoff", "elim_slots", "offer_ns", "opaque", "clock", "driver", "read_all",
          "audit_size", "auditors", "writers", "resident_cap", "cap_by", "admission", "admission_patience",
          "admission_heat", "admission_pause_log2", "escalate_after", "one_shot"]
# Values that mean "the default" (absent in rows written before the field was).
NEUTRAL = {"hash": {1}, "lock_spread": {1}, "presort": {False}, "cm_wait": {0}, "cm_backoff": {0},
           "priority": {"", "tid"}, "opaque": {False}, "clock": {False}, "variant": {""}, "label": {""},
           "driver": {"table"}, "read_all": {0}, "audit_size": {0}, "admission": {True},
           # the boosted sets' one-shot updates: rows written before the field ran them as transactions
           "one_shot": {"tx"}}
# The measured field that is compared (per second, median of the repeats).
MEASURED = "throughput"


def die(msg):
    print(f"compare_results.py: {msg}", file=sys.stderr)
    sys.exit(2)


def files_of(path):
    if os.path.isdir(path):
        fs = sorted(f for f in glob.glob(os.path.join(path, "*.jsonl")))
        if not fs:
            die(f"{path}: no .jsonl file in this folder")
        return fs
    if not os.path.isfile(path):
        die(f"{path}: no such file or folder")
    return [path]


def load(path):
    """Rows with a throughput, in file order (folders: files sorted by name)."""
    rows = []
    for f in files_of(path):
        with open(f) as fh:
            for n, line in enumerate(fh, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    r = json.loads(line)
                except json.JSONDecodeError as e:
                    die(f"{f}:{n}: not JSON: {e}")
                if not isinstance(r, dict):
                    die(f"{f}:{n}: not a JSON object")
                if isinstance(r.get(MEASURED), (int, float)):
                    r["_file"] = os.path.basename(f)
                    rows.append(r)
    return rows


def key_of(r):
    k = []
    for f in CONFIG:
        v = r.get(f)
        if f == "cm" and v is None:
            v = r.get("tx_cm")  # rows of the first queue runs called it tx_cm
        if v is None or v in NEUTRAL.get(f, ()):
            continue
        if f == "cm" and r.get("impl") == "native":
            continue  # a native run has no manager ("none", "native" or the flag it was run beside)
        k.append((f, v))
    return tuple(k)


def index(rows):
    """Configuration -> row. The last row of a configuration wins, and a row of the
    workload's own file (bank.jsonl for the bank) wins over any other file's: in a
    folder of suite files, tuning and sweep files measured at older commits often
    hold a headline configuration too."""
    idx = {}
    own = [r for r in rows if r.get("_file") == f"{r.get('workload')}.jsonl"]
    for r in [r for r in rows if r.get("_file") != f"{r.get('workload')}.jsonl"] + own:
        idx[key_of(r)] = r
    return idx


def label(key):
    return " ".join(f"{f}={v}" for f, v in key)


def si(x):
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(x) >= scale:
            return f"{x / scale:.3g} {unit}"
    return f"{x:.3g}"


def side(rows):
    devices = sorted({str(r.get("device", "?")) for r in rows})
    commits = sorted({str(r.get("commit", "?")) for r in rows})
    return f"{len(rows)} rows; device {', '.join(devices)}; commit {', '.join(commits)}"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--threshold", type=float, default=10.0, help="percent change to print (default 10)")
    ap.add_argument("--all", action="store_true", help="print every matched row")
    a = ap.parse_args(argv)
    if not a.threshold >= 0:
        die(f"--threshold takes a percentage >= 0, got {a.threshold}")
    old_rows, new_rows = load(a.old), load(a.new)
    old, new = index(old_rows), index(new_rows)
    print(f"old: {a.old}: {side(old_rows)}")
    print(f"new: {a.new}: {side(new_rows)}")
    matched = [k for k in new if k in old]
    moves = []
    for k in matched:
        o, n = old[k][MEASURED], new[k][MEASURED]
        change = (n - o) / o * 100 if o > 0 else (0.0 if n == 0 else float("inf"))
        moves.append((change, k))
    moves.sort(key=lambda m: -abs(m[0]))
    shown = moves if a.all else [m for m in moves if abs(m[0]) > a.threshold]
    what = "every matched row" if a.all else f"rows that moved by more than {a.threshold:g}%"
    print(f"\n{len(matched)} configurations in both; {what}: {len(shown)}")
    if shown:
        print(f"{'change':>8}  {'old':>9}  {'new':>9}  configuration")
        for change, k in shown:
            print(f"{change:+7.1f}%  {si(old[k][MEASURED]):>9}  {si(new[k][MEASURED]):>9}  {label(k)}")
    only_new = [k for k in new if k not in old]
    only_old = [k for k in old if k not in new]
    if only_new:
        print(f"\nonly in new ({len(only_new)}):")
        for k in only_new:
            print(f"  {si(new[k][MEASURED]):>9}  {label(k)}")
    if only_old and os.path.isfile(a.old):  # a folder of every suite holds far more than one run
        print(f"\nonly in old ({len(only_old)}):")
        for k in only_old:
            print(f"  {si(old[k][MEASURED]):>9}  {label(k)}")
    bad = [k for k in new if not new[k].get("verified", True)]
    if bad:
        print(f"\nNOT VERIFIED in new ({len(bad)}):")
        for k in bad:
            print(f"  {label(k)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
