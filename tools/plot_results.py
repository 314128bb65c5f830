#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Draw the report's figures from stm_bench JSON-lines result files, as SVG.

    tools/plot_results.py results/ results/figures/

Needs matplotlib (`tools/setup.sh --plot`). Draws, from the files of the
results folder (each figure names its source rows in its title):
  bank_threads.svg             throughput against threads, every manager (cmp.jsonl, lock coverage 1)
  bank_lock_coverage.svg       against lock coverage at 6,720 threads (cmp.jsonl)
  semantic_threads.svg         against threads, semantic ratio 100%, presorted or not
                               (bank_semantic.jsonl, vacation.jsonl: the PR-STM paper's figure 7)
  semantic_lock_coverage.svg   against lock coverage (figure 8)
  semantic_ratio.svg           against the semantic ratio (figure 9)
  skiplist_threads.svg         the skiplist against threads and lock coverage (figures 10-11)
  native_vs_tx_workloads.svg   native against transactional, every workload, full occupancy
  native_vs_tx_containers.svg  the same for every container
  multi_gpu_cross.svg          the partitioned bank on 1, 2 and 4 GPUs against the share of
                               transfers between GPUs (multi_gpu.jsonl), beside one GPU's plain bank
  scaling_threads.svg          throughput against threads, one panel per workload configuration of
                               the scaling suite and one line per manager and the native baseline
                               (scaling.jsonl, tools/gpu_suites/scaling/run.sh)
The last two read results/headline.jsonl where it holds the workload, else the
workload's own file (the rows BENCHMARKS.md's headline tables show). A figure
whose rows are missing is skipped with a note; the exit status is 1 only when
no figure could be drawn, 2 on bad arguments.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_report  # noqa: E402  (the row loader and the headline tables' choice of rows)

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("plot_results.py: matplotlib is missing (tools/setup.sh --plot, or apt-get install python3-matplotlib)",
          file=sys.stderr)
    sys.exit(2)

plt.rcParams.update({
    "svg.fonttype": "none",    # text as text: small files, searchable
    "svg.hashsalt": "prstm",   # stable element ids: a figure changes only when its data does
    "font.size": 9,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "figure.dpi": 72,
})
MANAGERS = ["prstm", "gpustm", "backoff", "delay"]
STYLE = {"prstm": ("C0", "o"), "gpustm": ("C3", "s"), "backoff": ("C2", "^"), "delay": ("C1", "v"),
         "prstm (aging)": ("C4", "D"), "native": ("k", "x")}


def rows_of(rows, suite, **want):
    """The rows of results/<suite>.jsonl whose fields equal want (a callable tests the value)."""
    out = []
    for r in rows:
        if r.get("_suite") != suite:
            continue
        if all(w(r.get(k)) if callable(w) else r.get(k) == w for k, w in want.items()):
            out.append(r)
    return out


def series(rs, x):
    """(xs, ys) sorted by x; the last row of each x wins (files grow by appending)."""
    pts = {}
    for r in rs:
        if isinstance(r.get(x), (int, float)) and isinstance(r.get("throughput"), (int, float)):
            pts[r[x]] = r["throughput"]
    xs = sorted(pts)
    return xs, [pts[v] for v in xs]


def device_of(rs):
    devs = sorted({str(r.get("device", "?")).replace("NVIDIA ", "") for r in rs})
    return ", ".join(devs)


def save(fig, out_dir, name, drawn):
    path = os.path.join(out_dir, name)
    fig.savefig(path, format="svg", metadata={"Date": None}, bbox_inches="tight")
    plt.close(fig)
    drawn.append(path)


def axes_row(n, width=4.2, height=3.0):
    fig, axes = plt.subplots(1, n, figsize=(width * n, height), squeeze=False)
    return fig, list(axes[0])


def finish(ax, xlabel, ylabel="throughput / s", logx=True, logy=True):
    if logx:
        ax.set_xscale("log", base=2)
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)


def bank_managers(rows, out_dir, drawn, name, x, fixed, xlabel):
    panels = [(2621440, "2,621,440 accounts"), (4096, "4,096 accounts")]
    got = [rows_of(rows, "cmp", accounts=a, **fixed) for a, _ in panels]
    if not any(got):
        return f"{name}: no rows in cmp.jsonl"
    fig, axes = axes_row(2)
    for ax, (acc, title), rs in zip(axes, panels, got):
        for cm in MANAGERS:
            xs, ys = series([r for r in rs if r.get("cm") == cm], x)
            if xs:
                c, m = STYLE[cm]
                ax.plot(xs, ys, marker=m, color=c, label=cm)
        ax.set_title(f"bank, {title}")
        finish(ax, xlabel, "committed tx / s")
        ax.legend()
    fig.suptitle(f"results/cmp.jsonl ({device_of(got[0] + got[1])}; median of 3)", fontsize=8, y=1.02)
    save(fig, out_dir, name, drawn)


