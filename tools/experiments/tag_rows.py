#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Experiment tool: stm_bench's JSON rows from stdin, each with the fields given added, to stdout.

Usage: stm_bench ... --format json | tag_rows.py KEY=VALUE...
Lines that are not JSON objects (stm_bench's progress) are dropped. A VALUE that parses as JSON (a
number) is stored as that, any other as a string: `build=A round=1` gives {"build": "A", "round": 1}.
"""
import json
import sys


def value(text):
    try:
        return json.loads(text)
    except ValueError:
        return text


def main(argv):
    tags = {}
    for arg in argv[1:]:
        key, sep, text = arg.partition("=")
        if not sep or not key:
            sys.exit(f"tag_rows.py: KEY=VALUE expected, got '{arg}'")
        tags[key] = value(text)
    for line in sys.stdin:
        if line.startswith("{"):
            row = json.loads(line)
            row.update(tags)
            print(json.dumps(row))


if __name__ == "__main__":
    main(sys.argv)
