#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Summary of tools/experiments/one_shot/run.sh: per build, point and variant
the throughput of each round (each already the median of --repeat 3), their
mean, the native baseline's ratio over it, and the tx rows' aborts by cause
per commit. The issue's targets: tx_skiplist within 5x of the native skiplist
at 50/50/0 and within 3x at 20/20/60; tx_set within 5x of the bucketed list
at 20/20/60 (each against the native rows of the same build and round).

    tools/experiments/one_shot/summary.py OUTDIR
"""
import json
import os
import sys
from collections import defaultdict

TARGET = {("skiplist", "50/50/0"): 5.0, ("skiplist", "20/20/60"): 3.0, ("list", "20/20/60"): 5.0}
NATIVE = {"skiplist": "native", "list": "bucketed"}


def main():
    out = sys.argv[1]
    rows = defaultdict(list)  # (build, workload, mix, variant) -> [row, ...] in file order (rounds)
    for build in ("tx", "direct", "rt"):
        path = os.path.join(out, build + ".jsonl")
        if not os.path.exists(path):
            continue
        for line in open(path):
            line = line.strip()
            if not line:
                continue
            r = json.loads(line)
            impl = r.get("impl")
            variant = impl if impl != "tx" else "tx/" + r.get("one_shot", "tx")
            rows[(build, r["workload"], r.get("mix", ""), variant)].append(r)
    if not rows:
        sys.exit("no rows in " + out)
    print(f"{'build':7s} {'point':18s} {'variant':18s} {'M ops/s per round':24s} {'mean':>8s} {'native/x':>9s} "
          f"{'verified':8s} aborts per commit (read_locked validation prelock lock semantic)")
    for key in sorted(rows):
        build, wl, mix, variant = key
        rs = rows[key]
        tp = [r["throughput"] / 1e6 for r in rs]
        mean = sum(tp) / len(tp)
        nat = rows.get((build, wl, mix, NATIVE.get(wl, "")))
        if nat is None and build == "rt":  # rt runs --impl tx only: the direct build's native rows
            nat = rows.get(("direct", wl, mix, NATIVE.get(wl, ""))) or rows.get(("tx", wl, mix, NATIVE.get(wl, "")))
        ratio = ""
        if nat and variant.startswith("tx"):
            nmean = sum(r["throughput"] for r in nat) / len(nat) / 1e6
            x = nmean / mean
            t = TARGET.get((wl, mix))
            ratio = f"{x:8.2f}x" + ("" if t is None else (" ok" if x <= t else f" (>{t:g}x)"))
        ver = all(r.get("verified") for r in rs)
        ab = ""
        if variant.startswith("tx"):
            c = sum(r.get("commits", 0) for r in rs) or 1
            a = defaultdict(int)
            for r in rs:
                for k, v in (r.get("aborts") or {}).items():
                    a[k] += v
            ab = " ".join(f"{a[k] / c:.2f}" for k in ("read_locked", "validation", "prelock", "lock", "semantic"))
        print(f"{build:7s} {wl + ' ' + mix:18s} {variant:18s} {' '.join(f'{t:7.1f}' for t in tp):24s} {mean:8.1f} "
              f"{ratio:>9s} {str(ver):8s} {ab}")


if __name__ == "__main__":
    main()
