#!/usr/bin/env python3
"""Generate BENCHMARKS.md from stm_bench JSON-lines result files.

    tools/bench_report.py results/            > BENCHMARKS.md   (the committed report)
    tools/bench_report.py --summary DIR                          (short table on stdout)

Every row is one stm_bench result (the median of its --repeat runs) with the
exact command that produced it. Nothing in the tables is typed by hand except
the reference figures of other code, which are quoted with their source.
"""
import glob
import json
import os
import sys

# Published figures of other code on the same card (shared anchors of this
# project: the public PR-STM code, the seeds' own code), quoted for comparison.
REFERENCE = {
    "bank": [
        ("public PR-STM code", "2,621,440 accounts, 6,720 threads", "0.99 G tx/s, 0.8% aborts, money NOT conserved"),
        ("public PR-STM code", "2,621,440 accounts, full occupancy", "2.95 G tx/s, 12% aborts, money NOT conserved"),
        ("public PR-STM code", "4,096 accounts, 6,720 threads", "70 M tx/s, 83% aborts, money NOT conserved"),
        ("public PR-STM code", "4,096 accounts, full occupancy", "35 M tx/s, 99.9% aborts, money NOT conserved"),
    ],
    "stack": [("a published GPU lock-free CAS stack (its paper's code)", "10k / 100k / 1M ops, one per thread", "1.85 / 0.36 / 0.08 M ops/s")],
    "queue": [("FAA ticket queue (research microbenchmark)", "1M-slot ring, full occupancy", "~34 G pairs/s")],
    "list": [("a published GPU lock-free Harris list library (Liu and Pak)", "10,000 nodes + 100,000 ops, 32x1024 threads", "96.9 ms (1.0 M ops/s), wrong final length")],
    "kmeans": [("STAMP kmeans, sequential, one CPU core", "1M points, 16 clusters, 5 iterations", "about 0.6 s")],
    "graph": [("ECL-CC (symmetrised graph), H100", "1M vertices, 10M / 700k uniform edges", "about 0.9 ms / 0.25 ms"),
              ("atomicMin push propagation, a warp per vertex, H100", "1M vertices, 10M uniform directed edges", "about 1.2 ms")],
    "skiplist": [("TinySTM intset skiplist (CPU)", "5,000 keys, range 10,000, 1 / 16 threads, 100% updates", "1.5 / 5.1 M tx/s"),
                 ("TinySTM intset skiplist (CPU)", "same, 20% updates", "2.1 / 16.0 M tx/s")],
}

# Columns shown per workload (after the common ones), if present.
PARAMS = ["variant", "accounts", "hash", "tpt", "cm_wait", "cm_backoff", "semantic", "read_only", "presort", "keys", "levels", "mix", "mode", "push_ratio", "capacity", "points", "clusters", "graph", "edges",
          "postponed_then_committed", "unresolved"]


def load(paths):
    rows = []
    for p in paths:
        files = sorted(glob.glob(os.path.join(p, "*.jsonl"))) if os.path.isdir(p) else [p]
        for f in files:
            with open(f) as fh:
                for n, line in enumerate(fh, 1):
                    line = line.strip()
                    if not line:
                        continue
                    try:
                        row = json.loads(line)
                        row["_suite"] = os.path.splitext(os.path.basename(f))[0]
                        rows.append(row)
                    except json.JSONDecodeError as e:
                        sys.exit(f"{f}:{n}: not JSON: {e}")
    return rows


def si(x):
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(x) >= scale:
            return f"{x / scale:.3g} {unit}"
    return f"{x:.3g}"


def fmt_aborts(a):
    if not isinstance(a, dict):
        return ""
    parts = [f"{k} {si(v)}" for k, v in a.items() if v]
    return ", ".join(parts) if parts else "none"


def table(rows):
    params = [p for p in PARAMS if any(p in r for r in rows)]
    who = "cm" if any("cm" in r for r in rows) else "impl"
    head = [who, "threads"] + params + ["throughput/s (median)", "min-max", "abort rate", "aborts by cause", "verified", "command"]
    out = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for r in rows:
        cells = [str(r.get(who, "")), str(r.get("threads", ""))]
        cells += [str(r.get(p, "")) for p in params]
        cells += [si(r.get("throughput", 0)),
                  f"{si(r.get('throughput_min', 0))}-{si(r.get('throughput_max', 0))}",
                  f"{100 * r['abort_rate']:.1f}%" if "abort_rate" in r else "",
                  fmt_aborts(r.get("aborts")),
                  "yes" if r.get("verified") else "**NO**",
                  f"`{r.get('command', '')}`"]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


