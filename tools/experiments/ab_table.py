# SPDX-License-Identifier: Apache-2.0
import json, sys
def rows(p):
    out = []
    try:
        for l in open(p):
            out.append(json.loads(l))
    except FileNotFoundError:
        pass
    return out
keys = ("workload", "impl", "validation", "reads", "words", "threads", "accounts", "preset", "mix", "cm")
def key(d):
    return tuple(str(d.get(k, "")) for k in keys) + (str(d.get("command", "")).split("--cm ")[-1][:8] if "--cm" in d.get("command", "") else "",)
a = rows(sys.argv[1]); b = {key(d): d for d in rows(sys.argv[2])}
for d in a:
    o = b.get(key(d))
    ab = d.get("aborts", {}); na = sum(ab.values()) if isinstance(ab, dict) else 0
    desc = " ".join(f"{k}={d[k]}" for k in keys if k in d and k != "workload")
    t1 = d["throughput"]; t0 = o["throughput"] if o else float("nan")
    print(f'{d["workload"]:8} {desc[:70]:70} on {t1/1e6:10.3f} off {t0/1e6:10.3f} M/s  x{t1/t0 if o and t0 else 0:5.2f} ab/c {na/max(1,d.get("commits",1)):.2f} esc {d.get("escalations",0)} ok {d["verified"]}')
