#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Write the published GPU Harris list library's (Liu and Pak) listnodes.txt / operations.txt for an experiment.

    tools/list_seed_files.py NODES OPS OUT_DIR [--seed S] [--insert-percent P]

As the seed report's appendix describes: distinct initial values in random
order; every inserted value is new; insert targets and removed values are
drawn from the initial list, so concurrent runs have real conflicts (an insert
after a value that another operation removes).
"""
import argparse
import os
import random

ap = argparse.ArgumentParser()
ap.add_argument("nodes", type=int)
ap.add_argument("ops", type=int)
ap.add_argument("out")
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--insert-percent", type=float, default=50.0)
a = ap.parse_args()
if a.nodes < 1 or a.ops < 1:
    raise SystemExit("list_seed_files.py: NODES and OPS must be positive")
rng = random.Random(a.seed)
os.makedirs(a.out, exist_ok=True)
initial = rng.sample(range(1, 1 << 30), a.nodes)
used = set(initial)
with open(os.path.join(a.out, "listnodes.txt"), "w") as f:
    f.write(f"{a.nodes}\n")
    f.writelines(f"{v}\n" for v in initial)
with open(os.path.join(a.out, "operations.txt"), "w") as f:
    f.write(f"{a.ops}\n")
    for _ in range(a.ops):
        target = rng.choice(initial)
        if rng.random() * 100 < a.insert_percent:
            v = rng.randrange(1, 1 << 31)
            while v in used:
                v = rng.randrange(1, 1 << 31)
            used.add(v)
            f.write(f"1 {target} {v}\n")
        else:
            f.write(f"0 {target}\n")