def semantic(rows, out_dir, drawn, name, x, fixed_bank, fixed_vac, xlabel, logx=True):
    panels = [("bank_semantic", "bank, 2,621,440 accounts", dict(accounts=2621440, **fixed_bank)),
              ("vacation", "vacation, preset paper", dict(preset="paper", impl="tx", **fixed_vac))]
    got = [rows_of(rows, s, read_only=0, **f) for s, _, f in panels]
    if not any(got):
        return f"{name}: no rows in bank_semantic.jsonl or vacation.jsonl"
    fig, axes = axes_row(2)
    for ax, (suite, title, _), rs in zip(axes, panels, got):
        for cm in ("prstm", "gpustm"):
            for presort, ls in ((False, "-"), (True, "--")):
                xs, ys = series([r for r in rs if r.get("cm") == cm and bool(r.get("presort")) == presort], x)
                if xs:
                    c, m = STYLE[cm]
                    ax.plot(xs, ys, marker=m, color=c, linestyle=ls,
                            label=f"{cm}, {'presorted' if presort else 'unsorted'}")
        ax.set_title(f"{title} ({suite}.jsonl)")
        finish(ax, xlabel, "committed tx / s", logx=logx)
        ax.legend(fontsize=7)
    fig.suptitle(f"{device_of(got[0] + got[1])}; median of 3, table drain, all read/write", fontsize=8, y=1.02)
    save(fig, out_dir, name, drawn)


def skiplist(rows, out_dir, drawn):
    base = dict(impl="tx", mix="50/50/0", read_only=0, mode="timed")
    thr = rows_of(rows, "skiplist", hash=1, **base)
    cov = rows_of(rows, "skiplist", threads=1536, **base)
    if not thr and not cov:
        return "skiplist_threads.svg: no timed rows in skiplist.jsonl"
    fig, axes = axes_row(2)
    for ax, rs, x, xlabel in ((axes[0], thr, "threads", "threads (lock coverage 1)"),
                              (axes[1], cov, "hash", "accounts per lock (1,536 threads)")):
        for cm in ("prstm", "gpustm"):
            xs, ys = series([r for r in rs if r.get("cm") == cm and r.get("priority", "") in ("", "tid")], x)
            if xs:
                c, m = STYLE[cm]
                ax.plot(xs, ys, marker=m, color=c, label=cm)
        ax.set_title("skiplist, 5,000 keys, 50/50/0")
        finish(ax, xlabel, "operations / s")
        ax.legend()
    fig.suptitle(f"results/skiplist.jsonl ({device_of(thr + cov)}; median of 3 timed runs)", fontsize=8, y=1.02)
    save(fig, out_dir, "skiplist_threads.svg", drawn)


def native_vs_tx(rows, out_dir, drawn, name, workloads):
    sets = [s for s in bench_report.headline_sets(rows) if s[1] in workloads]
    panels = []
    for title, wl, rs, who, keys, source in sets:
        rs = bench_report.shown(rs, who, keys)
        points = []
        for r in rs:
            p = tuple(r.get(k, "") for k in keys)
            if p not in points:
                points.append(p)
        for p in points:
            prs = [r for r in rs if tuple(r.get(k, "") for k in keys) == p]
            label = ", ".join(f"{v:,} {k}" if isinstance(v, int) else str(v)
                              for k, v in zip(keys, p) if k not in ("threads", "points"))
            bars = sorted(((bench_report.contender(r, who) or r.get("impl", "?"), r["throughput"]) for r in prs
                           if isinstance(r.get("throughput"), (int, float)) and r["throughput"] > 0),
                          key=lambda b: (b[0] != "native", -b[1]))
            if bars:
                panels.append((f"{wl}, {label}" if label else wl, bars, source, rs))
    if not panels:
        return f"{name}: no headline rows"
    cols = 3
    nrows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(4.4 * cols, 2.4 * nrows), squeeze=False)
    for ax, (title, bars, source, rs) in zip(axes.flat, panels):
        labels = [b[0] for b in bars]
        vals = [b[1] for b in bars]
        colors = ["k" if lab.startswith(("native", "ticket", "treiber", "scan", "sharded", "ms", "harris",
                                         "bucketed", "indexed")) else "C0" for lab in labels]
        ax.barh(range(len(bars)), vals, color=colors)
        ax.set_yticks(range(len(bars)))
        ax.set_yticklabels(labels, fontsize=7)
        ax.invert_yaxis()
        ax.set_xscale("log")
        ax.set_title(f"{title} ({'+'.join(source)})", fontsize=8)
        ax.set_xlabel("per second (log)", fontsize=7)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    devs = device_of([r for _t, _b, _s, rs in panels for r in rs])
    fig.suptitle(f"native (black) against transactional (blue), full occupancy; {devs}", fontsize=9, y=1.0)
    fig.tight_layout()
    save(fig, out_dir, name, drawn)