# Side-by-side views: per result file, which field names the contenders (the
# columns) and which fields identify a point (the rows). Each cell is the
# median throughput of that contender at that point, with its abort rate.
PIVOTS = {
    "cmp": (("cm",), ("accounts", "threads", "hash")),
    "bank_semantic": (("cm", "presort"), ("read_only", "threads", "hash", "semantic", "accounts")),
    "vacation": (("impl", "cm", "presort"), ("preset", "read_only", "threads", "hash", "semantic")),
    "bank_drivers": (("cm", "driver", "opaque", "clock"), ("accounts", "threads")),
    "stack": (("impl", "cm", "elim_slots", "offer_ns"), ("threads", "ops")),
    "queue": (("impl", "cm"), ("mode", "threads")),
    "queue_tx": (("impl", "cm"), ("mode", "threads")),
    "stack_tx": (("impl", "cm"), ("threads", "ops")),
    "bank_layout_ab": (("variant", "cm"), ("accounts", "threads")),
    "bank_registers_ab": (("variant", "cm"), ("accounts", "threads")),
    "bank_prstm_backoff": (("cm", "cm_backoff"), ("accounts", "threads")),
    "bank_driver_ab": (("cm", "variant"), ("accounts", "threads")),
    "bank_driver_variants": (("cm", "variant", "cm_backoff"), ("accounts", "threads")),
    "bank_tuning": (("cm", "cm_wait", "cm_backoff"), ("accounts", "threads")),
    "list": (("impl",), ("mode", "keys", "threads", "ops")),
    "skiplist": (("cm", "priority"), ("mix", "read_only", "threads", "hash")),
    "bank_tpt_tail": (("cm",), ("accounts", "threads", "tpt")),
    "kmeans": (("impl", "cm", "block"), ("points", "threads", "hash")),
    "graph": (("impl", "cm"), ("graph", "edges", "threads", "hash")),
}
# Every other bank A/B file (bank_*_ab.jsonl): builds or run-time variants side by side.
AB_PIVOT = (("cm", "variant", "cm_backoff"), ("accounts", "threads", "read_only"))


def pivot_of(suite, rows):
    if suite in PIVOTS:
        return PIVOTS[suite]
    if suite.startswith("bank_") and suite.endswith("_ab"):
        who, keys = AB_PIVOT
        varied = tuple(f for f in who if len({str(r.get(f)) for r in rows}) > 1)  # a constant says nothing
        return varied or who[:1], keys
    return None


def contender(r, fields):
    parts = []
    for f in fields:
        v = r.get(f)
        if v is None:
            continue
        if f == "impl" and v == "tx" and "cm" in fields:
            continue  # "prstm" reads better than "tx prstm"
        if f == "cm" and (v in ("none", "native") or r.get("impl") == "native"):
            continue  # a native run has no manager
        if f == "presort":
            parts.append("presorted" if v else "unsorted")
        elif f == "elim_slots":
            parts.append(f"(elimination {v} slots/SM" if v else "(no elimination)")
        elif f == "cm_wait":
            parts.append(f"(wait {v} polls)" if v else "")
        elif f == "cm_backoff":
            parts.append(f"(back-off cap {v / 1e6:g} ms)" if v else "(default)")
        elif f == "block":
            parts.append(f"(block {v})")
        elif f == "priority":
            parts.append("(aging)" if v == "aging" else "")  # the paper's thread-id rule is the default
        elif f == "offer_ns":
            if r.get("elim_slots"):
                parts.append(f"{v} ns)")
        else:
            parts.append(str(v))
    return " ".join(p for p in parts if p)


def pivot(rows, who_fields, key_fields):
    keys = [k for k in key_fields if any(k in r for r in rows)]
    cols, points, cell = [], [], {}
    seen = {f: [] for f in who_fields}  # each contender field's values, in order of appearance
    rank = {}
    for r in rows:
        c = contender(r, who_fields)
        p = tuple(r.get(k, "") for k in keys)
        for f in who_fields:
            if r.get(f) not in seen[f]:
                seen[f].append(r.get(f))
        if c not in cols:
            cols.append(c)
            rank[c] = tuple(seen[f].index(r.get(f)) for f in who_fields)
        if p not in points:
            points.append(p)
        ab = f" ({100 * r['abort_rate']:.0f}% ab.)" if "abort_rate" in r else ""
        cell[(p, c)] = si(r.get("throughput", 0)) + ab + ("" if r.get("verified") else " **NOT VERIFIED**")
    cols.sort(key=lambda c: rank[c])  # grouped by the first field, then the next
    out = ["| " + " | ".join(keys + cols) + " |", "|" + " --- |" * (len(keys) + len(cols))]
    for p in points:
        out.append("| " + " | ".join([str(x) for x in p] + [cell.get((p, c), "") for c in cols]) + " |")
    return "\n".join(out)


