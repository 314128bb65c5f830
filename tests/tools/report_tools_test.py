#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tools/compare_results.py and tools/bench_report.py on synthetic result files and on
the committed results/ (ctest report_tools; about a second, no GPU, no matplotlib)."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COMPARE = os.path.join(ROOT, "tools", "compare_results.py")
REPORT = os.path.join(ROOT, "tools", "bench_report.py")


def run(*args):
    p = subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=ROOT)
    return p.returncode, p.stdout, p.stderr


def write(path, rows):
    with open(path, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")


def bank(cm, acc, thr, tput, **extra):
    return dict(workload="bank", backend="gpu", device="GPU X", cm=cm, accounts=acc, threads=thr, tpt=64,
                semantic=0, read_only=0, mode="timed", throughput=tput, verified=True,
                command=f"stm_bench --workload bank --cm {cm}", **extra)


class Compare(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.old = os.path.join(self.tmp.name, "old.jsonl")
        self.new = os.path.join(self.tmp.name, "new.jsonl")

    def tearDown(self):
        self.tmp.cleanup()

    def test_moved_rows_only_beyond_threshold(self):
        write(self.old, [bank("prstm", 4096, 6720, 200e6), bank("backoff", 4096, 6720, 100e6),
                         bank("gpustm", 4096, 6720, 90e6), bank("delay", 4096, 6720, 80e6)])
        # prstm -50% (a regression), backoff +5% (noise), gpustm +25%, delay gone; a new row;
        # hash 1 and the thread-id priority are defaults: they still match rows without them.
        write(self.new, [bank("prstm", 4096, 6720, 100e6, hash=1, priority="tid", commit="abc"),
                         bank("backoff", 4096, 6720, 105e6, seconds=0.3),
                         bank("gpustm", 4096, 6720, 112.5e6),
                         dict(bank("prstm", 2621440, 6720, 2e9), verified=False)])
        rc, out, _ = run(COMPARE, self.old, self.new)
        self.assertEqual(rc, 0)
        self.assertIn("3 configurations in both; rows that moved by more than 10%: 2", out)
        moved = [line for line in out.splitlines() if line.lstrip().startswith(("+", "-")) and "%" in line]
        self.assertEqual(len(moved), 2, out)
        self.assertIn("-50.0%", moved[0])  # largest move first
        self.assertIn("cm=prstm", moved[0])
        self.assertIn("+25.0%", moved[1])
        self.assertNotIn("cm=backoff", "\n".join(moved))
        self.assertIn("only in new (1)", out)
        self.assertIn("only in old (1)", out)
        self.assertIn("NOT VERIFIED in new (1)", out)
        self.assertRegex(out.splitlines()[1], r"commit .*abc")

    def test_threshold_and_all(self):
        write(self.old, [bank("prstm", 4096, 6720, 100e6)])
        write(self.new, [bank("prstm", 4096, 6720, 104e6)])
        self.assertIn("moved by more than 3%: 1", run(COMPARE, self.old, self.new, "--threshold", "3")[1])
        self.assertIn("every matched row: 1", run(COMPARE, self.old, self.new, "--all")[1])

    def test_last_row_of_a_configuration_wins(self):
        write(self.old, [bank("prstm", 4096, 6720, 50e6), bank("prstm", 4096, 6720, 100e6)])
        write(self.new, [bank("prstm", 4096, 6720, 101e6)])
        self.assertIn("moved by more than 10%: 0", run(COMPARE, self.old, self.new)[1])

    def test_bad_input(self):
        write(self.old, [bank("prstm", 4096, 6720, 1e6)])
        with open(self.new, "w") as f:
            f.write("{not json\n")
        rc, _, err = run(COMPARE, self.old, self.new)
        self.assertEqual(rc, 2)
        self.assertIn("not JSON", err)
        rc, _, err = run(COMPARE, self.old, os.path.join(self.tmp.name, "missing.jsonl"))
        self.assertEqual(rc, 2)
        self.assertEqual(run(COMPARE, self.old, self.old, "--threshold", "-1")[0], 2)

    def test_committed_results_as_the_previous_run(self):
        # The first headline run compares with the per-suite files: their own rows match.
        rc, out, _ = run(COMPARE, os.path.join(ROOT, "results"), os.path.join(ROOT, "results", "bank.jsonl"))
        self.assertEqual(rc, 0)
        self.assertRegex(out, r"\n[1-9][0-9]* configurations in both; rows that moved by more than 10%: 0")


class Report(unittest.TestCase):
    def test_headline_file_feeds_the_tables(self):
        with tempfile.TemporaryDirectory() as d:
            write(os.path.join(d, "headline.jsonl"),
                  [bank(cm, 4096, 270336, t, commit="1234abc") for cm, t in (("prstm", 3e8), ("gpustm", 8e7))])
            write(os.path.join(d, "bank.jsonl"), [bank("prstm", 4096, 270336, 1.0, commit="old0000")])
            rc, out, _ = run(REPORT, d)
            self.assertEqual(rc, 0)
            self.assertIn("Device: GPU X. Commit: 1234abc. Rows: `results/headline.jsonl`.", out)
            self.assertIn("| 4,096 | 270,336 (full) | 300 M | 80 M |", out)
            self.assertNotIn("old0000", out.split("## Provenance")[0])

    def test_multi_gpu_table_against_one_gpu(self):
        # The partitioned bank's rows: each GPU count against one GPU of the same program at the
        # nearest thread count, and against the best plain bank.
        plain = bank("prstm", 1 << 20, 270336, 4e9, commit="1234abc")
        pe = lambda n, x, t, tput: dict(plain, pes=n, cross=x, threads=t, throughput=tput, pe_transport="nvshmem")
        with tempfile.TemporaryDirectory() as d:
            write(os.path.join(d, "multi_gpu.jsonl"),
                  [plain, pe(1, 0, 270336, 2e9), pe(1, 0, 131072, 1.5e9), pe(2, 0, 262144, 4e9), pe(4, 10, 131072, 3e9)])
            rc, out, err = run(REPORT, d)
            self.assertEqual(rc, 0, err)
            self.assertIn("### Several GPUs", out)
            self.assertIn("| 2 | 262,144 | 0 | 4 G | 2.00x | 1.00x |", out)
            self.assertIn("| 4 | 131,072 | 10 | 3 G | 2.00x | 0.75x |", out)
            self.assertEqual(out.count("| 1 | "), 2)
        with tempfile.TemporaryDirectory() as d:  # no NVSHMEM rows: no section
            write(os.path.join(d, "multi_gpu.jsonl"), [plain])
            self.assertNotIn("### Several GPUs", run(REPORT, d)[1])

    def test_scaling_table_full_against_best(self):
        # Per configuration and manager: full occupancy and its share of the best point of the thread sweep.
        row = lambda cm, t, tput, impl="tx": dict(workload="array", impl=impl, cm=cm, reads=64, words=2097152,
                                                  validation="opaque" if impl == "tx" else "none", threads=t,
                                                  throughput=tput, device="GPU X", commit="1234abc", verified=True)
        with tempfile.TemporaryDirectory() as d:
            write(os.path.join(d, "scaling.jsonl"),
                  [row("prstm", 1536, 5e6), row("prstm", 6144, 20e6), row("prstm", 270336, 10e6),
                   row("backoff", 1536, 6e6), row("backoff", 270336, 12.5e6),
                   row("none", 1536, 1e6, "native"), row("none", 270336, 4e6, "native")])
            rc, out, err = run(REPORT, d)
            self.assertEqual(rc, 0, err)
            self.assertIn("### Scaling", out)
            # One row per configuration: native, the managers; each cell full occupancy (share of its best);
            # prstm 10 M against backoff's 12.5 M (0.80) and native's 4 M (2.50).
            self.assertIn("| configuration | native | prstm | backoff | prstm / best manager | prstm / native |", out)
            self.assertIn("| array R=64 N=2,097,152 opaque | 4 M (1.00) | 10 M (0.50) | 12.5 M (1.00) | 0.80 | 2.50 |",
                          out)
        with tempfile.TemporaryDirectory() as d:  # no other manager at full occupancy: no comparison
            write(os.path.join(d, "scaling.jsonl"),
                  [row("prstm", 1536, 5e6), row("prstm", 270336, 10e6), row("backoff", 1536, 6e6)])
            rc, out, err = run(REPORT, d)
            self.assertEqual(rc, 0, err)
            self.assertIn("| array R=64 N=2,097,152 opaque | 10 M (1.00) | not measured |  |  |", out)

    def test_native_over_tx_ratio(self):
        # Per point: the best verified native throughput over the best verified transactional one;
        # a table with only one kind has no such column.
        row = lambda impl, tput, cm=None, ok=True, mix="50/50/0": dict(
            workload="skiplist", impl=impl, cm=cm or ("native" if impl == "native" else "prstm"), mix=mix,
            threads=270336, mode="ops", ops=1000000, throughput=tput, device="GPU X", commit="1234abc", verified=ok)
        with tempfile.TemporaryDirectory() as d:
            write(os.path.join(d, "headline.jsonl"),
                  [row("tx", 50e6, "backoff"),  # superseded by the later backoff row: not shown, not counted
                   row("native", 100e6), row("tx", 20e6), row("tx", 25e6, "backoff"), row("tx", 90e6, "delay", False),
                   row("native", 300e6, mix="20/20/60")])
            rc, out, err = run(REPORT, d)
            self.assertEqual(rc, 0, err)
            self.assertIn("| native / tx |", out)
            self.assertIn("| 4.0x |", out)  # 100 M / 25 M: the unverified 90 M does not count
            self.assertNotIn("12.0x", out)
        with tempfile.TemporaryDirectory() as d:
            write(os.path.join(d, "headline.jsonl"), [row("tx", 20e6), row("tx", 25e6, "backoff")])
            self.assertNotIn("native / tx", run(REPORT, d)[1])
        # The bank's STM rows carry no impl: a manager without one is transactional.
        import importlib.util
        spec = importlib.util.spec_from_file_location("bench_report", REPORT)
        br = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(br)
        self.assertTrue(br.transactional({"workload": "bank", "cm": "prstm"}))
        self.assertFalse(br.transactional({"workload": "bank", "cm": "native", "impl": "native"}))
        self.assertTrue(br.transactional({"workload": "kmeans", "impl": "tx-aggregated", "cm": "prstm"}))
        self.assertFalse(br.transactional({"workload": "stack", "impl": "treiber"}))

    def test_committed_report_fits(self):
        rc, out, err = run(REPORT, os.path.join(ROOT, "results"))
        self.assertEqual(rc, 0, err)
        lines = out.splitlines()
        self.assertLessEqual(len(lines), 300)
        tables = [i for i, line in enumerate(lines) if line.startswith("### ")]
        self.assertGreaterEqual(len(tables), 8)
        for i in tables:  # every headline table states its device and commit
            self.assertTrue(lines[i + 2].startswith("Device: ") and "Commit: " in lines[i + 2], lines[i + 2])

    def test_usage(self):
        self.assertEqual(run(REPORT)[0], 2)
        self.assertEqual(run(REPORT, os.path.join(ROOT, "no-such-folder"))[0], 2)


if __name__ == "__main__":
    unittest.main()
