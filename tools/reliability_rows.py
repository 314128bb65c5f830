#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Histories checked by the linearizability tests, per container, backend and mode.

The test programs print one object per linearizability test and append it to
$STM_RELIABILITY_OUT (tests/support/reliability.hpp). This script sums them:

  tools/reliability_rows.py RAW.jsonl... [--commit C]          # summed rows, JSON lines, on stdout
  tools/reliability_rows.py RAW.jsonl... --commit C --merge results/reliability.jsonl
                                                                # replace the rows of the same
                                                                # container, backend, mode and device
  tools/reliability_rows.py --table results/reliability.jsonl  # a markdown table (results/experiments/LOG.md quotes it)
                                                                # (a line per container)

Row keys: container, backend, mode (natural | perturbed), histories, violations,
undecided (histories the checker gave up on: not violations; 0 when the raw
lines predate the key), device, commit (and perturb_rate when the raw lines
carry it).
"""
import argparse
import json
import sys

KEY = ("container", "backend", "mode", "device")


def read_rows(paths):
    rows = []
    for p in paths:
        with open(p) as f:
            for n, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as e:
                    sys.exit(f"{p}:{n}: not JSON ({e})")
    return rows


def summed(rows, commit):
    out = {}
    for r in rows:
        missing = [k for k in KEY + ("histories", "violations") if k not in r]
        if missing:
            sys.exit(f"a row lacks {', '.join(missing)}: {r}")
        k = tuple(r[x] for x in KEY)
        acc = out.setdefault(k, {x: r[x] for x in KEY} | {"histories": 0, "violations": 0, "undecided": 0})
        acc["histories"] += int(r["histories"])
        acc["violations"] += int(r["violations"])
        acc["undecided"] += int(r.get("undecided", 0))
        if commit:
            acc["commit"] = commit
        elif "commit" in r:
            acc["commit"] = r["commit"]
    return sorted(out.values(), key=lambda r: tuple(str(r[x]) for x in KEY))


def cell(histories, violations, undecided):
    return f"{histories:,} / {violations}" + (f" (+ {undecided} undecided)" if undecided else "")


def table(rows):
    """One line per container, one column per backend and mode: histories / violations (+ undecided)."""
    cols = sorted({(r["backend"], r["mode"]) for r in rows})
    cells = {}
    for r in rows:
        k = (r["container"], r["backend"], r["mode"])
        h, v, u = cells.get(k, (0, 0, 0))
        cells[k] = (h + int(r["histories"]), v + int(r["violations"]), u + int(r.get("undecided", 0)))
    lines = ["| container | " + " | ".join(f"{b} {m}" for b, m in cols) + " |",
             "| --- |" + " ---: |" * len(cols)]
    for c in sorted({r["container"] for r in rows}):
        row = [cell(*cells[(c, b, m)]) if (c, b, m) in cells else "" for b, m in cols]
        lines.append(f"| {c} | " + " | ".join(row) + " |")
    where = sorted({f"{r['backend']} {r['mode']}: {r['device']} at {r.get('commit', '?')}" for r in rows})
    return "\n".join(lines) + "\n\nHistories checked / violations (+ undecided, where any). " + "; ".join(where) + "."


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("raw", nargs="*", help="files of raw lines (STM_RELIABILITY_OUT)")
    ap.add_argument("--commit", default="", help="commit the rows were measured at")
    ap.add_argument("--merge", metavar="FILE", help="merge the summed rows into FILE (in place)")
    ap.add_argument("--table", metavar="FILE", help="print FILE's rows as a markdown table")
    a = ap.parse_args()
    if a.table:
        print(table(read_rows([a.table])))
        return
    if not a.raw:
        ap.error("no raw files given")
    rows = summed(read_rows(a.raw), a.commit)
    if a.merge:
        try:
            kept = read_rows([a.merge])
        except FileNotFoundError:
            kept = []
        new_keys = {tuple(r[x] for x in KEY) for r in rows}
        kept = [r for r in kept if tuple(r.get(x) for x in KEY) not in new_keys]
        with open(a.merge, "w") as f:
            for r in sorted(kept + rows, key=lambda r: tuple(str(r[x]) for x in KEY)):
                f.write(json.dumps(r) + "\n")
    else:
        for r in rows:
            print(json.dumps(r))


if __name__ == "__main__":
    main()