# The opening headline table of each workload and container: the rows of its
# main result file (<workload>.jsonl) that pass the filter, by default only
# those at the file's largest launch (full occupancy), pivoted as (contender
# fields, point fields). The reference figures of other code follow each table.
# The bank's file holds its four anchor configurations, two launch sizes.
ALL_LAUNCHES, LARGEST = True, False
HEADLINES = [
    ("bank", ALL_LAUNCHES, lambda r: True, ("cm",), ("accounts", "threads")),
    ("vacation", LARGEST, lambda r: r.get("hash") == 1 and not r.get("presort") and not r.get("read_only")
     and (r.get("preset") == "high" or r.get("semantic") == 100), ("impl", "cm"), ("preset", "threads")),
    ("kmeans", LARGEST, lambda r: True, ("impl", "cm", "block"), ("points", "threads")),
    ("graph", LARGEST, lambda r: r.get("hash", 1) == 1, ("impl", "cm"), ("graph", "edges", "threads")),
    ("skiplist", LARGEST, lambda r: r.get("hash", 1) == 1, ("impl", "cm", "priority"), ("mix", "read_only", "threads")),
    ("stack", LARGEST, lambda r: True, ("impl", "cm"), ("threads", "ops")),
    ("queue", LARGEST, lambda r: True, ("impl", "cm"), ("mode", "threads")),
    ("list", LARGEST, lambda r: True, ("impl", "cm"), ("mode", "threads")),
]


def headlines(rows):
    out = ["## Headlines", "",
           "One table per workload and container: its main result file at its largest launch (full occupancy),",
           "every contender side by side (median throughput per second, abort rate), then the figures of other",
           "code it is measured against. Every row's command and the other sizes are in the sections below.", ""]
    for wl, all_launches, keep, who, keys in HEADLINES:
        rs = [r for r in rows if r.get("_suite") == wl and r.get("workload") == wl and keep(r)]
        if rs and not all_launches:
            top = max(r.get("threads", 0) for r in rs)
            rs = [r for r in rs if r.get("threads", 0) == top]
        if not rs:
            continue
        out += [f"### {wl} (`{wl}.jsonl`)", "", pivot(rs, who, keys), ""]
        if wl in REFERENCE:
            out += ["| reference code | configuration | result |", "| --- | --- | --- |"]
            out += [f"| {a} | {b} | {c} |" for a, b, c in REFERENCE[wl]]
            out.append("")
    return out


def report(rows, provenance=None, notes=None):
    out = ["# Benchmarks", "",
           "Generated by `tools/bench_report.py results/` from the JSON-lines files in `results/`; do not edit by hand.",
           "Each row is one `stm_bench` result: the median of `--repeat` runs after a warm-up, GPU time measured",
           "with CUDA events, verified after every run. Reproduce a row by running its command on the same device",
           "(`tools/gpu_check.sh OUT` runs them all).", ""]
    out += headlines(rows)
    if provenance:
        out += ["## Where these results come from", ""] + provenance + [""]
    if notes:
        out += notes + [""]
    by_wl = {}
    for r in rows:
        # Rows without a workload are not stm_bench results (reliability.jsonl:
        # histories checked, tabled by tools/reliability_rows.py --table).
        if "workload" in r:
            by_wl.setdefault(r["workload"], []).append(r)
    for wl in sorted(by_wl):
        rs = by_wl[wl]
        devices = sorted({r.get("device", "?") for r in rs})
        out += [f"## {wl}", "", "Device: " + ", ".join(devices), ""]
        suites = sorted({r.get("_suite", "") for r in rs})
        for suite in suites:  # one table per result file (suite)
            if len(suites) > 1:
                out += [f"### {suite}", ""]
            srows = [r for r in rs if r.get("_suite", "") == suite]
            view = pivot_of(suite, srows)
            if view:
                out += ["Side by side (throughput per second, median; abort rate where the run has one):", "",
                        pivot(srows, *view), "", "Every run, with its command:", ""]
            out += [table(srows), ""]
        if wl in REFERENCE:
            out += ["Reference figures of other code on an H200 (from the project's anchor measurements):", "",
                    "| code | configuration | result |", "| --- | --- | --- |"]
            out += [f"| {a} | {b} | {c} |" for a, b, c in REFERENCE[wl]]
            out.append("")
    return "\n".join(out)


def summary(rows):
    for r in rows:
        who = r.get("cm", r.get("impl", ""))
        extra = " ".join(f"{p}={r[p]}" for p in PARAMS if p in r)
        ab = f" aborts={100 * r['abort_rate']:.1f}%" if "abort_rate" in r else ""
        print(f"{r.get('workload')}/{who} threads={r.get('threads')} {extra}: {si(r.get('throughput', 0))}/s{ab}"
              f" verified={r.get('verified')}")


def main(argv):
    if len(argv) >= 2 and argv[0] == "--summary":
        summary(load(argv[1:]))
        return
    if not argv:
        sys.exit("usage: bench_report.py RESULTS_DIR_OR_FILES... > BENCHMARKS.md | --summary DIR")
    provenance, notes = [], []
    for p in argv:  # a results folder may describe its files in README.md (a table: file, device, commit, what)
        readme = os.path.join(p, "README.md")
        if os.path.isdir(p) and os.path.exists(readme):
            with open(readme) as fh:
                provenance += [line.rstrip("\n") for line in fh if line.startswith("|")]
        findings = os.path.join(p, "FINDINGS.md")  # what the figures say, written from them (included verbatim)
        if os.path.isdir(p) and os.path.exists(findings):
            with open(findings) as fh:
                notes += [line.rstrip("\n") for line in fh]
    print(report(load(argv), provenance, notes))


if __name__ == "__main__":
    main(sys.argv[1:])
