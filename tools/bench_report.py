#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Generate BENCHMARKS.md from stm_bench JSON-lines result files.

    tools/bench_report.py results/ > BENCHMARKS.md   (the committed report)
    tools/bench_report.py --summary DIR              (short table on stdout; tools/gpu_check.sh)

The report opens with one headline table per workload and container: the rows of
results/headline.jsonl (tools/gpu_suites/headline/run.sh measures all of them at
one commit), or, for a workload that file does not hold yet, the full-occupancy
rows of its own suite's file. Each table states the device and commit it was
measured on. Then the figures (results/figures/*.svg, drawn by
tools/plot_results.py) and a short provenance table. Nothing in the tables is
typed by hand except the reference figures of other code, quoted with their
source. Every row's command is in its result file; the dated narrative is
results/experiments/LOG.md, the decisions docs/design-decisions.md.
"""
import glob
import json
import os
import re
import sys

# Published figures of other code on the same card (shared anchors of this
# project: the public PR-STM code, the seeds' own code), quoted for comparison.
REFERENCE = {
    "bank": [
        ("public PR-STM code", "2,621,440 accounts, 6,720 threads", "0.99 G tx/s, money NOT conserved"),
        ("public PR-STM code", "2,621,440 accounts, full occupancy", "2.95 G tx/s, money NOT conserved"),
        ("public PR-STM code", "4,096 accounts, 6,720 threads", "70 M tx/s, money NOT conserved"),
        ("public PR-STM code", "4,096 accounts, full occupancy", "35 M tx/s, money NOT conserved"),
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

# Columns of the --summary lines, if present.
PARAMS = ["variant", "accounts", "hash", "tpt", "cm_wait", "cm_backoff", "semantic", "read_only", "presort", "keys",
          "levels", "mix", "mode", "push_ratio", "capacity", "points", "clusters", "graph", "edges",
          "postponed_then_committed", "unresolved"]

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Threads of a full-occupancy launch on an H100/H200 (132 SMs x 2,048), used
# only to pick the per-suite rows of a workload that headline.jsonl lacks.
FULL = 270336

# One headline table per workload and container: (title, workload, contender
# fields (columns), point fields (rows), the per-suite files that stand in
# when headline.jsonl has no row of it, and which of their rows).
HEADLINES = [
    ("Bank: the anchor configurations", "bank", ("impl", "cm"), ("accounts", "threads"),
     ["bank"], lambda r: r.get("mode") == "timed" and r.get("semantic", 0) == 0),
    ("Vacation: presets paper (sold-out pairs) and high, full occupancy", "vacation",
     ("impl", "cm", "priority"), ("preset", "threads"),
     ["vacation"], lambda r: r.get("threads") == FULL and r.get("hash") == 1 and not r.get("presort")
     and not r.get("read_only") and (r.get("preset") == "high" or r.get("semantic") == 100)),
    ("Skiplist: 5,000 keys in 5 levels and 1M keys in 16, full occupancy, one launch of 1M operations", "skiplist",
     ("impl", "cm", "priority"), ("keys", "levels", "mix", "threads"),
     ["skiplist"], lambda r: r.get("threads") == FULL and r.get("mode") == "ops" and r.get("ops") == 1000000
     and r.get("mix") in ("50/50/0", "20/20/60")),
    ("K-means: 1M points, 16 clusters, 5 iterations", "kmeans", ("impl", "cm", "block"), ("points", "threads"),
     ["kmeans"], lambda r: r.get("threads") == FULL and r.get("block", 1024) == 1024),
    ("Graph: minimum propagation, 1M vertices", "graph", ("impl", "cm"), ("graph", "edges", "threads"),
     ["graph"], lambda r: r.get("threads") == FULL and r.get("edges") == 10000000 and r.get("graph") == "uniform"),
    ("Stacks: 50% pushes", "stack", ("impl", "cm"), ("threads", "ops"),
     ["stack", "stack_tx"], lambda r: r.get("threads") == FULL),
    ("Queues: one enqueue/dequeue pair per thread (prodcons: one producer for three consumers)", "queue",
     ("impl", "cm"), ("mode", "threads"),
     ["queue", "queue_tx"], lambda r: r.get("threads") == FULL),
    ("Lists and sets: the seed format's replay, and the 20/20/60 mix over 10,000 keys", "list",
     ("impl", "cm"), ("mode", "ops", "threads"),
     ["list"], lambda r: r.get("threads") == FULL or (r.get("mode") == "seed-replay" and r.get("ops") == 100000
                                                     and r.get("threads") == 32768)),
]

# The figures of tools/plot_results.py, in the order the report shows them.
FIGURES = [
    ("bank_threads.svg", "Bank: throughput against threads, every manager (lock coverage 1)"),
    ("bank_lock_coverage.svg", "Bank: throughput against lock coverage (accounts per lock), 6,720 threads"),
    ("semantic_threads.svg", "Semantic conflicts: throughput against threads, presorted or not (bank and vacation)"),
    ("semantic_lock_coverage.svg", "Semantic conflicts: throughput against lock coverage, presorted or not"),
    ("semantic_ratio.svg", "Semantic conflicts: throughput against the semantic ratio, presorted or not"),
    ("skiplist_threads.svg", "Skiplist: throughput against threads and lock coverage, prstm and gpustm"),
    ("native_vs_tx_workloads.svg", "Native against transactional: every workload, full occupancy"),
    ("native_vs_tx_containers.svg", "Native against transactional: every container, full occupancy"),
    ("multi_gpu_cross.svg", "Several GPUs: the partitioned bank against the share of transfers between GPUs"),
    ("scaling_threads.svg", "Scaling: throughput against threads, every manager and the native baseline"),
]


def load(paths):
    """Every row of the given files, or of the *.jsonl files of the given folders
    (not their subfolders: results/experiments/ is not part of the report)."""
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
                    except json.JSONDecodeError as e:
                        sys.exit(f"{f}:{n}: not JSON: {e}")
                    if not isinstance(row, dict):
                        sys.exit(f"{f}:{n}: not a JSON object")
                    row["_suite"] = os.path.splitext(os.path.basename(f))[0]
                    rows.append(row)
    return rows


def si(x):
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(x) >= scale:
            return f"{x / scale:.3g} {unit}"
    return f"{x:.3g}"


# Where the transactional form is the workload itself, its column is named by
# the manager alone ("prstm"); a container's reads "tx prstm" beside the native ones.
MANAGER_ONLY = {"bank", "vacation", "skiplist", "kmeans", "graph"}


def manager_of(r):
    return r.get("cm", r.get("tx_cm"))  # rows of the first queue runs called it tx_cm


def contender(r, fields):
    parts = []
    for f in fields:
        v = manager_of(r) if f == "cm" else r.get(f)
        if v is None or v == "":
            continue
        if f == "impl" and v == "tx" and "cm" in fields and r.get("workload") in MANAGER_ONLY:
            continue  # "prstm" reads better than "tx prstm"
        if f == "cm" and (v in ("none", "native") or r.get("impl") == "native"):
            continue  # a native run has no manager
        if f == "block":
            parts.append(f"(block {v:,})" if isinstance(v, int) else f"(block {v})")
        elif f == "priority":
            parts.append("(aging)" if v == "aging" else "")  # the paper's thread-id rule is the default
        else:
            parts.append(str(v))
    return " ".join(p for p in parts if p)


def point_value(k, v):
    if k == "threads" and v == FULL:
        return f"{v:,} (full)"
    return f"{v:,}" if isinstance(v, int) and not isinstance(v, bool) else str(v)


def transactional(r):
    """Whether a row measured a transactional form (impl tx, tx-..., or a manager without an impl,
    as the bank's rows) rather than a native one (impl native or a named native structure)."""
    impl = r.get("impl")
    if impl is None:
        return manager_of(r) not in (None, "none", "native")
    return str(impl).startswith("tx")


def pivot(rows, who_fields, key_fields):
    """Contenders side by side: one row per point, one column per contender,
    each cell the median throughput per second (abort rate where there is one);
    where a point has verified native and transactional rows, a last column
    gives the best native throughput over the best transactional one."""
    keys = [k for k in key_fields if any(k in r for r in rows)]
    cols, points, cell, last = [], [], {}, {}
    seen = {f: [] for f in who_fields}
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
        last[(p, c)] = r
    best = {}  # (point, transactional) -> the best verified throughput among the rows shown
    for (p, _c), r in last.items():
        if r.get("verified") and isinstance(r.get("throughput"), (int, float)):
            k = (p, transactional(r))
            best[k] = max(best.get(k, 0), r["throughput"])
    # native first, then in order of appearance grouped by the first field
    cols.sort(key=lambda c: (c != "native", rank[c]))
    ratio = any((p, True) in best and (p, False) in best for p in points)
    extra = ["native / tx"] if ratio else []
    out = ["| " + " | ".join(keys + cols + extra) + " |", "|" + " --- |" * (len(keys) + len(cols) + len(extra))]
    for p in points:
        r_cell = []
        if ratio:
            n, t = best.get((p, False)), best.get((p, True))
            r_cell = [(f"{n / t:,.0f}x" if n / t >= 100 else f"{n / t:.1f}x") if n and t else ""]
        out.append("| " + " | ".join([point_value(k, x) for k, x in zip(keys, p)] + [cell.get((p, c), "")
                                                                                     for c in cols] + r_cell) + " |")
    return "\n".join(out)


def provenance_table(results_dir):
    """results/README.md's table: file name -> [(device, commit, what)], in order."""
    prov = {}
    readme = os.path.join(results_dir, "README.md") if results_dir else None
    if not readme or not os.path.exists(readme):
        return prov
    with open(readme) as fh:
        for line in fh:
            if not line.startswith("| `"):
                continue
            cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
            if len(cells) < 4:
                continue
            m = re.match(r"`([^`]+)`", cells[0])
            if m:
                prov.setdefault(m.group(1), []).append((cells[1], cells[2], cells[3]))
    return prov


def headline_sets(rows):
    """(title, workload, rows, contender fields, point fields, source files) per
    headline table: headline.jsonl's rows of the workload, else its suite's."""
    head = [r for r in rows if r.get("_suite") == "headline"]
    out = []
    for title, wl, who, keys, files, keep in HEADLINES:
        rs = [r for r in head if r.get("workload") == wl]
        source = ["headline"]
        if not rs:
            rs = [r for r in rows if r.get("_suite") in files and r.get("workload") == wl and keep(r)]
            source = sorted({r["_suite"] for r in rs})
        if rs:
            out.append((title, wl, rs, who, keys, source))
    return out


def shown(rs, who, keys):
    """The rows a pivot shows: the last one of each (contender, point)."""
    last = {}
    for r in rs:
        last[(contender(r, who), tuple(r.get(k, "") for k in keys))] = r
    return list(last.values())


def measured_on(rs, source, prov):
    devices = sorted({str(r.get("device", "?")) for r in rs})
    commits = sorted({str(r["commit"]) for r in rs if r.get("commit")})
    files = ", ".join(f"`results/{s}.jsonl`" for s in source)
    listed = []  # rows written before they carried a commit: results/README.md says which
    if any(not r.get("commit") for r in rs):
        for s in source:
            listed += [c for _d, c, _w in prov.get(f"{s}.jsonl", []) if c not in listed]
    if not listed:
        text = f"Device: {', '.join(devices)}. Commit: {', '.join(commits) or 'not recorded'}"
    elif commits:
        text = f"Device: {', '.join(devices)}. Commit: {', '.join(commits)}; rows without one: {' / '.join(listed)} (results/README.md)"
    else:
        text = f"Device: {', '.join(devices)}. Commit: {' / '.join(listed)} (results/README.md; the rows carry none)"
    return f"{text}. Rows: {files}."


def headlines(rows, prov):
    out = ["## Headlines", "",
           "Median throughput per second of 3 runs after a warm-up, every run verified (abort rate in brackets).",
           "Tables fed by `results/headline.jsonl` were all measured in one run at one commit;",
           "the others still show their own suite's last full-occupancy rows.", ""]
    for title, wl, rs, who, keys, source in headline_sets(rows):
        out += [f"### {title}", "", measured_on(shown(rs, who, keys), source, prov), "", pivot(rs, who, keys), ""]
        if wl in REFERENCE:
            out += ["| reference code | configuration | result |", "| --- | --- | --- |"]
            out += [f"| {a} | {b} | {c} |" for a, b, c in REFERENCE[wl]]
            out.append("")
    return out


def multi_gpu(rows):
    """The partitioned bank over NVSHMEM (results/multi_gpu.jsonl): each GPU count and
    share of transfers between GPUs, against one GPU of the same program and the plain bank."""
    mg = [r for r in rows if r.get("_suite") == "multi_gpu" and isinstance(r.get("throughput"), (int, float))]
    pe = [r for r in mg if r.get("pe_transport") == "nvshmem"]
    if not pe:
        return []
    plain = {r.get("threads"): r["throughput"] for r in mg if r.get("pes") is None}
    one = {r.get("threads"): r["throughput"] for r in pe if r.get("pes") == 1}
    devices = sorted({str(r.get("device", "?")) for r in mg})
    commits = sorted({str(r.get("commit")) for r in mg if r.get("commit")})
    out = ["### Several GPUs: the partitioned bank (transfers only, PR-STM over NVSHMEM)", "",
           f"Device: {', '.join(devices)} (one host). Commit: {', '.join(commits) or 'not recorded'}. "
           f"Rows: `results/multi_gpu.jsonl` ({pe[0].get('accounts', 0):,} accounts in all, 64 transfers per thread). "
           "Threads per GPU: at most 2^19 / GPUs (the priorities are unique across GPUs; docs/multi-gpu.md).", "",
           "| GPUs | threads per GPU | % between GPUs | throughput | x 1 GPU, same program (nearest threads) | x 1 GPU, plain bank |",
           "| --- | --- | --- | --- | --- | --- |"]
    best_plain = max(plain.values()) if plain else None
    for r in sorted(pe, key=lambda r: (r.get("pes", 0), r.get("cross", 0))):
        t = r.get("threads")
        near = min(one, key=lambda k: abs(k - t)) if one else None  # 1 GPU at the nearest thread count
        same = f"{r['throughput'] / one[near]:.2f}x" if near else ""
        vs = f"{r['throughput'] / best_plain:.2f}x" if best_plain else ""
        out.append(f"| {r.get('pes')} | {t:,} | {r.get('cross', 0):g} | {si(r['throughput'])} | {same} | {vs} |")
    out.append("")
    return out


def scaling_config(r):
    """The configuration a scaling row belongs to, managers and thread counts aside (the
    report's table and tools/plot_results.py's panels). A native array row, which has no
    validation mode, goes with the opaque transactions of its shape; a native k-means row with
    tx-aggregated."""
    w = r["workload"]
    if w == "array":
        v = r.get("validation")
        return f"array R={r.get('reads')} N={r.get('words', 0):,} {v if v not in (None, 'none') else 'opaque'}"
    if w == "vacation":
        return f"vacation {r.get('preset')}"
    if w == "skiplist":
        return f"skiplist {r.get('mix')}"
    if w == "bank":
        return f"bank {r.get('accounts', 0):,} accounts"
    if w == "kmeans":  # the native update is warp-aggregated atomics: tx-aggregated's like
        impl = r.get("impl")
        return f"kmeans {'tx-aggregated' if impl == 'native' else impl}"
    return w


def scaling(rows):
    """The scaling suite (results/scaling.jsonl): one row per configuration, one column per manager and
    the native baseline (fine-grained locks); each cell is the throughput at full occupancy and, in
    brackets, its share of that manager's best point of the thread sweep (a collapse is below 0.9).
    The last columns: prstm against the best manager at full occupancy, and against the native
    baseline."""
    sc = [r for r in rows if r.get("_suite") == "scaling" and isinstance(r.get("throughput"), (int, float))]
    if not sc:
        return []
    groups = {}
    for r in sc:
        who = "native" if r.get("impl") == "native" else r.get("cm", "?")
        groups.setdefault(scaling_config(r), {}).setdefault(who, {})[r.get("threads")] = r["throughput"]
    full = max(r.get("threads", 0) for r in sc)
    devices = sorted({str(r.get("device", "?")) for r in sc})
    commits = sorted({str(r.get("commit")) for r in sc if r.get("commit")})
    known = ["native", "prstm", "gpustm", "backoff", "delay"]
    seen = {who for by in groups.values() for who in by}
    whos = [w for w in known if w in seen] + sorted(seen - set(known))
    out = ["### Scaling: full occupancy against the best of the thread sweep", "",
           f"Device: {', '.join(devices)}. Commit: {', '.join(commits) or 'not recorded'}. "
           "Rows: `results/scaling.jsonl` (`tools/gpu_suites/scaling/run.sh`, or the configurations of it that "
           "were run; each row's command is in the file).", "",
           f"Each cell: the throughput at full occupancy ({full:,} threads) and, in brackets, its share of the "
           "same manager's best point of the thread sweep (below 0.90: throughput falls as threads are added); "
           "empty: not run; \"not measured\": the sweep stopped before full occupancy. The array's points up to "
           "67,584 threads run the same transactions in all; its full-occupancy point runs as many a thread as "
           "the 67,584 point (docs/design-decisions.md#array-full-point).", "",
           "| configuration | " + " | ".join(whos) + " | prstm / best manager | prstm / native |",
           "| --- | " + " | ".join("---" for _ in whos) + " | --- | --- |"]
    for cfg, by in sorted(groups.items()):
        cells = []
        for who in whos:
            pts = by.get(who)
            if not pts:
                cells.append("")
                continue
            f = pts.get(full)
            cells.append(f"{si(f)} ({f / max(pts.values()):.2f})" if f is not None else "not measured")
        at_full = {who: pts[full] for who, pts in by.items() if full in pts}
        tx_full = [v for who, v in at_full.items() if who != "native"]
        p = at_full.get("prstm")
        # Against the best manager only where another manager reached full occupancy too.
        vs_best = f"{p / max(tx_full):.2f}" if p is not None and len(tx_full) > 1 else ""
        vs_native = f"{p / at_full['native']:.2f}" if p is not None and at_full.get("native") else ""
        out.append(f"| {cfg} | " + " | ".join(cells) + f" | {vs_best} | {vs_native} |")
    out.append("")
    return out


def figures(results_dir):
    out = ["## Figures", "",
           "Drawn from `results/*.jsonl` by `tools/plot_results.py results/ results/figures/`.", ""]
    fig_dir = os.path.join(results_dir, "figures") if results_dir else None
    shown = 0
    for name, caption in FIGURES:
        if fig_dir and os.path.exists(os.path.join(fig_dir, name)):
            out += [f"**{caption}**", "", f"![{caption}](results/figures/{name})", ""]
            shown += 1
    if not shown:
        out += ["(No figure drawn yet: `tools/setup.sh --plot`, then the command above.)", ""]
    return out


def provenance(rows, prov):
    out = ["## Provenance", "",
           "| file | rows | device | commit | produced by |", "| --- | --- | --- | --- | --- |"]
    by_suite = {}
    for r in rows:
        by_suite.setdefault(r["_suite"], []).append(r)
    for suite in sorted(by_suite):
        rs = by_suite[suite]
        name = f"{suite}.jsonl"
        devices = sorted({str(r.get("device", r.get("backend", "?"))) for r in rs})
        entries = prov.get(name, [])
        commits = sorted({str(r["commit"]) for r in rs if r.get("commit")})
        if any(not r.get("commit") for r in rs):
            commits += [c for _d, c, _w in entries if c not in commits]
        script = ""
        for f in sorted(glob.glob(os.path.join(ROOT, "tools", "gpu_suites", "*.sh"))):
            with open(f) as fh:
                if f"RESULTS/{name}" in fh.read():
                    script = os.path.relpath(f, ROOT)
                    break
        if suite == "headline":
            script = "tools/gpu_suites/headline/run.sh"
        producer = f"`{script}`" if script else "see results/README.md"
        dev = ", ".join(d.replace("NVIDIA ", "") for d in devices)
        com = "; ".join(commits) if commits else "not recorded"
        out.append(f"| `results/{name}` | {len(rs)} | {dev} | {com} | {producer} |")
    out += ["",
            "Every file, its device, commit and exact command: [results/README.md](results/README.md). One-off",
            "experiment logs (A/B runs): `results/experiments/`; the dated narrative of every measurement round:",
            "[results/experiments/LOG.md](results/experiments/LOG.md); the decisions those measurements",
            "settled: [docs/design-decisions.md](docs/design-decisions.md).", ""]
    return out


def report(rows, results_dir=None):
    prov = provenance_table(results_dir)
    out = ["# Benchmarks", "",
           "Generated by `tools/bench_report.py results/ > BENCHMARKS.md`; do not edit by hand. On an H100/H200,",
           "`tools/gpu_suites/headline/run.sh build-gpu/stm_bench OUT` measures every headline row at the",
           "current commit (about 6.5 minutes), compares it with the previous run (`tools/compare_results.py`:",
           "every row that moved by more than 10%) and regenerates this file and the figures.", ""]
    out += headlines(rows, prov)
    out += multi_gpu(rows)
    out += scaling(rows)
    out += figures(results_dir)
    out += provenance(rows, prov)
    return "\n".join(out).rstrip("\n") + "\n"


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
        return 0
    if len(argv) != 1 or argv[0].startswith("-"):
        print("usage: bench_report.py RESULTS_DIR > BENCHMARKS.md | --summary DIR_OR_FILES...", file=sys.stderr)
        return 2
    if not os.path.isdir(argv[0]):
        print(f"bench_report.py: {argv[0]}: not a folder", file=sys.stderr)
        return 2
    rows = [r for r in load(argv) if "workload" in r]  # reliability and long_tx rows are not stm_bench results
    sys.stdout.write(report(rows, argv[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