def multi_gpu(rows, out_dir, drawn):
    mg = rows_of(rows, "multi_gpu")
    pe = [r for r in mg if r.get("pe_transport") == "nvshmem"]
    if not pe:
        return "multi_gpu_cross.svg (no NVSHMEM rows in multi_gpu.jsonl)"
    fig, (ax,) = axes_row(1, width=5.2, height=3.4)
    for n, color in ((2, "C0"), (4, "C3")):
        xs, ys = series([r for r in pe if r.get("pes") == n], "cross")
        if xs:
            thr = sorted({r.get("threads") for r in pe if r.get("pes") == n})
            ax.plot(xs, ys, color=color, marker="o", label=f"{n} GPUs ({thr[-1]:,} threads each)")
    one = [r for r in pe if r.get("pes") == 1]
    for r in one:
        ax.axhline(r["throughput"], color="C2", ls=":", lw=1)
    if one:
        ax.plot([], [], color="C2", ls=":", label="1 GPU, same program")
    plain = [r for r in mg if r.get("pes") is None and isinstance(r.get("throughput"), (int, float))]
    for r in plain[-1:]:
        ax.axhline(r["throughput"], color="k", ls="--", lw=1, label=f"1 GPU, plain bank ({r['threads']:,} threads)")
    finish(ax, "transfers between GPUs, %", logx=False, logy=False)
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=7)
    ax.set_title(f"Partitioned bank, {pe[0].get('accounts', 0):,} accounts ({device_of(mg)})", fontsize=9)
    fig.tight_layout()
    save(fig, out_dir, "multi_gpu_cross.svg", drawn)


def scaling(rows, out_dir, drawn):
    sc = rows_of(rows, "scaling")
    if not sc:
        return "scaling_threads.svg: no rows in scaling.jsonl"
    panels = sorted({bench_report.scaling_config(r) for r in sc})
    cols = min(4, len(panels))
    nrows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(4.2 * cols, 3.0 * nrows), squeeze=False)
    flat = [a for row in axes for a in row]
    for ax, name in zip(flat, panels):
        rs = [r for r in sc if bench_report.scaling_config(r) == name]
        for line in MANAGERS + ["native"]:
            pick = [r for r in rs if (r.get("impl") == "native") == (line == "native") and
                    (line == "native" or r.get("cm") == line)]
            xs, ys = series(pick, "threads")
            if xs:
                c, m = STYLE[line]
                ax.plot(xs, ys, marker=m, color=c, label=line)
        ax.set_title(name)
        finish(ax, "threads")
        ax.legend(fontsize=7)
    for ax in flat[len(panels):]:
        ax.set_visible(False)
    fig.suptitle(f"results/scaling.jsonl ({device_of(sc)}; median of 3 after a warm-up; the last point is full occupancy)",
                 fontsize=8, y=1.01)
    fig.tight_layout()
    save(fig, out_dir, "scaling_threads.svg", drawn)


def main(argv):
    if len(argv) != 2 or argv[0].startswith("-"):
        print("usage: plot_results.py RESULTS_DIR OUT_DIR", file=sys.stderr)
        return 2
    src, out_dir = argv
    if not os.path.isdir(src):
        print(f"plot_results.py: {src}: not a folder", file=sys.stderr)
        return 2
    os.makedirs(out_dir, exist_ok=True)
    rows = [r for r in bench_report.load([src]) if "workload" in r]
    drawn, skipped = [], []
    jobs = [
        lambda: bank_managers(rows, out_dir, drawn, "bank_threads.svg", "threads", {"hash": 1},
                              "threads (lock coverage 1)"),
        lambda: bank_managers(rows, out_dir, drawn, "bank_lock_coverage.svg", "hash", {"threads": 6720},
                              "accounts per lock (6,720 threads)"),
        lambda: semantic(rows, out_dir, drawn, "semantic_threads.svg", "threads", dict(semantic=100, hash=1),
                         dict(semantic=100, hash=1), "threads (semantic ratio 100%)"),
        lambda: semantic(rows, out_dir, drawn, "semantic_lock_coverage.svg", "hash",
                         dict(semantic=100, threads=6720), dict(semantic=100, threads=6720),
                         "accounts per lock (6,720 threads)"),
        lambda: semantic(rows, out_dir, drawn, "semantic_ratio.svg", "semantic", dict(hash=1, threads=6720),
                         dict(hash=1, threads=6720), "semantic ratio, % (6,720 threads)", logx=False),
        lambda: skiplist(rows, out_dir, drawn),
        lambda: native_vs_tx(rows, out_dir, drawn, "native_vs_tx_workloads.svg",
                             {"vacation", "skiplist", "kmeans", "graph"}),
        lambda: native_vs_tx(rows, out_dir, drawn, "native_vs_tx_containers.svg", {"stack", "queue", "list"}),
        lambda: multi_gpu(rows, out_dir, drawn),
        lambda: scaling(rows, out_dir, drawn),
    ]
    for job in jobs:
        note = job()
        if note:
            skipped.append(note)
    for path in drawn:
        print(f"plot_results.py: wrote {path} ({os.path.getsize(path) // 1024} KB)")
    for note in skipped:
        print(f"plot_results.py: skipped {note}", file=sys.stderr)
    return 0 if drawn else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
